"""The in-memory :class:`~service.storage.schedule.Schedule`: per lane, a dict of key (a game
id, an account) to its planned visit, all under one condition variable (planning, taking
and releasing are each one step under it; a plan that brings a visit forward wakes the
waiters, and one of those serving its lane takes the wake-up).

As on Redis: visits in whole milliseconds (:mod:`.kept`), so a lease's end compares as
there and visits due in one millisecond are taken in the same order (the first lane
asked for, then by key), and at most :data:`~service.storage.schedule.WAKES_KEPT`
wake-ups a lane wait for a worker.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from ..schedule import LANES, LIGHT, WAKES_KEPT, Lease, Schedule
from .kept import ms

__all__ = ["MemorySchedule"]


class MemorySchedule(Schedule):
    """The planned visits in a dict per lane (Unix ms)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._visits: dict[str, dict[str, int]] = {lane: {} for lane in LANES}
        self._wakes = dict.fromkeys(LANES, 0)

    def _wake(self, lane: str) -> None:
        self._wakes[lane] = min(self._wakes[lane] + 1, WAKES_KEPT)
        self._cond.notify_all()

    def plan(self, key: str, at: float, lane: str = LIGHT) -> bool:
        with self._cond:
            visits = self._visits[lane]
            if key in visits and visits[key] <= ms(at):
                return False
            visits[key] = ms(at)
            self._wake(lane)
            return True

    def take(self, now: float, lease_seconds: float,
             lanes: Sequence[str] = LANES) -> Lease | None:
        with self._cond:
            due = [(at, i, key) for i, lane in enumerate(lanes)
                   for key, at in self._visits[lane].items() if at <= ms(now)]
            if not due:
                return None
            at, i, key = min(due)
            until = ms(now + lease_seconds)
            self._visits[lanes[i]][key] = until
            return Lease(key, until / 1000, at / 1000, lanes[i])

    def release(self, lease: Lease, at: float | None, wake: bool = False) -> bool:
        with self._cond:
            visits = self._visits[lease.lane]
            if visits.get(lease.key) != ms(lease.until):
                return False
            if at is None:
                del visits[lease.key]
            else:
                visits[lease.key] = ms(at)
                if wake:
                    self._wake(lease.lane)
            return True

    def wait(self, timeout: float, lanes: Sequence[str] = LANES) -> bool:
        with self._cond:
            if not any(self._wakes[lane] for lane in lanes):
                self._cond.wait_for(lambda: any(self._wakes[lane] for lane in lanes), timeout)
            for lane in lanes:
                if self._wakes[lane]:
                    self._wakes[lane] -= 1
                    return True
            return False

    def visits_due(self, now: float, lanes: Sequence[str] = LANES
                   ) -> tuple[int, float | None]:
        with self._cond:
            times = [at for lane in lanes for at in self._visits[lane].values()]
        earliest = min(times, default=None)
        return (sum(1 for at in times if at <= ms(now)),
                None if earliest is None else earliest / 1000)
