"""The in-memory :class:`~service.storage.tickets.TicketStore`: tickets with their expiry on
the monotonic clock, under a lock of its own."""

from __future__ import annotations

import threading
import time

from ..tickets import TicketStore

__all__ = ["MemoryTickets"]


class MemoryTickets(TicketStore):
    """Tickets in a dict of (game id, ticket hash) to (value, expiry)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tickets: dict[tuple[str, str], tuple[str, float]] = {}

    def put_ticket(self, game_id: str, ticket_hash: str, value: str, ttl_seconds: int) -> bool:
        with self._lock:
            key = (game_id, ticket_hash)
            held = self._tickets.get(key)
            if held is not None and held[1] > time.monotonic():
                return False
            self._tickets[key] = (value, time.monotonic() + ttl_seconds)
            return True

    def take_ticket(self, game_id: str, ticket_hash: str) -> str | None:
        with self._lock:
            held = self._tickets.pop((game_id, ticket_hash), None)
            if held is None or held[1] <= time.monotonic():
                return None
            return held[0]
