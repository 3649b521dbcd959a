"""Stream tickets: single-use secrets that open one stream as a seat.

Why a store of their own: a browser's ``EventSource`` cannot send ``Authorization``, so a
seat trades its token for a short-lived ticket (``service/play/streams.py``). A ticket is
kept under the sha256 of its secret only, and taken in the same step as it is read, so
it opens one stream at most.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

__all__ = ["TicketStore"]


class TicketStore(ABC):
    """Tickets by game and the hash of their secret, each with its own short TTL."""

    @abstractmethod
    def put_ticket(self, game_id: str, ticket_hash: str, value: str, ttl_seconds: int) -> bool:
        """Store a single-use ticket of ``game_id`` under the sha256 of its secret for
        ``ttl_seconds``; ``False`` (nothing written) if that hash is already stored."""

    @abstractmethod
    def take_ticket(self, game_id: str, ticket_hash: str) -> str | None:
        """The value of a ticket, removed in the same step (so it serves once); ``None``
        if there is none (never issued, used, or expired)."""
