"""The in-memory :class:`~service.storage.ratings.RatingStore`: dicts under one lock (a
condition, so :meth:`wait` wakes on a queued game), for the service layer's fast tests.

As on Redis: a queued game leaves one wake-up (at most one waits) that a wait takes, so a
wait returns at once after games were queued and blocks again once that is taken, however
many games wait; times are kept in milliseconds and documents as JSON (:mod:`.kept`);
the boards' ties come in reverse handle order."""

from __future__ import annotations

import threading
from typing import Any

from ..accounts import folded
from ..ratings import RatingStore
from .kept import as_json, ms

__all__ = ["MemoryRatings"]

_DAY_MS = 86_400_000


class MemoryRatings(RatingStore):
    """The queue, the accounts' ratings and the boards in dicts."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._queue: dict[str, int] = {}
        self._seq = 0
        self._woken = False  # a wake-up waiting for a worker (one at most)
        self._done: dict[str, int] = {}  # game id -> when applied (ms)
        self._computed: dict[str, dict[str, Any]] = {}
        self._ratings: dict[str, dict[str, dict[str, Any]]] = {}
        self._rated: dict[str, set[str]] = {}
        self._history: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._boards: dict[tuple[str, bool], dict[str, float]] = {}
        self._aside: dict[str, dict[str, Any]] = {}
        self._pairs: dict[str, dict[str, int]] = {}  # pair -> game id -> admitted (ms)

    def enqueue(self, game_id: str, now: float) -> bool:
        with self._lock:
            if game_id in self._queue or game_id in self._done:
                return False
            self._seq += 1
            self._queue[game_id] = self._seq
            self._wake()
            return True

    def _wake(self) -> None:
        """Leave one wake-up for a waiting worker (lock held)."""
        self._woken = True
        self._lock.notify_all()

    def head(self) -> str | None:
        with self._lock:
            return min(self._queue, key=self._queue.__getitem__) if self._queue else None

    def queued(self) -> int:
        with self._lock:
            return len(self._queue)

    def wait(self, seconds: float) -> None:
        with self._lock:
            self._lock.wait_for(lambda: self._woken, seconds)
            self._woken = False

    def compute_once(self, game_id: str, result: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            return as_json(self._computed.setdefault(game_id, as_json(result)))

    def computed(self, game_id: str) -> dict[str, Any] | None:
        with self._lock:
            return as_json(self._computed.get(game_id))

    def done(self, game_id: str, now: float) -> None:
        with self._lock:
            self._queue.pop(game_id, None)
            self._computed.pop(game_id, None)
            self._done[game_id] = ms(now)
            self._done = {g: at for g, at in self._done.items() if at > ms(now) - _DAY_MS}

    def set_aside(self, game_id: str, why: str, now: float) -> None:
        with self._lock:
            self._queue.pop(game_id, None)  # its computation stays: a retry applies it
            self._aside[game_id] = {"why": why, "at": now}

    def aside(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return as_json(self._aside)

    def retry(self, game_id: str) -> bool:
        with self._lock:
            if self._aside.pop(game_id, None) is None:
                return False
            self._seq += 1
            self._queue[game_id] = self._seq
            self._wake()
            return True

    def admit_pair(self, pair: str, game_id: str, now: float, window: float,
                   limit: int) -> int | None:
        with self._lock:
            since = ms(now) - ms(window)
            games = {g: at for g, at in self._pairs.get(pair, {}).items() if at > since}
            self._pairs[pair] = games
            if game_id in games:
                return None
            if len(games) >= limit:
                return len(games)
            games[game_id] = ms(now)
            return None

    def forget_pair(self, pair: str, game_id: str) -> None:
        with self._lock:
            self._pairs.get(pair, {}).pop(game_id, None)

    def pair_count(self, pair: str, now: float, window: float) -> int:
        with self._lock:
            since = ms(now - window)
            return sum(1 for at in self._pairs.get(pair, {}).values() if at > since)

    def ratings(self, handle: str) -> dict[str, dict[str, Any]]:
        with self._lock:
            return as_json(self._ratings.get(folded(handle), {}))

    def apply(self, handle: str, preset: str, game_id: str, rating: dict[str, Any],
              point: dict[str, Any]) -> bool:
        with self._lock:
            rated = self._rated.setdefault(folded(handle), set())
            if game_id in rated:
                return False
            rated.add(game_id)
            self._ratings.setdefault(folded(handle), {})[preset] = as_json(rating)
            self._history.setdefault((folded(handle), preset), []).append(as_json(point))
            return True

    def history(self, handle: str, preset: str, start: int, count: int) -> list[dict[str, Any]]:
        with self._lock:
            points = self._history.get((folded(handle), preset), [])
            return as_json(points[start:start + count])

    def latest(self, handle: str, preset: str, count: int) -> list[dict[str, Any]]:
        with self._lock:
            return as_json(
                self._history.get((folded(handle), preset), [])[-count:])

    def rank(self, preset: str, bot: bool, handle: str, rating: float | None) -> None:
        with self._lock:
            board = self._boards.setdefault((preset, bot), {})
            if rating is None:
                board.pop(handle, None)
            else:
                board[handle] = rating

    def board(self, preset: str, bot: bool, start: int, count: int) -> list[str]:
        with self._lock:
            ranked = sorted(((rating, handle) for handle, rating
                             in self._boards.get((preset, bot), {}).items()), reverse=True)
            return [handle for _, handle in ranked[start:start + count]]
