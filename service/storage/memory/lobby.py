"""The in-memory :class:`~service.storage.lobby.LobbyStore`: each listing a dict of game id
to created time, under a lock of its own (no other store writes it); times in
milliseconds, as Redis keeps them (:mod:`.kept`), so games created in one millisecond
page in the same order (reverse id order)."""

from __future__ import annotations

import threading

from ..lobby import LISTINGS, LobbyStore
from .kept import ms

__all__ = ["MemoryLobby"]


class MemoryLobby(LobbyStore):
    """The listings in dicts. No trimming of old open games: there are no TTLs in memory."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listings: dict[str, dict[str, int]] = {name: {} for name in LISTINGS}  # ms

    def list_game(self, game_id: str, listing: str, created: float) -> None:
        with self._lock:
            self._listings[listing][game_id] = ms(created)

    def relist_game(self, game_id: str, listing: str, to: str | None) -> None:
        with self._lock:
            created = self._listings[listing].pop(game_id, None)
            if created is not None and to is not None:
                self._listings[to][game_id] = created

    def listed(self, listing: str, before: tuple[float, str] | None,
               count: int) -> list[tuple[str, float]]:
        cursor = None if before is None else (ms(before[0]), before[1])
        with self._lock:
            rows = sorted(((c, g) for g, c in self._listings[listing].items()), reverse=True)
        return [(g, c / 1000) for c, g in rows if cursor is None or (c, g) < cursor][:count]
