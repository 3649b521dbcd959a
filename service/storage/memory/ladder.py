"""The in-memory :class:`~service.storage.ladder.LadderStore`: dicts under one lock, the
entries kept as the JSON their codec writes and the rest as JSON keeps it, as on Redis
(:mod:`.kept`)."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from ..documents import dumps, loads
from ..ladder import RECENT_TABLES, LadderEntry, LadderStore
from .kept import as_json

__all__ = ["MemoryLadder"]


class MemoryLadder(LadderStore):
    """Each preset's ladder in dicts."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._members: dict[str, dict[str, bytes]] = {}
        self._playing: dict[str, dict[str, list[str]]] = {}
        self._recent: dict[str, dict[str, list[list[str]]]] = {}

    def join(self, preset: str, handle: str, entry: LadderEntry) -> None:
        with self._lock:
            self._members.setdefault(preset, {})[handle] = dumps(entry)

    def leave(self, preset: str, handle: str) -> bool:
        with self._lock:
            return self._members.get(preset, {}).pop(handle, None) is not None

    def members(self, preset: str) -> dict[str, LadderEntry]:
        with self._lock:
            members = dict(self._members.get(preset, {}))
        return {h: loads(LadderEntry.from_json, entry) for h, entry in members.items()}

    def playing(self, preset: str) -> dict[str, list[str]]:
        with self._lock:
            return as_json(self._playing.get(preset, {}))

    def recent(self, preset: str) -> dict[str, list[list[str]]]:
        with self._lock:
            return as_json(self._recent.get(preset, {}))

    def seat(self, preset: str, game_id: str, handles: Sequence[str]) -> None:
        with self._lock:
            self._playing.setdefault(preset, {})[game_id] = list(handles)
            recent = self._recent.setdefault(preset, {})
            for handle in handles:
                others = [h for h in handles if h != handle]
                recent[handle] = [others, *recent.get(handle, [])][:RECENT_TABLES]

    def ended(self, preset: str, game_ids: Sequence[str]) -> None:
        with self._lock:
            for game_id in game_ids:
                self._playing.get(preset, {}).pop(game_id, None)
