"""Each account's mistakes: its own analysed decisions that cost points, filed when a
game's analysis finishes, read back by ``GET /v1/me/mistakes`` (docs/analysis.md).

Why an index of its own per account, written when the analysis finishes: the list reads
across every analysed game the account played, newest first, filtered by regret. Read
from the analyses at request time, each page would decompress a whole analysis per game
(and find the account's games in them); filed once, a page is one range of a sorted set
and the entries it names. Each entry is self-contained (the position as its seat saw
it, the move taken, the best, the values compared), so it stays playable as a puzzle
whatever becomes of the game's record or analysis.

Order: by when the game ended, newest first; within a game, the latest decision first.
A game filed again (analysed again) replaces what was filed for it. An account keeps
its newest :data:`MISTAKES_KEPT` entries; older ones are dropped as new ones come.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["MISTAKES_KEPT", "FiledMistake", "MistakeStore", "mistake_member"]

#: The most entries kept per account (a few hundred bytes to a kilobyte each).
MISTAKES_KEPT = 500


def mistake_member(game_id: str, version: int) -> str:
    """An entry's name in its account's index: the game, then the version zero-padded so
    that names sort like the decisions within a game."""
    return f"{game_id}:{version:08d}"


@dataclass(frozen=True, slots=True)
class FiledMistake:
    """An entry: the game's end (Unix milliseconds), its name (:func:`mistake_member`)
    and its body (with at least ``game_id``, ``version`` and ``regret``)."""

    ended_ms: int
    member: str
    body: Mapping[str, Any]

    @property
    def position(self) -> tuple[int, str]:
        """Where it stands in the order (the order is this, descending)."""
        return self.ended_ms, self.member


class MistakeStore(ABC):
    """The accounts' mistakes."""

    @abstractmethod
    def file(self, handle: str, game_id: str, ended_ms: int,
             bodies: Sequence[Mapping[str, Any]]) -> None:
        """File ``bodies`` (each with ``version`` and ``regret``) under ``handle`` for the
        game ``game_id`` that ended at ``ended_ms``, replacing whatever was filed for that
        game before, and drop the account's oldest past :data:`MISTAKES_KEPT`."""

    @abstractmethod
    def page(self, handle: str, since_ms: int | None, min_regret: float,
             after: tuple[int, str] | None, limit: int) -> list[FiledMistake]:
        """Up to ``limit`` of the account's entries, newest first: of games that ended at
        or after ``since_ms``, with a regret of at least ``min_regret``, and past ``after``
        (the :attr:`FiledMistake.position` of the last one of a previous page)."""

    @abstractmethod
    def one(self, handle: str, game_id: str, version: int) -> FiledMistake | None:
        """The account's entry for that decision, or ``None``."""
