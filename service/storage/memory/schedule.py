"""The in-memory :class:`~service.storage.schedule.Schedule`: a dict of game id to its
planned visit, under a lock of its own (taking and leasing are one step under it)."""

from __future__ import annotations

import threading

from ..schedule import Schedule

__all__ = ["MemorySchedule"]


class MemorySchedule(Schedule):
    """The planned visits in a dict."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._visits: dict[str, float] = {}

    def plan_visit(self, game_id: str, at: float) -> None:
        with self._lock:
            self._visits[game_id] = at

    def take_visits(self, now: float, count: int, lease_seconds: float) -> list[str]:
        with self._lock:
            due = sorted((at, g) for g, at in self._visits.items() if at <= now)[:count]
            for _, game_id in due:
                self._visits[game_id] = now + lease_seconds
            return [g for _, g in due]

    def drop_visit(self, game_id: str) -> None:
        with self._lock:
            self._visits.pop(game_id, None)

    def visits_due(self, now: float) -> tuple[int, float | None]:
        with self._lock:
            times = list(self._visits.values())
        return sum(1 for at in times if at <= now), min(times, default=None)
