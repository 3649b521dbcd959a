"""The service layer between HTTP and the engine: games, seats, tokens, idempotent actions.

Functions of plain values over the stores (a :class:`~service.storage.Stores`, or the one
store of it a function needs); nothing here knows Flask, so they are tested on the
in-memory stores (``tests/play``).
"""

from .autoplay import catch_up, decide, due, play_due
from .errors import (
    AuthError,
    GameBusyError,
    GameNotFinishedError,
    IdempotencyKeyReusedError,
    IdempotencyKeySupersededError,
    InvalidCursorError,
    PlayError,
    PreconditionFailedError,
    SeatsOpenError,
    SeatTakenError,
    SeekMatchedError,
    UnknownSeatError,
    UnknownSeekError,
    VersionNotRecordedError,
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
from .lobby import MAX_PAGE, PRUNE_GRACE_SECONDS, LobbyPage, lobby_page, prune_listing
from .records import game_record, view_at
from .rematch import ask_for_rematch
from .seeks import Seek, cancel_seek, open_seek, seek_status, wait_for_match
from .streams import (
    END_RETRY_MS,
    TICKET_TTL_SECONDS,
    Message,
    check_cursor,
    issue_ticket,
    redeem_ticket,
    stream_messages,
)
from .sweep import play_due_apart
from .views import game_view, game_view_bytes
from .waits import changed_from, events_when, on_turn, view_when

__all__ = [
    "END_RETRY_MS",
    "MAX_PAGE",
    "PRUNE_GRACE_SECONDS",
    "TICKET_TTL_SECONDS",
    "ActionResult",
    "AuthError",
    "GameBusyError",
    "GameNotFinishedError",
    "IdempotencyKeyReusedError",
    "IdempotencyKeySupersededError",
    "InvalidCursorError",
    "LobbyPage",
    "Message",
    "PlayError",
    "PreconditionFailedError",
    "SeatTakenError",
    "SeatsOpenError",
    "Seek",
    "SeekMatchedError",
    "UnknownSeatError",
    "UnknownSeekError",
    "VersionNotRecordedError",
    "act",
    "ask_for_rematch",
    "cancel_seek",
    "catch_up",
    "changed_from",
    "check_cursor",
    "claim_seat",
    "create_game",
    "decide",
    "due",
    "etag",
    "events_when",
    "game_record",
    "game_view",
    "game_view_bytes",
    "hash_token",
    "issue_ticket",
    "lobby_page",
    "may_act",
    "on_turn",
    "open_seek",
    "play_due",
    "play_due_apart",
    "prune_listing",
    "redeem_ticket",
    "seat_of",
    "seek_status",
    "stream_messages",
    "view_at",
    "view_when",
    "wait_for_match",
]
