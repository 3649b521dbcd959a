"""The service layer between HTTP and the engine: games, seats, tokens, idempotent actions,
the service's own moves, waiting.

Functions of plain values over the stores (a :class:`~service.storage.Stores`, or the one
store of it a function needs); nothing here knows Flask, so they are tested on the
in-memory stores (``tests/play``). Every change of a game goes through
:func:`.commit.commit`; reads (:mod:`.waits`, :mod:`.streams`, views, records) never
write.
"""

from .account_stream import (
    check_note_cursor,
    issue_account_ticket,
    note_messages,
    redeem_account_ticket,
)
from .accounts import (
    CHALLENGES_FROM,
    HANDLE_PATTERN,
    RESERVED,
    close_account,
    create_account,
    profile,
    rotate_key,
    update_settings,
)
from .commit import Change, Committed, Step, commit, next_visit, with_clock
from .credentials import (
    account_credential,
    authenticate,
    hash_token,
    identify,
    new_key,
)
from .errors import (
    AlreadySeatedError,
    AuthError,
    GameBusyError,
    GameNotFinishedError,
    HandleTakenError,
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
    UnknownAccountError,
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
    may_act,
    seat_of,
)
from .loads import LoadLimit, admit_bot_game, bot_game_weight
from .lobby import MAX_PAGE, PRUNE_GRACE_SECONDS, LobbyPage, lobby_page, prune_listing
from .moves import LEASE_SECONDS, due, service_move, visit
from .mygames import my_games
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
    "CHALLENGES_FROM",
    "END_RETRY_MS",
    "HANDLE_PATTERN",
    "LEASE_SECONDS",
    "MAX_PAGE",
    "PRUNE_GRACE_SECONDS",
    "RESERVED",
    "TICKET_TTL_SECONDS",
    "ActionResult",
    "AlreadySeatedError",
    "AuthError",
    "Change",
    "Committed",
    "GameBusyError",
    "GameNotFinishedError",
    "HandleTakenError",
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
    "UnknownAccountError",
    "UnknownSeatError",
    "UnknownSeekError",
    "VersionNotRecordedError",
    "account_credential",
    "act",
    "admit_bot_game",
    "ask_for_rematch",
    "authenticate",
    "bot_game_weight",
    "cancel_seek",
    "changed_from",
    "check_cursor",
    "check_note_cursor",
    "claim_seat",
    "close_account",
    "commit",
    "create_account",
    "create_game",
    "due",
    "etag",
    "events_when",
    "game_record",
    "game_view",
    "game_view_bytes",
    "hash_token",
    "identify",
    "issue_account_ticket",
    "issue_ticket",
    "lobby_page",
    "may_act",
    "my_games",
    "new_key",
    "next_visit",
    "note_messages",
    "on_turn",
    "open_seek",
    "profile",
    "prune_listing",
    "redeem_account_ticket",
    "redeem_ticket",
    "rotate_key",
    "seat_of",
    "seek_status",
    "service_move",
    "stream_messages",
    "update_settings",
    "view_at",
    "view_when",
    "visit",
    "wait_for_match",
    "with_clock",
]
