"""The service layer between HTTP and the engine: games, seats, tokens, idempotent actions,
the service's own moves, waiting.

Functions of plain values over the stores (a :class:`~service.storage.Stores`, or the one
store of it a function needs); nothing here knows Flask, so they are tested on the
in-memory stores (``tests/play``). Every change of a game goes through
:func:`.commit.commit`; reads (:mod:`.waits`, :mod:`.streams`, views, records) never
write.
"""

from .commit import Change, Committed, Step, commit, next_visit, with_clock
from .errors import (
    AuthError,
    GameBusyError,
    GameNotFinishedError,
    IdempotencyKeyReusedError,
    IdempotencyKeySupersededError,
    InvalidCursorError,
    PlayError,
    PreconditionFailedError,
    RecordNotReplayableError,
    SeatsOpenError,
    SeatTakenError,
    SeekMatchedError,
    TooManyBotGamesError,
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
from .loads import LoadLimit, admit_bot_game, bot_game_weight
from .lobby import MAX_PAGE, PRUNE_GRACE_SECONDS, LobbyPage, lobby_page, prune_listing
from .moves import LEASE_SECONDS, due, service_move, visit
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
from .views import game_view, game_view_bytes
from .waits import changed_from, events_when, on_turn, view_when

__all__ = [
    "END_RETRY_MS",
    "LEASE_SECONDS",
    "MAX_PAGE",
    "PRUNE_GRACE_SECONDS",
    "TICKET_TTL_SECONDS",
    "ActionResult",
    "AuthError",
    "Change",
    "Committed",
    "GameBusyError",
    "GameNotFinishedError",
    "IdempotencyKeyReusedError",
    "IdempotencyKeySupersededError",
    "InvalidCursorError",
    "LoadLimit",
    "LobbyPage",
    "Message",
    "PlayError",
    "PreconditionFailedError",
    "RecordNotReplayableError",
    "SeatTakenError",
    "SeatsOpenError",
    "Seek",
    "SeekMatchedError",
    "Step",
    "TooManyBotGamesError",
    "UnknownSeatError",
    "UnknownSeekError",
    "VersionNotRecordedError",
    "act",
    "admit_bot_game",
    "ask_for_rematch",
    "bot_game_weight",
    "cancel_seek",
    "changed_from",
    "check_cursor",
    "claim_seat",
    "commit",
    "create_game",
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
    "next_visit",
    "on_turn",
    "open_seek",
    "prune_listing",
    "redeem_ticket",
    "seat_of",
    "seek_status",
    "service_move",
    "stream_messages",
    "view_at",
    "view_when",
    "visit",
    "wait_for_match",
    "with_clock",
]
