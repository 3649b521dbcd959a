"""The in-memory :class:`~service.storage.mistakes.MistakeStore`, for fast tests of the
service layer: the same order, replacement and bound as Redis's sorted set and hash."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..accounts import folded
from ..mistakes import MISTAKES_KEPT, FiledMistake, MistakeStore, mistake_member

__all__ = ["MemoryMistakes"]


@dataclass
class MemoryMistakes(MistakeStore):
    """Each account's entries (by its folded handle), by name."""

    kept: int = MISTAKES_KEPT
    _entries: dict[str, dict[str, FiledMistake]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def file(self, handle: str, game_id: str, ended_ms: int,
             bodies: Sequence[Mapping[str, Any]]) -> None:
        with self._lock:
            mine = self._entries.setdefault(folded(handle), {})
            for member in [m for m, e in mine.items() if e.body["game_id"] == game_id]:
                del mine[member]
            for body in bodies:
                member = mistake_member(game_id, body["version"])
                mine[member] = FiledMistake(ended_ms, member, dict(body))
            excess = len(mine) - self.kept
            if excess > 0:
                for old in sorted(mine.values(), key=lambda e: e.position)[:excess]:
                    del mine[old.member]

    def page(self, handle: str, since_ms: int | None, min_regret: float,
             after: tuple[int, str] | None, limit: int) -> list[FiledMistake]:
        with self._lock:
            mine = list(self._entries.get(folded(handle), {}).values())
        mine.sort(key=lambda e: e.position, reverse=True)
        return [e for e in mine
                if (since_ms is None or e.ended_ms >= since_ms)
                and (after is None or e.position < after)
                and e.body["regret"] >= min_regret][:limit]

    def one(self, handle: str, game_id: str, version: int) -> FiledMistake | None:
        with self._lock:
            return self._entries.get(folded(handle), {}).get(mistake_member(game_id, version))
