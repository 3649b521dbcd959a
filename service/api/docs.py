"""Documentation helpers: the problem responses and parameters views share.

Every status a view can return is listed on it, and under each status the codes it can
carry (the contract tests hold the service to that: tests/api/test_document_two_way.py),
so these helpers keep the lists short and the wording equal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask_smorest import Blueprint

from .limits import RATE_LIMITED_BLUEPRINTS
from .problems import CODE_STATUSES, PROBLEM_CONTENT_TYPE

F = TypeVar("F", bound=Callable[..., Any])

#: When each code is answered, in a few words: an operation's problem responses list the
#: codes it can return, each with this line (the statuses come from ``CODE_STATUSES``).
WHEN = {
    "already_seated": "your account holds a seat of this game already",
    "bad_request": "the request cannot be read at all",
    "bad_request_line": "the request line is not a method, a target and an HTTP/1 version",
    "bad_header_field": "a header field that is malformed, folded, or contradicts another",
    "expectation_failed": "an `Expect` header other than `100-continue`",
    "header_fields_too_large": "more header fields, or a longer one, than the server reads",
    "request_line_too_long": "a request line (and so its URL) longer than the server reads",
    "unsupported_transfer_coding": "a `Transfer-Encoding` the server does not decode",
    "body_timeout": "the body did not arrive within the server's time (`BODY_READ_SECONDS`)",
    "body_too_large": "the body is larger than the server's limit",
    "challenge_closed": "the challenge is no longer pending (`challenge_status` says why)",
    "challenge_refused": "the account challenged takes no challenges from you",
    "creation_limited": "one more game, rematch, seek or account than this client's "
    "creation limit",
    "handle_taken": "the handle is taken, regardless of case (or reserved)",
    "game_not_finished": "a record, a past version or an analysis of a game still being "
                         "played",
    "evaluation_for_bots": "an evaluation plays your bot: it is for bot accounts",
    "game_aborted": "an analysis of a game that was aborted (it has no result)",
    "analysis_not_requested": "no analysis of this game was asked for (or it expired, or "
                              "was made before its format changed)",
    "unknown_mistake": "a decision that is not among your mistakes (not yours, not "
                       "analysed, of too little regret, or dropped as it grew old)",
    "analysis_busy": "the analysis queue is full (ANALYSIS_QUEUE_MAX): ask again later",
    "http_error": "any other HTTP error",
    "idempotency_key_reused": "the same `Idempotency-Key` with another body",
    "idempotency_key_superseded": "an `Idempotency-Key` older than the seat's latest keyed "
    "request (nothing is applied)",
    "illegal_action": "not allowed now",
    "internal_error": "a bug",
    "invalid_action": "an action body of the wrong shape",
    "invalid_body": "the body does not match the schema (`errors` says where)",
    "invalid_card": "a card that is not written as one",
    "invalid_challenge": "a challenge to yourself, or to a handle twice",
    "invalid_cursor": "a cursor beyond the newest event, one the lobby never gave, or an "
    "export's `after` that is no finished game of the account",
    "invalid_input": "other input the engine refuses",
    "invalid_evaluation": "an evaluation that cannot be made as asked (an unknown preset, "
    "an anchor that is no reference bot or named twice, a deal limit out of range)",
    "invalid_ladder_entry": "a ladder entry's player counts or games at once out of range",
    "invalid_json": "the body is not JSON, or nests too deep",
    "invalid_query": "a query parameter (or `Last-Event-ID`) out of its schema",
    "invalid_seek": "a rated seek without a turn clock",
    "invalid_rules": "an unknown rules option, a value out of range, or rules this table "
    "cannot be dealt with",
    "invalid_webhook_url": "a webhook URL that is not http(s), carries a user name or "
    "password, does not resolve, or whose host is on a non-public address",
    "invalid_tournament": "a tournament that cannot be made or started as asked (an "
    "entrant twice, too many, too few to start, rounds out of range)",
    "invalid_token": "no token, or one of no seat of this game (or not this seek's), or a "
    "key of no open account",
    "ladder_for_bots": "the ladder is for bot accounts",
    "method_not_allowed": "another method than the path's",
    "not_acceptable": "the `Accept` header allows none of the response's media types",
    "not_found": "no such path",
    "unknown_stream": "no open stream of many games has this id (push tier)",
    "too_many_games": "an add that would take a stream of many games past 500 (push tier)",
    "stream_unresponsive": "the push process holding a stream of many games did not "
    "answer its change (push tier)",
    "no_webhook": "no webhook URL is registered: there is no secret to make",
    "not_your_account": "a seat of an account other than your key's",
    "not_your_turn": "another seat is on turn (`current_seat`)",
    "rated_pair_limited": "one more rated game between two accounts than a day allows "
    "(`pair`, `cap`)",
    "rate_limited": "over a rate limit of this seat token or client address",
    "record_not_replayable": "a past version of a record in a format no longer replayed",
    "seat_away": "the seat is away: send `back` first",
    "seat_resigned": "the seat resigned: the service plays it",
    "seat_taken": "the seat is not open",
    "seats_open": "seats are still to be claimed (`open_seats`)",
    "seek_matched": "the seek was already matched",
    "solve_too_complex": "past the solver's work budget",
    "storage_unavailable": "the game store is unreachable or did not answer in time",
    "too_many_bot_games": "past the weight of unfinished bot games this client may hold",
    "too_many_challenges": "one more pending challenge of yours than the most at once (`cap`)",
    "too_many_evaluations": "a new evaluation while your last is not done "
    "(`evaluation_id`, `cap`)",
    "too_many_tournaments": "one more open or running tournament of yours than the most at "
    "once (`cap`)",
    "tournament_closed": "the tournament has started (or is not open to join, or not yours "
    "to start)",
    "too_many_waits": "one more parked request than this client may hold",
    "turn_timed_out": "the turn's clock ran out: the stand-in finishes it",
    "unknown_account": "no open account with this handle",
    "unknown_challenge": "no challenge with this id that your account is in",
    "unknown_tournament": "no tournament with this id (or it is long over)",
    "unknown_evaluation": "no evaluation of yours with this id (or it is long over)",
    "unknown_game": "no game with this id (or it expired)",
    "unknown_preset": "no preset of this name (`classic`, `bga`, `family`)",
    "unknown_seat": "a seat this game does not have",
    "unknown_seek": "no seek with this id (never made, removed, expired unmatched, or ended "
    "when the connection holding it closed)",
    "unsupported_media_type": "the body is not sent as JSON",
    "version_conflict": "a stale `If-Match` (`current_version`), or, as a 409, a write "
    "that lost its race too many times in a row (retry)",
    "version_not_recorded": "a version beyond the record's (`versions`)",
}
assert set(WHEN) == set(CODE_STATUSES), "every code has its line"

#: What a status adds to its codes' lines, whatever the code.
NOTES = {
    429: "Retry after `Retry-After`.",
    503: "Retry after `Retry-After`. A 503 does not prove that a write was not made: a write "
    "that timed out may still have been applied. For an action, retry with the same "
    "`Idempotency-Key`: if the first attempt was applied you get its response (with "
    "`Idempotent-Replayed: true`), otherwise the action is applied once.",
}

RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer"}}}
#: The IETF draft's rate limit fields, on every rate-limited response (429s included).
RATE_LIMIT_HEADERS = {
    "RateLimit-Limit": {"description": "The limit nearest to breach: requests per window.",
                        "schema": {"type": "integer"}, "example": 50},
    "RateLimit-Remaining": {"description": "What is left of it in this window.",
                            "schema": {"type": "integer"}, "example": 0},
    "RateLimit-Reset": {"description": "Seconds until the window resets.",
                        "schema": {"type": "integer"}, "example": 1},
    "RateLimit-Policy": {"description": "`<limit>;w=<window seconds>`.",
                         "schema": {"type": "string"}, "example": "50;w=1"},
}
ETAG = {
    "ETag": {
        "description": 'The game version, quoted: `"12"`. Send it as `If-Match` on actions.',
        "schema": {"type": "string"},
    }
}
LOCATION = {"Location": {"description": "The new game's URL: `/v1/games/{game_id}`.",
                        "schema": {"type": "string", "format": "uri-reference"}}}


#: A problem an operation lists: its code, or ``(status, code)`` for a code that has
#: several statuses (``version_conflict``).
Listed = str | tuple[int, str]


def problems(blp: Blueprint, *codes: Listed, storage: bool = True) -> Callable[[F], F]:
    """Document the problems ``codes`` as problem+json, one ``blp.alt_response`` per status,
    each listing its codes as the enum of ``code`` (plus 503 ``storage_unavailable`` when
    the view calls Redis, and 429 ``rate_limited`` on rate-limited blueprints).

    Why per operation: a client switches on the codes an operation can return, and a typed
    client then gets only those. Put it below ``blp.response`` and above any other
    ``alt_response`` of the view.
    """
    by_status: dict[int, list[str]] = {}
    for item in codes:
        status, code = item if isinstance(item, tuple) else (_only_status(item), item)
        assert status in CODE_STATUSES[code], f"{code} is never a {status}"
        by_status.setdefault(status, []).append(code)
    if blp.name in RATE_LIMITED_BLUEPRINTS:
        by_status.setdefault(429, []).append("rate_limited")
    if storage:
        by_status.setdefault(503, []).append("storage_unavailable")

    def decorate(fn: F) -> F:
        for status in sorted(by_status, reverse=True):
            listed = sorted(set(by_status[status]))
            fn = blp.alt_response(
                status,
                schema=problem_of(listed),
                content_type=PROBLEM_CONTENT_TYPE,
                description=_description(status, listed),
                headers=({**RETRY_AFTER, **RATE_LIMIT_HEADERS} if "rate_limited" in listed
                         else RETRY_AFTER if status in (429, 503) else None),
            )(fn)
        return fn

    return decorate


def _only_status(code: str) -> int:
    statuses = CODE_STATUSES[code]
    assert len(statuses) == 1, f"{code} has statuses {statuses}: name one, (status, code)"
    return statuses[0]


def problem_of(codes: list[str]) -> dict[str, Any]:
    """The ``Problem`` schema narrowed to ``codes``."""
    return {"allOf": [{"$ref": "#/components/schemas/Problem"}], "required": ["code"],
            "properties": {"code": {"enum": codes}}}


def _description(status: int, codes: list[str]) -> str:
    listed = "; ".join(f"`{code}`: {WHEN[code]}" for code in codes) + "."
    return f"{listed} {NOTES[status]}" if status in NOTES else listed


def json_body(
    schema: str, description: str, example: Any = None, **extra: Any
) -> dict[str, Any]:
    """A JSON request body referring to a component schema (``extra``: more JSON Schema)."""
    content: dict[str, Any] = {"schema": {"$ref": f"#/components/schemas/{schema}"}}
    if extra:
        content["schema"] = {"allOf": [content["schema"]], **extra}
    if example is not None:
        content["example"] = example
    return {
        "requestBody": {
            "required": True,
            "description": description,
            "content": {"application/json": content},
        }
    }



#: The game id of every ``/v1/games/<game_id>…`` route, with its bound (ids are 16
#: characters; a longer one is no game's, 404 like any unknown id).
GAME_ID = {"in": "path", "name": "game_id", "required": True, "description": "The game's id.",
           "schema": {"type": "string", "minLength": 1, "maxLength": 64}}


#: The credentials a request may carry, as ``Authorization: Bearer <credential>``: the
#: document's security schemes (``components.securitySchemes``), so that Swagger UI's
#: *Authorize* offers each and a generated client knows them.
SECURITY_SCHEMES: dict[str, dict[str, str]] = {
    "seatToken": {
        "type": "http", "scheme": "bearer",
        "description": "A seat's token: from game creation, a seat claim or a seek, shown "
                       "once. It plays that one seat.",
    },
    "accountKey": {
        "type": "http", "scheme": "bearer",
        "description": "An account key, `<handle>.<secret>`: from account creation or "
                       "`POST /v1/me/key`, shown once. It is the account on `/v1/me…`, "
                       "challenges, the ladder and tournaments, and plays every seat its "
                       "account holds wherever a seat token is taken.",
    },
}

#: What each operation says in ``security``: the alternatives it takes (any one of them;
#: ``{}``, none at all). Which one a view takes follows from the readers of
#: ``service/api/web.py`` it calls (tests/contract/test_openapi_security.py holds each
#: operation to them): ``bearer()`` and ``bearer_token()`` take a seat token or an account
#: key, ``account()`` and ``my_account()`` an account key only; ``required=True`` (and
#: ``my_account``) refuse a request without one.
Security = list[dict[str, list[str]]]
#: No credential: the operation reads none (a bearer sent is only counted by the limits).
NO_BEARER: Security = []
#: A seat's token, or the key of the account that holds the seat.
SEAT_BEARER: Security = [{"seatToken": []}, {"accountKey": []}]
#: The same, or none: a spectator.
SEAT_BEARER_OPTIONAL: Security = [{}, *SEAT_BEARER]
#: Only an account's key.
ACCOUNT_KEY: Security = [{"accountKey": []}]
#: An account's key, or none (the seat, seek or claim is then a named player's).
ACCOUNT_KEY_OPTIONAL: Security = [{}, *ACCOUNT_KEY]


def query(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"in": "query", "name": name, "required": False, "description": description,
            "schema": schema}


def header(
    name: str, description: str, schema: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {"in": "header", "name": name, "required": False, "description": description,
            "schema": schema or {"type": "string"}}
