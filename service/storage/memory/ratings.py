"""The in-memory :class:`~service.storage.ratings.RatingStore`: dicts under one lock (a
condition, so :meth:`wait` wakes on a queued game), for the service layer's fast tests.

As on Redis: a queued game leaves one wake-up (at most one waits) that a wait takes, so a
wait returns at once after games were queued and blocks again once that is taken, however
many games wait; times are kept in milliseconds (:mod:`.kept`) and documents as the
JSON bytes their codecs write (so a fast test reads back what Redis would give); the
boards' ties come in reverse handle order."""

from __future__ import annotations

import threading

from ..accounts import folded
from ..documents import dumps, loads
from ..ratings import HistoryPoint, RatingResult, RatingStore, SetAside, StoredRating
from .kept import ms

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
        self._computed: dict[str, bytes] = {}
        self._ratings: dict[str, dict[str, bytes]] = {}  # handle folded -> preset -> rating
        self._rated: dict[str, set[str]] = {}
        self._history: dict[tuple[str, str], list[bytes]] = {}
        self._boards: dict[tuple[str, bool], dict[str, float]] = {}
        self._aside: dict[str, bytes] = {}
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

    def compute_once(self, game_id: str, result: RatingResult) -> RatingResult:
        with self._lock:
            stored = self._computed.setdefault(game_id, dumps(result))
        return loads(RatingResult.from_json, stored)

    def computed(self, game_id: str) -> RatingResult | None:
        with self._lock:
            stored = self._computed.get(game_id)
        return None if stored is None else loads(RatingResult.from_json, stored)

    def done(self, game_id: str, now: float) -> None:
        with self._lock:
            self._queue.pop(game_id, None)
            self._computed.pop(game_id, None)
            self._done[game_id] = ms(now)
            self._done = {g: at for g, at in self._done.items() if at > ms(now) - _DAY_MS}

    def set_aside(self, game_id: str, why: str, now: float) -> None:
        with self._lock:
            self._queue.pop(game_id, None)  # its computation stays: a retry applies it
            self._aside[game_id] = dumps(SetAside(why, now))

    def aside(self) -> dict[str, SetAside]:
        with self._lock:
            return {g: loads(SetAside.from_json, b) for g, b in self._aside.items()}

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

    def ratings(self, handle: str) -> dict[str, StoredRating]:
        with self._lock:
            stored = dict(self._ratings.get(folded(handle), {}))
        return {p: loads(StoredRating.from_json, b) for p, b in stored.items()}

    def apply(self, handle: str, preset: str, game_id: str, rating: StoredRating,
              point: HistoryPoint) -> bool:
        with self._lock:
            rated = self._rated.setdefault(folded(handle), set())
            if game_id in rated:
                return False
            rated.add(game_id)
            self._ratings.setdefault(folded(handle), {})[preset] = dumps(rating)
            self._history.setdefault((folded(handle), preset), []).append(dumps(point))
            return True

    def history(self, handle: str, preset: str, start: int, count: int) -> list[HistoryPoint]:
        with self._lock:
            points = self._history.get((folded(handle), preset), [])[start:start + count]
        return [loads(HistoryPoint.from_json, p) for p in points]

    def latest(self, handle: str, preset: str, count: int) -> list[HistoryPoint]:
        with self._lock:
            points = self._history.get((folded(handle), preset), [])[-count:]
        return [loads(HistoryPoint.from_json, p) for p in points]

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
