"""The bot ladder's state per preset: its members, the ladder games being played, and each
member's latest tables (so a pair does not meet more than three times in a row).

Written only by the move worker holding the preset's ladder visit (a lease on the
schedule, :mod:`service.play.ladder`) and by members joining or leaving, so there is no
race to settle beyond one member's own entry. Each preset's keys share one hash tag: a
Redis Cluster keeps a ladder on one shard.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["RECENT_TABLES", "LadderEntry", "LadderStore"]

#: A member's tables remembered: a pair seated together in all of them is not seated again.
RECENT_TABLES = 3


@dataclass(frozen=True, slots=True)
class LadderEntry:
    """A member's entry: the table sizes it plays, how many ladder games it plays at
    once, and when it joined (or last changed its entry; Unix seconds)."""

    min_players: int
    max_players: int
    games_at_once: int
    joined: float

    def to_json(self) -> dict[str, object]:
        return {"min_players": self.min_players, "max_players": self.max_players,
                "games_at_once": self.games_at_once, "joined": self.joined}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LadderEntry:
        return cls(data["min_players"], data["max_players"], data["games_at_once"],
                   data["joined"])


class LadderStore(ABC):
    """Each preset's ladder: members, games in play, recent tables."""

    @abstractmethod
    def join(self, preset: str, handle: str, entry: LadderEntry) -> None:
        """Add or change ``handle``'s entry."""

    @abstractmethod
    def leave(self, preset: str, handle: str) -> bool:
        """Take ``handle`` off the ladder: whether it was on it (its games play on)."""

    @abstractmethod
    def members(self, preset: str) -> dict[str, LadderEntry]:
        """Every member's entry, by handle as it joined."""

    @abstractmethod
    def playing(self, preset: str) -> dict[str, list[str]]:
        """The ladder games not yet seen finished: game id -> the handles seated."""

    @abstractmethod
    def recent(self, preset: str) -> dict[str, list[list[str]]]:
        """Each member's latest tables (the others seated), newest first."""

    @abstractmethod
    def seat(self, preset: str, game_id: str, handles: Sequence[str]) -> None:
        """Record a ladder game about to be created: in play, and on each member's
        latest tables."""

    @abstractmethod
    def ended(self, preset: str, game_ids: Sequence[str]) -> None:
        """Forget games seen finished (or gone)."""
