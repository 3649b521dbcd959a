"""The in-memory :class:`~service.storage.webhooks.WebhookQueue`: each account's waiting
deliveries in a dict (in the order they were queued), under a lock of its own; their
times in milliseconds, as Redis keeps them (:mod:`.kept`), so deliveries of one
millisecond are ordered and dropped as there (by event id)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace

from ..accounts import folded
from ..webhooks import Delivery, WebhookQueue
from .kept import to_ms

__all__ = ["MemoryWebhooks"]


class MemoryWebhooks(WebhookQueue):
    """Per folded handle, its deliveries by event id."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._lock = threading.Lock()
        self._queues: dict[str, dict[str, Delivery]] = {}
        self._holds: dict[str, tuple[str, float]] = {}

    def push(self, handle: str, deliveries: Sequence[Delivery]) -> tuple[int, int]:
        with self._lock:
            queue = self._queues.setdefault(folded(handle), {})
            added = 0
            for delivery in deliveries:
                if delivery.event_id not in queue:
                    queue[delivery.event_id] = replace(delivery, queued=to_ms(delivery.queued),
                                                       due=to_ms(delivery.due))
                    added += 1
            oldest = sorted(queue.values(), key=lambda d: (d.queued, d.event_id))
            dropped = oldest[:max(0, len(queue) - self.cap)]
            for delivery in dropped:
                del queue[delivery.event_id]
            return added, len(dropped)

    def _first(self, handle: str) -> Delivery | None:
        queue = self._queues.get(folded(handle), {})
        return min(queue.values(), key=lambda d: (d.due, d.event_id), default=None)

    def head(self, handle: str) -> Delivery | None:
        with self._lock:
            return self._first(handle)

    def done(self, handle: str, event_id: str) -> float | None:
        with self._lock:
            self._queues.get(folded(handle), {}).pop(event_id, None)
            first = self._first(handle)
            return None if first is None else first.due

    def retry(self, handle: str, event_id: str, attempts: int, at: float) -> float | None:
        with self._lock:
            queue = self._queues.get(folded(handle), {})
            if event_id in queue:
                queue[event_id] = replace(queue[event_id], attempts=attempts, due=to_ms(at))
            first = self._first(handle)
            return None if first is None else first.due

    def hold(self, handle: str, holder: str, now: float, until: float) -> float | None:
        with self._lock:
            other = self._holds.get(folded(handle))
            if other is not None and other[1] > now:
                return other[1]
            self._holds[folded(handle)] = (holder, until)
            return None

    def unhold(self, handle: str, holder: str) -> None:
        with self._lock:
            if self._holds.get(folded(handle), ("", 0.0))[0] == holder:
                del self._holds[folded(handle)]

    def clear(self, handle: str) -> int:
        with self._lock:
            return len(self._queues.pop(folded(handle), {}))
