"""Stream tickets in Redis: ``ttt:{<id>}:ticket:<h>``, a ticket's value under the sha256 of
its secret, written with ``SET EX NX`` (its own short TTL) and taken once with ``GETDEL``."""

from __future__ import annotations

from ..tickets import TicketStore
from .connection import RedisConnection

__all__ = ["RedisTickets"]


def _ticket_key(game_id: str, ticket_hash: str) -> str:
    return f"ttt:{{{game_id}}}:ticket:{ticket_hash}"


class RedisTickets(TicketStore):
    """Tickets as plain keys of their game's hash tag."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection

    def put_ticket(self, game_id: str, ticket_hash: str, value: str, ttl_seconds: int) -> bool:
        key, client = _ticket_key(game_id, ticket_hash), self.connection.client
        return bool(self.connection.run(lambda: client.set(key, value, ex=ttl_seconds, nx=True)))

    def take_ticket(self, game_id: str, ticket_hash: str) -> str | None:
        key, client = _ticket_key(game_id, ticket_hash), self.connection.client
        value = self.connection.run(lambda: client.getdel(key))
        return None if value is None else value.decode()
