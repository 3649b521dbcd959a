"""Challenges: one account's invitation of others to a game, until it is answered.

A challenge is a small JSON document (``service/play/challenges.py`` says what it holds
and how it changes); the store keeps it under its own hash tag, changes it atomically
(:meth:`ChallengeStore.change`: a check-and-set, so two accepts racing for the last seat
start one game, and an accept racing a cancel loses or wins as a whole), and keeps it a
while after it is answered, for the challenger to read what became of it.

Each account involved also indexes the challenge among its own (its hash tag:
``GET /v1/challenges`` lists them with one read per account, and the challenger's
open challenges are counted there for its limit). Like every index across keys, it is
written after the challenge and corrected on read: an entry whose challenge is answered
or gone is skipped, and dropped once expired.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

__all__ = ["ChallengeStore"]

Challenge = dict[str, Any]


class ChallengeStore(ABC):
    """Challenges by id, and each account's index of the challenges it is in."""

    @abstractmethod
    def create(self, challenge: Challenge, ttl_seconds: int) -> None:
        """Store a new challenge (``challenge["challenge_id"]``), kept ``ttl_seconds``, as
        JSON keeps it (a tuple comes back a list)."""

    @abstractmethod
    def load(self, challenge_id: str) -> Challenge | None:
        """The challenge, a copy of the caller's own (``None``: none, or no longer kept)."""

    @abstractmethod
    def change(self, challenge_id: str,
               step: Callable[[Challenge], Challenge | None]) -> Challenge | None:
        """Apply ``step`` to the challenge atomically: ``step`` gets a copy of it as stored
        and returns it changed, or ``None`` to leave it (an error it raises leaves it too,
        and reaches the caller). No lock is held while ``step`` runs: a change that lands
        meanwhile is kept, and ``step`` runs again on what it left, so a step may run
        more than once and must only compute (its effects belong after the change). The
        challenge as stored after (``None``: there is none)."""

    @abstractmethod
    def index(self, handle: str, challenge_id: str, expires: float) -> None:
        """List ``challenge_id`` among ``handle``'s challenges until ``expires`` (kept to
        the millisecond: challenges expiring in one millisecond are in id order)."""

    @abstractmethod
    def unindex(self, handle: str, challenge_id: str) -> None:
        """Drop ``challenge_id`` from ``handle``'s challenges."""

    @abstractmethod
    def indexed(self, handle: str, now: float) -> list[str]:
        """The ids of ``handle``'s challenges not yet expired at ``now``, soonest to
        expire first (the expired ones are dropped)."""
