"""Documentation helpers: the problem responses and parameters views share.

Every status a view can return is listed on it (the contract tests hold the
service to that), so these helpers keep the lists short and the wording equal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask_smorest import Blueprint

from .limits import RATE_LIMITED_BLUEPRINTS
from .problems import PROBLEM_CONTENT_TYPE
from .schemas import ProblemSchema

F = TypeVar("F", bound=Callable[..., Any])

WHY = {
    401: "No token or key, a token of no seat of this game, or a key of no open account "
    "(`invalid_token`).",
    403: "A seat of another account asked with your key (`not_your_account`).",
    404: "Unknown game (`unknown_game`), seat (`unknown_seat`), seek (`unknown_seek`), "
    "account (`unknown_account`) or challenge (`unknown_challenge`).",
    409: "A handle taken regardless of case (`handle_taken`), an account already seated in "
    "this game (`already_seated`), not your turn (`not_your_turn`), an illegal action (`illegal_action`), seats still "
    "open (`seats_open`), seat taken (`seat_taken`), the game kept changing "
    "(`version_conflict`), or an `Idempotency-Key` older than the seat's latest "
    "request (`idempotency_key_superseded`: nothing is applied), or a record or past "
    "version asked of a game still being played (`game_not_finished`).",
    412: "The `If-Match` version is stale (`version_conflict`).",
    413: "The body is larger than the server's limit (`body_too_large`).",
    415: "The body is not JSON (`unsupported_media_type`).",
    422: "The body or query does not parse or validate (`invalid_json`, `invalid_body`, "
    "`invalid_query`, `invalid_cursor`, `invalid_card`, `invalid_rules`, `invalid_action`, "
    "`idempotency_key_reused`, `version_not_recorded`).",
    429: "Too many requests for this seat token or client address (`rate_limited`), or on a "
    "long-poll too many waiting requests of this client (`too_many_waits`); retry after "
    "`Retry-After`.",
    503: "The game store is unreachable or did not answer in time (`storage_unavailable`); "
    "retry after `Retry-After`. A 503 does not prove that a write was not made: a write "
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
LOCATION = {"Location": {"description": "The new game's URL.", "schema": {"type": "string"}}}


def problems(blp: Blueprint, *statuses: int, storage: bool = True) -> Callable[[F], F]:
    """Document ``statuses`` as problem+json (plus 503 when the view calls Redis, and 429
    on rate-limited blueprints), one ``blp.alt_response`` each.

    Put it below ``blp.response`` and above any other ``alt_response`` of the view.
    """
    limited = [429] if blp.name in RATE_LIMITED_BLUEPRINTS else []

    def decorate(fn: F) -> F:
        for status in sorted({*statuses, *limited, *([503] if storage else [])}, reverse=True):
            fn = blp.alt_response(
                status,
                schema=ProblemSchema,
                content_type=PROBLEM_CONTENT_TYPE,
                description=WHY[status],
                headers=({**RETRY_AFTER, **RATE_LIMIT_HEADERS} if status == 429 and limited
                         else RETRY_AFTER if status in (429, 503) else None),
            )(fn)
        return fn

    return decorate


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


#: An operation a spectator may call without a token and a seat with its own.
TOKEN_OPTIONAL: list[dict[str, list[str]]] = [{}, {"seatToken": []}]

#: The game id of every ``/v1/games/<game_id>…`` route, with its bound (ids are 16
#: characters; a longer one is no game's, 404 like any unknown id).
GAME_ID = {"in": "path", "name": "game_id", "required": True, "description": "The game's id.",
           "schema": {"type": "string", "minLength": 1, "maxLength": 64}}


def query(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"in": "query", "name": name, "required": False, "description": description,
            "schema": schema}


def header(
    name: str, description: str, schema: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {"in": "header", "name": name, "required": False, "description": description,
            "schema": schema or {"type": "string"}}
