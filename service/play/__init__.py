"""The service layer between HTTP and the engine: games, seats, tokens, idempotent actions,
the service's own moves, waiting.

Functions of plain values over the stores (a :class:`~service.storage.Stores`, or the one
store of it a function needs); nothing here knows Flask, so they are tested on the
in-memory stores (``tests/play``). Every change of a game goes through
:func:`.commit.commit`; reads (:mod:`.waits`, :mod:`.streams`, views, records) never
write.

This package's public face is what the layers above it use: the HTTP layer
(``service/api``) and the workers (``service/workers``) import from here and from no
module of it, and every name here is used by one of them (``tests/play/test_facade.py``).
The rest (each error class, the commit's steps, the admission's paths) is imported from
its own module, as this layer's tests do.
"""

from .account_stream import PAGE as NOTES_PAGE
from .account_stream import (
    check_note_cursor,
    issue_account_ticket,
    note_message,
    note_messages,
    redeem_account_ticket,
)
from .accounts import (
    CHALLENGES_FROM,
    HANDLE_PATTERN,
    close_account,
    create_account,
    profile,
    rotate_key,
    update_settings,
)
from .admission import agreed_by_key
from .analyses import STALE_SECONDS, analysis_of, request_analysis, requester_of, run_next
from .challenges import (
    CHALLENGE_DEFAULT_SECONDS,
    CHALLENGE_MAX_SECONDS,
    CHALLENGE_TURN_SECONDS,
    MAX_TURN_SECONDS,
    accept_challenge,
    cancel_challenge,
    challenge_json,
    decline_challenge,
    my_challenges,
    open_challenge,
    read_challenge,
)
from .credentials import (
    ACCOUNT_PREFIX,
    account_credential,
    authenticate,
    hash_token,
    identify,
    is_account_key,
)
from .deliveries import deliver, lease_seconds
from .errors import AuthError, NotYourAccountError, PlayError, UnknownMistakeError, UnknownSeatError
from .evaluations import (
    DEFAULT_DEALS,
    MAX_DEALS,
    MIN_DEALS,
    evaluation_json,
    read_evaluation,
    start_evaluation,
)
from .export import ExportQuery, export_records
from .games import act, claim_seat, create_game, etag, may_act, seat_of
from .jobs import visit
from .ladder import join_ladder, ladder_view, leave_ladder
from .loads import LoadLimit
from .lobby import MAX_PAGE, lobby_page, prune_listing
from .mistakes import MISTAKE_FLOOR, answer_mistake, my_mistakes
from .moves import LEASE_SECONDS
from .mygames import my_games
from .ratings import board, history, rate_next, retry_set_aside
from .records import game_record, view_at
from .rematch import ask_for_rematch
from .seek_holds import LOOK_SECONDS, StreamHolds, new_holder
from .seeks import (
    MADE_LOOK_SECONDS,
    SEEK_TURN_SECONDS,
    Seek,
    cancel_seek,
    look_at_seek,
    open_seek,
    seek_pool,
    seek_status,
    stream_holds,
    wait_for_match,
)
from .streams import (
    END_RETRY_MS,
    STREAM_PAGE,
    TICKET_TTL_SECONDS,
    Message,
    check_cursor,
    end_message,
    issue_ticket,
    redeem_ticket,
    stream_messages,
)
from .tournaments import (
    MAX_ENTRANTS,
    MAX_ROUNDS,
    create_tournament,
    join_tournament,
    leave_tournament,
    read_tournament,
    start_tournament,
    tournament_json,
    tournaments_page,
)
from .views import MAX_EVENTS, events_page_bytes, game_view, game_view_bytes
from .waits import changed_from, events_when, on_turn, view_when
from .webhooks import WEBHOOK_TYPES, rotate_webhook_secret, set_webhook

__all__ = [
    "ACCOUNT_PREFIX",
    "CHALLENGES_FROM",
    "CHALLENGE_DEFAULT_SECONDS",
    "CHALLENGE_MAX_SECONDS",
    "CHALLENGE_TURN_SECONDS",
    "DEFAULT_DEALS",
    "END_RETRY_MS",
    "HANDLE_PATTERN",
    "LEASE_SECONDS",
    "LOOK_SECONDS",
    "MADE_LOOK_SECONDS",
    "MAX_DEALS",
    "MAX_ENTRANTS",
    "MAX_EVENTS",
    "MAX_PAGE",
    "MAX_ROUNDS",
    "MAX_TURN_SECONDS",
    "MIN_DEALS",
    "MISTAKE_FLOOR",
    "NOTES_PAGE",
    "SEEK_TURN_SECONDS",
    "STALE_SECONDS",
    "STREAM_PAGE",
    "TICKET_TTL_SECONDS",
    "WEBHOOK_TYPES",
    "AuthError",
    "ExportQuery",
    "LoadLimit",
    "Message",
    "NotYourAccountError",
    "PlayError",
    "Seek",
    "StreamHolds",
    "UnknownMistakeError",
    "UnknownSeatError",
    "accept_challenge",
    "account_credential",
    "act",
    "agreed_by_key",
    "analysis_of",
    "answer_mistake",
    "ask_for_rematch",
    "authenticate",
    "board",
    "cancel_challenge",
    "cancel_seek",
    "challenge_json",
    "changed_from",
    "check_cursor",
    "check_note_cursor",
    "claim_seat",
    "close_account",
    "create_account",
    "create_game",
    "create_tournament",
    "decline_challenge",
    "deliver",
    "end_message",
    "etag",
    "evaluation_json",
    "events_page_bytes",
    "events_when",
    "export_records",
    "game_record",
    "game_view",
    "game_view_bytes",
    "hash_token",
    "history",
    "identify",
    "is_account_key",
    "issue_account_ticket",
    "issue_ticket",
    "join_ladder",
    "join_tournament",
    "ladder_view",
    "lease_seconds",
    "leave_ladder",
    "leave_tournament",
    "lobby_page",
    "look_at_seek",
    "may_act",
    "my_challenges",
    "my_games",
    "my_mistakes",
    "new_holder",
    "note_message",
    "note_messages",
    "on_turn",
    "open_challenge",
    "open_seek",
    "profile",
    "prune_listing",
    "rate_next",
    "read_challenge",
    "read_evaluation",
    "read_tournament",
    "redeem_account_ticket",
    "redeem_ticket",
    "request_analysis",
    "requester_of",
    "retry_set_aside",
    "rotate_key",
    "rotate_webhook_secret",
    "run_next",
    "seat_of",
    "seek_pool",
    "seek_status",
    "set_webhook",
    "start_evaluation",
    "start_tournament",
    "stream_holds",
    "stream_messages",
    "tournament_json",
    "tournaments_page",
    "update_settings",
    "view_at",
    "view_when",
    "visit",
    "wait_for_match",
]
