"""The in-memory :class:`~service.storage.ratings.RatingStore`: dicts under one lock (a
condition, so :meth:`wait` wakes on a queued game), for the service layer's fast tests."""

from __future__ import annotations

import copy
import threading
from typing import Any

from ..accounts import folded
from ..ratings import RatingStore

__all__ = ["MemoryRatings"]

_DAY = 86_400.0


class MemoryRatings(RatingStore):
    """The queue, the accounts' ratings and the boards in dicts."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._queue: dict[str, int] = {}
        self._seq = 0
        self._done: dict[str, float] = {}
        self._computed: dict[str, dict[str, Any]] = {}
        self._ratings: dict[str, dict[str, dict[str, Any]]] = {}
        self._rated: dict[str, set[str]] = {}
        self._history: dict[tuple[str, str], list[dict[str, Any]]] = {}
        self._boards: dict[tuple[str, bool], dict[str, float]] = {}
        self._aside: dict[str, dict[str, Any]] = {}
        self._pairs: dict[str, dict[str, float]] = {}

    def enqueue(self, game_id: str, now: float) -> bool:
        with self._lock:
            if game_id in self._queue or game_id in self._done:
                return False
            self._seq += 1
            self._queue[game_id] = self._seq
            self._lock.notify_all()
            return True

    def head(self) -> str | None:
        with self._lock:
            return min(self._queue, key=self._queue.__getitem__) if self._queue else None

    def queued(self) -> int:
        with self._lock:
            return len(self._queue)

    def wait(self, seconds: float) -> None:
        with self._lock:
            if not self._queue:
                self._lock.wait(seconds)

    def compute_once(self, game_id: str, result: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            return copy.deepcopy(self._computed.setdefault(game_id, copy.deepcopy(result)))

    def computed(self, game_id: str) -> dict[str, Any] | None:
        with self._lock:
            return copy.deepcopy(self._computed.get(game_id))

    def done(self, game_id: str, now: float) -> None:
        with self._lock:
            self._queue.pop(game_id, None)
            self._computed.pop(game_id, None)
            self._done[game_id] = now
            self._done = {g: at for g, at in self._done.items() if at > now - _DAY}

    def set_aside(self, game_id: str, why: str, now: float) -> None:
        with self._lock:
            self._queue.pop(game_id, None)  # its computation stays: a retry applies it
            self._aside[game_id] = {"why": why, "at": now}

    def aside(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return copy.deepcopy(self._aside)

    def retry(self, game_id: str) -> bool:
        with self._lock:
            if self._aside.pop(game_id, None) is None:
                return False
            self._seq += 1
            self._queue[game_id] = self._seq
            self._lock.notify_all()
            return True

    def admit_pair(self, pair: str, game_id: str, now: float, window: float,
                   limit: int) -> int | None:
        with self._lock:
            games = {g: at for g, at in self._pairs.get(pair, {}).items() if at > now - window}
            self._pairs[pair] = games
            if game_id in games:
                return None
            if len(games) >= limit:
                return len(games)
            games[game_id] = now
            return None

    def forget_pair(self, pair: str, game_id: str) -> None:
        with self._lock:
            self._pairs.get(pair, {}).pop(game_id, None)

    def pair_count(self, pair: str, now: float, window: float) -> int:
        with self._lock:
            return sum(1 for at in self._pairs.get(pair, {}).values() if at > now - window)

    def ratings(self, handle: str) -> dict[str, dict[str, Any]]:
        with self._lock:
            return copy.deepcopy(self._ratings.get(folded(handle), {}))

    def apply(self, handle: str, preset: str, game_id: str, rating: dict[str, Any],
              point: dict[str, Any]) -> bool:
        with self._lock:
            rated = self._rated.setdefault(folded(handle), set())
            if game_id in rated:
                return False
            rated.add(game_id)
            self._ratings.setdefault(folded(handle), {})[preset] = copy.deepcopy(rating)
            self._history.setdefault((folded(handle), preset), []).append(copy.deepcopy(point))
            return True

    def history(self, handle: str, preset: str, start: int, count: int) -> list[dict[str, Any]]:
        with self._lock:
            points = self._history.get((folded(handle), preset), [])
            return copy.deepcopy(points[start:start + count])

    def latest(self, handle: str, preset: str, count: int) -> list[dict[str, Any]]:
        with self._lock:
            return copy.deepcopy(self._history.get((folded(handle), preset), [])[-count:])

    def rank(self, preset: str, bot: bool, handle: str, rating: float | None) -> None:
        with self._lock:
            board = self._boards.setdefault((preset, bot), {})
            if rating is None:
                board.pop(handle, None)
            else:
                board[handle] = rating

    def board(self, preset: str, bot: bool, start: int, count: int) -> list[str]:
        with self._lock:
            ranked = sorted(self._boards.get((preset, bot), {}).items(),
                            key=lambda item: (-item[1], item[0]))
            return [handle for handle, _ in ranked[start:start + count]]
