"""The in-memory :class:`~service.storage.analyses.AnalysisStore`, for fast tests of the
service layer: the same promises as Redis's stream and hashes, in one process, without
TTLs; the same fairness (each requester's head in the queue, the rest behind it)."""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from service.config import Config

from ..accounts import folded
from ..analyses import (
    QUOTA_WINDOW_SECONDS,
    AnalysisState,
    AnalysisStore,
    QueuedAnalysis,
    QueueFullError,
)
from .shared import Shared

__all__ = ["MemoryAnalyses"]


@dataclass
class _Entry:
    game_id: str
    requester: str = ""
    worker: str | None = None
    taken_at: float = 0.0


@dataclass
class _State:
    status: str
    progress: float = 0.0
    result: bytes | None = None
    worker: str | None = None
    beat: float = 0.0


@dataclass
class MemoryAnalyses(AnalysisStore):
    """Analyses and their queue in this process; a change of an analysis' status or
    progress wakes its game's watches (``shared``), as a move does."""

    shared: Shared = field(default_factory=Shared)
    auto_per_day: int = Config().analysis_auto_per_day
    max_queued: int = Config().analysis_queue_max
    _states: dict[str, _State] = field(default_factory=dict)
    _queue: dict[str, _Entry] = field(default_factory=dict)
    #: each requester's entry in the queue (waiting or taken), and its requests behind it
    _heads: dict[str, str] = field(default_factory=dict)
    _behind: dict[str, deque[str]] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=itertools.count)
    _lock: threading.Condition = field(default_factory=threading.Condition)
    #: each account's automatic analyses: game id -> when counted
    _charged: dict[str, dict[str, float]] = field(default_factory=dict)

    def load(self, game_id: str) -> AnalysisState | None:
        with self._lock:
            s = self._states.get(game_id)
            return None if s is None else AnalysisState(s.status, s.progress, s.result)

    def request(self, game_id: str, now: float, max_queued: int, requester: str,
                ) -> AnalysisState | None:
        with self._lock:
            if (s := self._states.get(game_id)) is not None:
                return AnalysisState(s.status, s.progress, s.result)
            if self._count() >= max_queued:
                raise QueueFullError
            behind = self._behind.setdefault(requester, deque())
            behind.append(game_id)
            if self._heads.get(requester) not in self._queue:
                # no head (or one gone from the queue untaken): the first waiting leads
                self._add(behind.popleft(), requester)
            if not behind:
                del self._behind[requester]
            self._states[game_id] = _State("queued")
            self._lock.notify_all()
            return None

    def _add(self, game_id: str, requester: str) -> None:
        """A new entry at the back of the queue, its requester's head (lock held)."""
        entry = f"{next(self._ids)}-0"
        self._queue[entry] = _Entry(game_id, requester)
        self._heads[requester] = entry

    def _promote(self, entry: str, requester: str) -> None:
        """``entry`` is done with: if it was its requester's head, the next of its requests
        joins the queue (lock held; a second ack of it changes nothing)."""
        if self._heads.get(requester) != entry:
            return
        behind = self._behind.get(requester)
        if behind:
            self._add(behind.popleft(), requester)
            if not behind:
                del self._behind[requester]
        else:
            del self._heads[requester]

    def _count(self) -> int:
        return len(self._queue) + sum(len(b) for b in self._behind.values())

    def take(self, worker: str, block_seconds: float, stale_seconds: float,
             ) -> QueuedAnalysis | None:
        deadline = time.monotonic() + block_seconds
        with self._lock:
            while True:
                now = time.monotonic()
                free = next((k for k, e in self._queue.items()
                             if e.worker is None or now - e.taken_at >= stale_seconds), None)
                if free is not None:
                    e = self._queue[free]
                    e.worker, e.taken_at = worker, now
                    return QueuedAnalysis(free, e.game_id, e.requester)
                if now >= deadline:
                    return None
                self._lock.wait(deadline - now)

    def start(self, game_id: str, worker: str, now: float, stale_seconds: float) -> bool:
        with self._lock:
            s = self._states.setdefault(game_id, _State("queued"))
            if s.status == "done" or (s.status == "running" and s.worker != worker
                                      and now - s.beat < stale_seconds):
                return False
            s.status, s.progress, s.worker, s.beat = "running", 0.0, worker, now
        self._announce(game_id)
        return True

    def progress(self, game_id: str, fraction: float, now: float) -> None:
        with self._lock:
            if (s := self._states.get(game_id)) is None:
                return  # as on Redis: nothing kept, nobody told
            s.progress, s.beat = round(fraction, 4), now
        self._announce(game_id)

    def finish(self, game_id: str, result: bytes) -> None:
        with self._lock:
            if (s := self._states.get(game_id)) is None:
                return
            s.status, s.progress, s.result, s.worker = "done", 1.0, result, None
        self._announce(game_id)

    def _announce(self, game_id: str) -> None:
        with self.shared.lock:
            self.shared.announce(game_id)

    def drop(self, game_id: str) -> None:
        with self._lock:
            self._states.pop(game_id, None)

    def ack(self, taken: QueuedAnalysis) -> None:
        with self._lock:
            if self._queue.pop(taken.entry, None) is not None:
                self._promote(taken.entry, taken.requester)
                self._lock.notify_all()

    def charge(self, handle: str, game_id: str, now: float) -> bool:
        with self._lock:
            games = self._recent(handle, now)
            if game_id in games:
                return True
            if len(games) >= self.auto_per_day:
                return False
            games[game_id] = now
            return True

    def refund(self, handle: str, game_id: str) -> None:
        with self._lock:
            self._charged.get(folded(handle), {}).pop(game_id, None)

    def charged(self, handle: str, now: float) -> int:
        with self._lock:
            return len(self._recent(handle, now))

    def _recent(self, handle: str, now: float) -> dict[str, float]:
        """The account's counted games, those older than the window dropped (lock held)."""
        games = self._charged.setdefault(folded(handle), {})
        for game_id in [g for g, at in games.items() if at <= now - QUOTA_WINDOW_SECONDS]:
            del games[game_id]
        return games

    def queued(self) -> int:
        with self._lock:
            return self._count()
