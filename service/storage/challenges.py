"""Challenges: one account's invitation of others to a game, until it is answered.

A challenge is a small JSON document (:class:`Challenge`; ``service/play/challenges.py``
says how it changes); the store keeps it under its own hash tag, changes it atomically
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["Challenge", "ChallengeStore"]


@dataclass(frozen=True, slots=True)
class Challenge:
    """A challenge as stored: who challenged whom (``to``, in seat order after the
    challenger), who accepted so far, the game it asks for, and what became of it
    (``status``: ``pending``, ``accepted`` with its ``game_id``, ``declined`` by
    ``declined_by``, ``canceled`` or ``expired``). ``rules`` are the resolved rules as
    JSON, kept as they were written (the game is dealt from them)."""

    challenge_id: str
    status: str
    challenger: str
    to: tuple[str, ...]
    accepted: tuple[str, ...]
    declined_by: str | None
    rules: Mapping[str, Any]
    turn_seconds: int | None
    rated: bool
    created: float
    expires: float
    game_id: str | None = None

    @property
    def handles(self) -> tuple[str, ...]:
        """Everyone in it, in seat order: the challenger, then those challenged."""
        return (self.challenger, *self.to)

    def to_json(self) -> dict[str, object]:
        return {
            "challenge_id": self.challenge_id, "status": self.status,
            "challenger": self.challenger, "to": list(self.to),
            "accepted": list(self.accepted), "declined_by": self.declined_by,
            "rules": self.rules, "turn_seconds": self.turn_seconds, "rated": self.rated,
            "created": self.created, "expires": self.expires, "game_id": self.game_id,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Challenge:
        return cls(
            challenge_id=data["challenge_id"], status=data["status"],
            challenger=data["challenger"], to=tuple(data["to"]),
            accepted=tuple(data["accepted"]), declined_by=data["declined_by"],
            rules=data["rules"], turn_seconds=data["turn_seconds"], rated=data["rated"],
            created=data["created"], expires=data["expires"], game_id=data["game_id"],
        )


class ChallengeStore(ABC):
    """Challenges by id, and each account's index of the challenges it is in."""

    @abstractmethod
    def create(self, challenge: Challenge, ttl_seconds: int) -> None:
        """Store a new challenge, kept ``ttl_seconds``."""

    @abstractmethod
    def load(self, challenge_id: str) -> Challenge | None:
        """The challenge (``None``: none, or no longer kept)."""

    @abstractmethod
    def change(self, challenge_id: str,
               step: Callable[[Challenge], Challenge | None]) -> Challenge | None:
        """Apply ``step`` to the challenge atomically: ``step`` gets it as stored and
        returns the changed one (a new value), or ``None`` to leave it (an error it raises
        leaves it too, and reaches the caller). No lock is held while ``step`` runs: a
        change that lands meanwhile is kept, and ``step`` runs again on what it left, so
        a step may run more than once and must only compute (its effects belong after
        the change). The challenge as stored after (``None``: there is none)."""

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
