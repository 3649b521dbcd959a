"""The in-memory :class:`~service.storage.schedule.Schedule`: a dict of key (a game id, an
account) to its planned visit under one condition variable (planning, taking and releasing are each one
step under it; a plan that brings a visit forward notifies one waiter)."""

from __future__ import annotations

import threading

from ..schedule import Lease, Schedule

__all__ = ["MemorySchedule"]


class MemorySchedule(Schedule):
    """The planned visits in a dict."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._visits: dict[str, float] = {}
        self._wakes = 0

    def plan(self, key: str, at: float) -> bool:
        with self._cond:
            if key in self._visits and self._visits[key] <= at:
                return False
            self._visits[key] = at
            self._wakes += 1
            self._cond.notify()
            return True

    def take(self, now: float, lease_seconds: float) -> Lease | None:
        with self._cond:
            due = [(at, g) for g, at in self._visits.items() if at <= now]
            if not due:
                return None
            at, key = min(due)
            until = now + lease_seconds
            self._visits[key] = until
            return Lease(key, until, at)

    def release(self, lease: Lease, at: float | None, wake: bool = False) -> bool:
        with self._cond:
            if self._visits.get(lease.key) != lease.until:
                return False
            if at is None:
                del self._visits[lease.key]
            else:
                self._visits[lease.key] = at
                if wake:
                    self._wakes += 1
                    self._cond.notify()
            return True

    def wait(self, timeout: float) -> bool:
        with self._cond:
            if not self._wakes:
                self._cond.wait(timeout)
            if self._wakes:
                self._wakes -= 1
                return True
            return False

    def visits_due(self, now: float) -> tuple[int, float | None]:
        with self._cond:
            times = list(self._visits.values())
        return sum(1 for at in times if at <= now), min(times, default=None)
