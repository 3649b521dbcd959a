"""Small HTTP helpers shared by the blueprints: JSON in and out, headers, the view.

Responses are serialized with orjson and returned as ready ``Response``
objects; flask-smorest passes those through unchanged, so the schemas still
document the contract while hot paths skip marshmallow's dump (≈300 µs on a
game view against ≈5 µs for orjson).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import orjson
from flask import Response, current_app, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import ClientDisconnected, RequestEntityTooLarge

from service import metrics
from service.engine import GameState, view
from service.engine.errors import InvalidCardError
from service.engine.memo import Memo
from service.engine.state import DISCARD
from service.solver import go_out_cards
from service.storage import GameStore

from .play import AuthError
from .problems import ApiProblem
from .schemas import CARD_RE

__all__ = [
    "bearer_token",
    "game_view",
    "if_match",
    "json_response",
    "load_body",
    "query_args",
    "query_int",
    "query_seconds",
    "remember_view",
    "rendered_view",
    "store",
    "valid_game_id",
]

GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ETAG = re.compile(r'\s*(?:W/)?"(\d{1,18})"\s*')


def store() -> GameStore:
    return current_app.extensions["three_thirteen"].store


def long_poll_max() -> float:
    return float(current_app.extensions["three_thirteen"].config.long_poll_max_seconds)


def json_response(
    body: Any, status: int = 200, headers: dict[str, str] | None = None
) -> Response:
    data = body if isinstance(body, bytes) else orjson.dumps(body)
    response = Response(data, status=status, content_type="application/json")
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def read_json() -> Any:
    """The request body as JSON: 415 for a non-JSON type, 422 when it does not parse."""
    environ = request.environ
    if environ.get("CONTENT_TYPE") != "application/json":  # (the common case, settled at once)
        mimetype = request.mimetype
        if mimetype and mimetype != "application/json" and not mimetype.endswith("+json"):
            raise ApiProblem(
                415, "unsupported_media_type",
                "send the body as JSON (Content-Type: application/json)",
            )
    data = _body(environ)
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ApiProblem(422, "invalid_json", f"the body is not valid JSON: {exc}") from None
    # the byte scans are upper bounds that spare most bodies the walks: a body with
    # fewer brackets than the limit cannot nest deeper, one without a digit followed by
    # "." or an exponent holds no float
    if data.count(b"[") + data.count(b"{") > MAX_JSON_DEPTH and _depth(value) > MAX_JSON_DEPTH:
        raise ApiProblem(
            422, "invalid_json", f"the body nests deeper than {MAX_JSON_DEPTH} levels"
        )
    return _integral(value) if _MAYBE_FLOAT.search(data) else value


_MAYBE_FLOAT = re.compile(rb"[0-9][.eE]")


def _body(environ: dict[str, Any]) -> bytes:
    """The request body; over MAX_CONTENT_LENGTH a 413, however it is sent.

    A body with a plain ``Content-Length`` is read straight from ``wsgi.input``: werkzeug
    wraps the stream in a ``LimitedStream`` whose read costs about 14 µs even for the
    30 bytes of an action. A streamed (chunked) body, which the server terminates, is
    read to one byte past the limit, so a longer one is refused as too large rather than
    cut at the limit (werkzeug's stream returns the first MAX_CONTENT_LENGTH bytes)."""
    limit: int | None = current_app.config["MAX_CONTENT_LENGTH"]
    length = environ.get("CONTENT_LENGTH")
    stream = environ["wsgi.input"]
    if length and length.isdigit() and length.isascii() and (
            "HTTP_TRANSFER_ENCODING" not in environ):
        size = int(length)
        if limit is not None and size > limit:
            raise RequestEntityTooLarge()
        data: bytes = stream.read(size)
        if len(data) != size:  # the client went away mid-body (as werkzeug reports it)
            raise ClientDisconnected()
        return data
    if environ.get("wsgi.input_terminated") and limit is not None:
        data = stream.read(limit + 1)
        if len(data) > limit:
            raise RequestEntityTooLarge()
        return data
    return request.get_data(cache=False)  # no length, unterminated: werkzeug reads nothing


#: No valid body nests more than a few levels; deeper ones are refused before any
#: recursive code (ours, marshmallow's, orjson's encoder) could meet Python's stack limit.
MAX_JSON_DEPTH = 32


def _depth(value: Any) -> int:
    """How deeply ``value`` nests (iterative, so a hostile body cannot exhaust the stack)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            if level > MAX_JSON_DEPTH:
                return level
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in item)
    return deepest


def _integral(value: Any) -> Any:
    """``3.0`` is the integer 3 in JSON Schema, so it is one here too (the engine wants ints)."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
        return int(value)  # beyond 2**53 a float is not an exact integer: leave it a float
    if isinstance(value, dict):
        return {k: _integral(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_integral(v) for v in value]
    return value


def load_body(schema: Schema) -> dict[str, Any]:
    """Read and validate a JSON body with ``schema`` (422 with per-field ``errors``)."""
    data = read_json()
    try:
        return schema.load(data)  # type: ignore[no-any-return]
    except ValidationError as exc:
        raise ApiProblem(
            422, "invalid_body", "the body does not match the schema", errors=exc.messages
        ) from None


def check_action_cards(body: Any) -> None:
    """Hold action bodies to the documented card pattern before the engine parses them
    (the engine is more lenient, e.g. about surrounding spaces; the contract is not)."""
    if not isinstance(body, dict):
        return
    texts = [body.get("card"), body.get("discard")]
    melds = body.get("melds")
    if isinstance(melds, list):
        texts += [c for m in melds if isinstance(m, list) for c in m]
    for text in texts:
        if isinstance(text, str) and not CARD_RE.fullmatch(text):
            raise InvalidCardError(
                f"{text!r} is not a card: write rank then suit, e.g. '7H', 'TS', '10♣', or 'JK'",
                text=text,
            )


def valid_game_id(game_id: str) -> str:
    """Ids that could never exist are refused before asking Redis (and keep keys well-formed)."""
    if not GAME_ID.fullmatch(game_id):
        raise ApiProblem(404, "unknown_game", "there is no game with this id (or it expired)")
    return game_id


def bearer_token(required: bool = False) -> str | None:
    header = request.environ.get("HTTP_AUTHORIZATION")
    if header is None:
        if required:
            raise AuthError("this needs a seat token: send Authorization: Bearer <token>")
        return None
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise AuthError("the Authorization header must be 'Bearer <token>'")
    return token


def if_match() -> Callable[[int], bool] | None:
    """The ``If-Match`` header as a test on versions (``None`` when absent)."""
    header = request.environ.get("HTTP_IF_MATCH")
    if header is None:
        return None
    if header.strip() == "*":
        return lambda version: True
    wanted = {int(m.group(1)) for part in header.split(",") if (m := _ETAG.fullmatch(part))}
    return lambda version: version in wanted


def none_match(version: int) -> bool:
    """Whether ``If-None-Match`` names ``version`` (then a GET may answer 304)."""
    header = request.environ.get("HTTP_IF_NONE_MATCH")
    if header is None:
        return False
    if header.strip() == "*":
        return True
    return any(
        (m := _ETAG.fullmatch(part)) and int(m.group(1)) == version for part in header.split(",")
    )


def query_args() -> Mapping[str, str]:
    """The query parameters; without a query string an empty mapping, skipping werkzeug's
    parse of the (empty) string into a MultiDict (about 6 µs, on most requests)."""
    return request.args if request.environ.get("QUERY_STRING") else _NO_ARGS


_NO_ARGS: Mapping[str, str] = MappingProxyType({})


#: Largest integer a query parameter takes (versions and event numbers stay far below).
QUERY_INT_MAX = 2**53


def query_int(name: str, default: int | None, lo: int, hi: int = QUERY_INT_MAX) -> int | None:
    raw = query_args().get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or not lo <= value <= hi:
        bound = f"from {lo} to {hi}"
        raise ApiProblem(
            422, "invalid_query", f"query parameter {name!r} must be an integer {bound}",
            errors={"query": {name: [f"an integer {bound}"]}},
        )
    return value


def query_seconds(name: str) -> float:
    """A wait in seconds, clamped to the server's long-poll maximum."""
    raw = query_args().get(name)
    if raw is None:
        return long_poll_max()
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also refuses NaN
        raise ApiProblem(
            422, "invalid_query", f"query parameter {name!r} must be a number of seconds ≥ 0",
            errors={"query": {name: ["a number ≥ 0"]}},
        )
    return min(value, long_poll_max())


def game_view(
    game_id: str, state: GameState, seat: int | None, open_seats: Sequence[int] = ()
) -> dict[str, Any]:
    """CONTRACT.md's state for ``seat``, plus which seats are still open.

    While seats are open nobody may act, so ``legal_actions`` is empty then: every
    listed action must be one the server accepts.
    """
    if (seat is not None and not open_seats and not state.finished and state.phase == DISCARD
            and seat == state.current_seat):
        # legal_actions needs the going-out analysis: warm its cache here, timed
        with metrics.LEGAL_ACTIONS_SECONDS.time():
            go_out_cards(state.hands[seat], state.wild_rank, state.rules, state.contract)
    out: dict[str, Any] = {"game_id": game_id, **view(state, seat)}
    for player in out["players"]:
        player["open"] = player["seat"] in open_seats
    out["open_seats"] = list(open_seats)
    if open_seats:
        out["legal_actions"] = []
    return out


def rendered_view(
    game_id: str, state: GameState, seat: int | None, open_seats: Sequence[int] = ()
) -> bytes:
    """``game_view`` as JSON bytes, remembered per (game, version, seat, open seats).

    A version of a game never changes, and views are read far more often than games
    move (polls, spectators, a bot re-reading after a wake-up), so the bytes of a view
    are built once per worker. The key holds everything the view depends on.
    """
    body = _RENDERED.get((game_id, state.version, seat, tuple(open_seats)))
    if body is None:
        body = orjson.dumps(game_view(game_id, state, seat, open_seats))
        remember_view(game_id, state, seat, open_seats, body)
    return body


def remember_view(
    game_id: str, state: GameState, seat: int | None, open_seats: Sequence[int], body: bytes
) -> None:
    """Remember ``body`` as the view of a *stored* state (never of one about to be saved:
    a save that loses its compare-and-set leaves a state at the same version that never
    existed)."""
    _RENDERED.put((game_id, state.version, seat, tuple(open_seats)), body)


_RENDERED: Memo[tuple[str, int, int | None, tuple[int, ...]], bytes] = Memo(2048)


def etag(version: int) -> str:
    return f'"{version}"'
