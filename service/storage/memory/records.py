"""The in-memory :class:`~service.storage.records.RecordStore`: reads the records the
memory game store's finishing saves keep (:mod:`.shared`)."""

from __future__ import annotations

from collections.abc import Sequence

from ..records import RecordStore
from .shared import Shared

__all__ = ["MemoryRecords"]


class MemoryRecords(RecordStore):
    """Records of the games in ``shared`` (kept forever: no TTLs in memory)."""

    def __init__(self, shared: Shared) -> None:
        self._shared = shared

    def load_record(self, game_id: str) -> bytes | None:
        with self._shared.lock:
            return self._shared.records.get(game_id)

    def load_records(self, game_ids: Sequence[str]) -> list[bytes | None]:
        with self._shared.lock:
            return [self._shared.records.get(game_id) for game_id in game_ids]
