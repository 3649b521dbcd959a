"""The body of a stream of many games and of its changes: ``{"games": [<id>, …]}``, with
an optional ``"after": {<id>: <seq>}`` (where to resume each game's events).

Parsed here, answered as the web workers answer a body (415 for a body that is not JSON,
422 ``invalid_json`` when it does not parse, 422 ``invalid_body`` with ``errors`` saying
where, as marshmallow's do), so a client meets the service's usual problems.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from service.wire.problems import ApiProblem
from service.wire.queries import QUERY_INT_MAX, URL_SAFE_ID

from .http import Request

__all__ = ["MAX_GAMES", "GameSet", "game_set"]

#: The most games one stream follows (Lichess's stream of games by ids takes 500 too).
MAX_GAMES = 500


@dataclass(frozen=True, slots=True)
class GameSet:
    """The games a body names, each once, in the order first named, and the cursor of
    each that has one (the others start from the first event)."""

    games: tuple[str, ...]
    after: dict[str, int]


def _invalid(field: str, message: str) -> ApiProblem:
    return ApiProblem(422, "invalid_body", f"{field}: {message}",
                      errors={"json": {field: [message]}})


def game_set(request: Request) -> GameSet:
    """The body's games (1 to :data:`MAX_GAMES` distinct ids, duplicates dropped) and
    cursors; a problem for anything else (see the module)."""
    mimetype = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if mimetype and mimetype != "application/json" and not mimetype.endswith("+json"):
        raise ApiProblem(415, "unsupported_media_type",
                         "send the body as JSON (Content-Type: application/json)")
    try:
        body: Any = orjson.loads(request.body)
    except orjson.JSONDecodeError as exc:
        raise ApiProblem(422, "invalid_json", f"the body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise ApiProblem(422, "invalid_body", "the body must be a JSON object",
                         errors={"json": {"_schema": ["Invalid input type."]}})
    for name in body:
        if name not in ("games", "after"):
            raise _invalid(str(name), "Unknown field.")
    games = body.get("games")
    if not isinstance(games, list):
        raise _invalid("games", "a list of game ids is required")
    distinct: dict[str, None] = {}
    for game_id in games:
        if not isinstance(game_id, str) or not URL_SAFE_ID.fullmatch(game_id):
            raise _invalid("games", "each game id is 1 to 64 characters of A-Z, a-z, 0-9, "
                           "'_' and '-'")
        distinct[game_id] = None
    if not distinct:
        raise _invalid("games", "name at least one game")
    if len(distinct) > MAX_GAMES:
        raise _invalid("games", f"at most {MAX_GAMES} distinct game ids (this names "
                       f"{len(distinct)})")
    after = body.get("after", {})
    if not isinstance(after, dict):
        raise _invalid("after", "an object of game ids and event seqs")
    for game_id, seq in after.items():
        if game_id not in distinct:
            raise _invalid("after", f"{game_id!r} is not one of the games")
        if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= QUERY_INT_MAX:
            raise _invalid("after", f"the cursor of {game_id!r} must be an integer from 0 "
                           f"to {QUERY_INT_MAX}")
    return GameSet(tuple(distinct), dict(after))
