"""The sweeper's schedule: when to look at a game that nobody may be reading.

Why a schedule beside the games: a turn clock or a bot seat is played by whoever next
reads the game, and a game nobody reads (every human gone, bots whose worker died) would
wait for its TTL. The schedule is one index across games, so it is written apart from
the game's own save and is only a hint: the sweeper (``python -m service.sweep``,
``service/play/sweep.py``) checks the game itself when the time comes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

__all__ = ["Schedule"]


class Schedule(ABC):
    """One planned visit per game (Unix seconds), taken by the sweepers under a lease."""

    @abstractmethod
    def plan_visit(self, game_id: str, at: float) -> None:
        """Ask the sweeper to look at ``game_id`` at ``at`` (Unix seconds), replacing any
        earlier plan for it."""

    @abstractmethod
    def take_visits(self, now: float, count: int, lease_seconds: float) -> list[str]:
        """Up to ``count`` games whose visit is due at ``now``, oldest first, each moved
        ``lease_seconds`` later in the same atomic step: no two sweepers take the same game
        within a lease, and a game whose sweeper died is taken again when its lease ends."""

    @abstractmethod
    def drop_visit(self, game_id: str) -> None:
        """Take ``game_id`` off the schedule (finished, gone, or nothing left to play)."""

    @abstractmethod
    def visits_due(self, now: float) -> tuple[int, float | None]:
        """How many visits are due at ``now``, and when the earliest planned one is (Unix
        seconds; ``None``: the schedule is empty): whether the sweepers keep up."""
