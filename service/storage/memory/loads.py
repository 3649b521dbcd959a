"""The in-memory :class:`~service.storage.loads.LoadStore`: a dict per client under a lock
(expiry is not kept: a test's process is short)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from ..loads import LoadStore

__all__ = ["MemoryLoads"]


class MemoryLoads(LoadStore):
    """The loads in a dict."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[str, dict[str, tuple[float, float]]] = {}

    def held(self, client: str) -> dict[str, tuple[float, float]]:
        with self._lock:
            return dict(self._held.get(client, {}))

    def admit(self, client: str, game_id: str, weight: float, cap: float,
              drop: Sequence[str], ttl_seconds: int, now: float) -> float | None:
        with self._lock:
            games = self._held.setdefault(client, {})
            for gone in drop:
                games.pop(gone, None)
            total = sum(w for w, _ in games.values())
            if total + weight > cap:
                return total
            games[game_id] = (weight, now)
            return None
