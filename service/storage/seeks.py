"""Matchmaking's storage: the seekers waiting for the same game, matched in one step.

Seekers meet in *pools* (one resolved rule set and player count, ``service/play/seeks.py``
names them). Why adding and matching are one atomic step: with the seeker added, the
oldest ``players`` seekers taken off the pool and each given its game and seat at once,
two racing seekers can never both take a third, and no seeker is taken without being
told: no seeker is placed twice and none is lost. The step only writes the *match
record* (enough to create the game); the game is created by the request that matched,
or by any of its seekers that finds it missing (so a worker dying between the two loses
no game).

Every add also drops the pool's expired seekers and its results older than
``results_kept_seconds``. A seeker's seat token is never stored, only its hash.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from contextlib import AbstractContextManager
from typing import Any, Protocol

__all__ = ["SeekBoard", "Waiter"]


class Waiter(Protocol):
    """What a seeker parks on until its pool's next match."""

    def wait(self, timeout: float) -> bool:
        """Sleep until the pool may have matched (``True``) or ``timeout`` seconds pass."""
        ...


class SeekBoard(ABC):
    """The seekers of every pool, by seek key (a hash of the seek's id)."""

    @abstractmethod
    def add(self, pool: str, key: str, seek: dict[str, Any], expires: float, players: int,
            game_id: str, rules_json: bytes, now: float) -> list[str]:
        """Add a seeker (``seek``: its ``name`` and ``th``, the hash of its seat token),
        waiting until ``expires`` (Unix seconds), and match if the pool now holds
        ``players``: the oldest ``players`` seekers (by expiry) leave the pool, each seek
        gets ``game``: ``game_id`` and ``seat`` (its place among them), and the match
        record ``{rules, names, ths}`` of ``game_id`` is stored; a match wakes the pool's
        waiters (:meth:`watch`). Returns the matched seek keys in seat order (empty:
        nobody was matched)."""

    @abstractmethod
    def get(self, pool: str, key: str) -> tuple[dict[str, Any] | None, float | None]:
        """A seek's record (``None``: unknown, removed or dropped) and, while it waits,
        its expiry (Unix seconds; ``None`` once matched). An expired seek may still be
        returned until the pool's next add drops it: the caller checks the expiry."""

    @abstractmethod
    def match_record(self, pool: str, game_id: str) -> dict[str, Any] | None:
        """What the game ``game_id`` of this pool is made of (``rules``, ``names`` and
        ``ths`` in seat order); ``None`` once dropped."""

    @abstractmethod
    def cancel(self, pool: str, key: str) -> int:
        """Take a waiting seeker off its pool: 1 removed, 2 already matched, 0 unknown."""

    @abstractmethod
    def watch(self, pool: str) -> AbstractContextManager[Waiter]:
        """Wake on this pool's next match, for the duration of a ``with`` block: read the
        seek *after* entering it, so a match after the read is never missed."""
