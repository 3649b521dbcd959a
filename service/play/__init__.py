"""The service layer between HTTP and the engine: games, seats, tokens, idempotent actions.

Functions of plain values over a :class:`~service.storage.GameStore`; nothing here
knows Flask, so they are tested on the in-memory store (``tests/play``).
"""

from .errors import (
    AuthError,
    GameBusyError,
    IdempotencyKeyReusedError,
    PlayError,
    PreconditionFailedError,
    SeatsOpenError,
    SeatTakenError,
    UnknownSeatError,
)
from .games import (
    ActionResult,
    act,
    claim_seat,
    create_game,
    etag,
    hash_token,
    may_act,
    seat_of,
)
from .views import game_view, game_view_bytes
from .waits import changed_from, events_when, on_turn, view_when

__all__ = [
    "ActionResult",
    "AuthError",
    "GameBusyError",
    "IdempotencyKeyReusedError",
    "PlayError",
    "PreconditionFailedError",
    "SeatTakenError",
    "SeatsOpenError",
    "UnknownSeatError",
    "act",
    "changed_from",
    "claim_seat",
    "create_game",
    "etag",
    "events_when",
    "game_view",
    "game_view_bytes",
    "hash_token",
    "may_act",
    "on_turn",
    "seat_of",
    "view_when",
]
