"""``Memo``: a dict that forgets everything once it holds ``size`` entries.

Why not ``functools.lru_cache``: the service remembers values it computed elsewhere
(a state it just saved, a reply it just stored), which ``lru_cache`` cannot be told;
and keeping LRU order costs bookkeeping on every hit of a hot path. Clearing when
full is O(1) per call, bounded in memory and safe across threads (single dict
operations under the GIL); what is forgotten is simply recomputed.
"""

from __future__ import annotations

from typing import Generic, TypeVar

__all__ = ["Memo"]

K = TypeVar("K")
V = TypeVar("V")


class Memo(Generic[K, V]):
    def __init__(self, size: int) -> None:
        self._entries: dict[K, V] = {}
        self._size = size

    def get(self, key: K) -> V | None:
        return self._entries.get(key)

    def put(self, key: K, value: V) -> None:
        if len(self._entries) >= self._size:
            self._entries.clear()
        self._entries[key] = value
