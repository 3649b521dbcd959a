"""Small HTTP helpers shared by the blueprints: JSON in and out, headers, caching.

Requests are read through werkzeug (``request.get_data``, ``request.headers``,
``request.args``). Responses are serialized with orjson and returned as ready
``Response`` objects; flask-smorest passes those through unchanged, so the schemas
still document the contract while hot paths skip marshmallow's dump (≈300 µs on a
game view against ≈5 µs for orjson).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, overload

import gevent
import orjson
from flask import Response, current_app, g, request
from marshmallow import Schema, ValidationError
from werkzeug.exceptions import ClientDisconnected, HTTPException, RequestEntityTooLarge

from service.config import Config
from service.core.cards import is_card_text, not_a_card
from service.core.errors import InvalidCardError
from service.play import (
    ACCOUNT_PREFIX,
    AuthError,
    account_credential,
    hash_token,
    is_account_key,
)
from service.play import authenticate as play_authenticate
from service.storage import Account, Stores
from service.wire.bearer import identity, parse_bearer, required_account_key, required_bearer
from service.wire.headers import cache_control
from service.wire.problems import ApiProblem
from service.wire.queries import (
    QUERY_INT_MAX,
    URL_SAFE_ID,
    query_integer,
    valid_game_id,
    wait_seconds,
)
from service.wire.waiting import WaitSlots

__all__ = [
    "QUERY_INT_MAX",
    "URL_SAFE_ID",
    "account",
    "bearer",
    "bearer_token",
    "check_action_cards",
    "config",
    "for_bearer",
    "idempotency_key",
    "if_match",
    "json_response",
    "load_body",
    "query_int",
    "query_seconds",
    "read_json",
    "stores",
    "valid_game_id",
]

#: One version in ``If-Match``: the ETag as sent, ``"12"``, or the bare number ``12`` (RFC
#: 9110 wants the quotes, but clients often send the version they read from the body).
_ETAG = re.compile(r'\s*(?:(?:W/)?"(\d{1,18})"|(\d{1,18}))\s*')


def config() -> Config:
    """The application's configuration."""
    config: Config = current_app.extensions["three_thirteen"].config  # service.app.Services
    return config


def stores() -> Stores:
    """The app's stores (one per concept: :class:`~service.storage.Stores`)."""
    stores: Stores = current_app.extensions["three_thirteen"].stores
    return stores


def parked() -> AbstractContextManager[None]:
    """Count this request as one of its client's parked requests while it waits (or 429:
    see :mod:`.waiting`)."""
    waits: WaitSlots = current_app.extensions["three_thirteen"].waits
    return waits.hold(request.remote_addr, identity(request.headers.get("Authorization")))


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
    """The request body as JSON, read and parsed once per request: a second call (a
    solve's rate-limit weight, ``service/api/limits.py``, then the view) gets the same
    value, or the same problem."""
    outcome: tuple[Any, Exception | None] | None = g.get("json_body")
    if outcome is None:
        try:
            outcome = (_parse_body(), None)
        except (ApiProblem, HTTPException) as refused:
            outcome = (None, refused)
        g.json_body = outcome
    value, problem = outcome
    if problem is not None:
        raise problem
    return value


def _parse_body() -> Any:
    """The body as JSON: 415 for a non-JSON type, 422 when it does not parse.

    werkzeug refuses a declared length over ``MAX_CONTENT_LENGTH`` (413). Two cases
    are settled here, on werkzeug's public values: a body shorter than its declared
    length (the client stopped sending; gunicorn hands over what came) is a 400, as
    werkzeug itself answers a disconnect; and a streamed (chunked) body, which werkzeug
    reads up to the limit only, is refused as too large when it fills the limit rather
    than parsed cut short (one of exactly the limit too: the two cannot be told apart)."""
    mimetype = request.mimetype
    if mimetype and mimetype != "application/json" and not mimetype.endswith("+json"):
        raise ApiProblem(
            415, "unsupported_media_type",
            "send the body as JSON (Content-Type: application/json)",
        )
    data = _body_in_time()
    declared, limit = request.content_length, request.max_content_length
    if declared is not None and len(data) != declared:
        raise ClientDisconnected()
    if declared is None and limit is not None and len(data) >= limit:
        raise RequestEntityTooLarge()
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise ApiProblem(422, "invalid_json", f"the body is not valid JSON: {exc}") from None
    if _depth(value) > MAX_JSON_DEPTH:
        raise ApiProblem(
            422, "invalid_json", f"the body nests deeper than {MAX_JSON_DEPTH} levels"
        )
    return _integral(value)


def _body_in_time() -> bytes:
    """The raw body, read within ``BODY_READ_SECONDS`` all told, else 408 ``body_timeout``.

    gunicorn times out the headers of a request (``keepalive``) but not its body: a client
    trickling a byte now and then would hold its greenlet, a socket and a wait slot for as
    long as it liked without a proxy in front. Under gevent (the deployment's worker) a
    ``gevent.Timeout`` bounds the whole read, however the bytes arrive; a worker that is
    not gevent's blocks outside gevent's hub, so the timer never fires there (that worker
    class is for comparison only, behind the proxy's own body timeout)."""
    seconds = config().body_read_seconds
    timer = gevent.Timeout(seconds)
    timer.start()
    try:
        return request.get_data(cache=False)
    except gevent.Timeout as expired:
        if expired is not timer:
            raise
    finally:
        timer.close()
    raise ApiProblem(408, "body_timeout",
                     f"the body did not arrive within {seconds:g} s: send it at once")


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
        body: dict[str, Any] = schema.load(data)
        return body
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
        if isinstance(text, str) and not is_card_text(text):
            raise InvalidCardError(not_a_card(text), text=text)


def bearer_token(required: bool = False) -> str | None:
    header = request.headers.get("Authorization")
    return required_bearer(header) if required else parse_bearer(header)


def checked_identity() -> str | None:
    """:func:`identity` of this request once its account key is authenticated (once per
    request): a key that is not valid is counted as a token of its own, so a forged key
    never spends the quota of the account it names."""
    if "ttt_identity" not in g:
        found = identity(request.headers.get("Authorization"))
        if found is not None and found.startswith(ACCOUNT_PREFIX):
            key = parse_bearer(request.headers.get("Authorization")) or ""
            try:
                authenticated(key)
            except AuthError:
                found = hash_token(key)
        g.ttt_identity = found
    return g.ttt_identity  # type: ignore[no-any-return]


def authenticated(key: str) -> Account:
    """The open account of ``key`` (401 if none), read once per request."""
    cache: dict[str, Account | AuthError] = g.setdefault("ttt_accounts", {})
    if key not in cache:
        try:
            cache[key] = play_authenticate(stores(), key)
        except AuthError as refused:
            cache[key] = refused
    found = cache[key]
    if isinstance(found, AuthError):
        raise found
    return found


def bearer(required: bool = False) -> str | None:
    """The credential the request's bearer stands for (a seat token's hash, or an
    account's, once its key is checked: ``service/play/credentials.py``); ``None``
    without a bearer (a spectator), 401 when one is required."""
    token = bearer_token(required)
    if token is None:
        return None
    if is_account_key(token):
        return account_credential(authenticated(token).handle)
    return hash_token(token)


def account(required: bool = False) -> Account | None:
    """The account whose key the request's bearer is (401 for a key that is not, or no
    longer, valid); ``None`` without an account key (none, or a seat token), 401 when
    one is ``required``."""
    if required:
        return authenticated(required_account_key(request.headers.get("Authorization")))
    token = bearer_token()
    if token is None or not is_account_key(token):
        return None
    return authenticated(token)


def my_account() -> Account:
    """The account whose key the request's bearer is: a route only an account may use
    (401 otherwise)."""
    mine = account(required=True)
    assert mine is not None
    return mine


def idempotency_key() -> str | None:
    """The ``Idempotency-Key`` header (1–200 characters), if sent."""
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= 200:
        raise ApiProblem(422, "invalid_body", "Idempotency-Key must be 1 to 200 characters")
    return key


def if_match() -> Callable[[int], bool] | None:
    """The ``If-Match`` header as a test on versions (``None`` when absent)."""
    header = request.headers.get("If-Match")
    if header is None:
        return None
    if header.strip() == "*":
        return lambda version: True
    wanted = {int(m.group(1) or m.group(2))
              for part in header.split(",") if (m := _ETAG.fullmatch(part))}
    return lambda version: version in wanted


def for_bearer(response: Response, private: bool) -> Response:
    """Mark a response whose body depends on who asks (a view, the events, an action's
    reply): every cache keys it by the bearer (``Vary``) and revalidates it each time;
    one that carries a seat's data (``private``) no shared cache may keep.

    The ``ETag`` stays the plain version (the API contract, docs/api.md, and what
    ``If-Match`` takes), so it cannot tell one bearer's body from another's; that is why
    views never answer ``If-None-Match`` with a 304 (see ``games.py``)."""
    response.vary.add("Authorization")
    response.headers["Cache-Control"] = cache_control(private)
    return response


@overload
def query_int(name: str, default: int, lo: int, hi: int = ...) -> int: ...


@overload
def query_int(name: str, default: None, lo: int, hi: int = ...) -> int | None: ...


def query_int(name: str, default: int | None, lo: int, hi: int = QUERY_INT_MAX) -> int | None:
    """The integer query parameter ``name`` in ``[lo, hi]`` (else a 422), or ``default``
    when it is absent (so an int default gives an int: the overloads say so)."""
    return query_integer(name, request.args.get(name), default, lo, hi)


def query_seconds(name: str) -> float:
    """A wait in seconds, clamped to the server's long-poll maximum and spread
    (:func:`service.wire.queries.wait_seconds`)."""
    return wait_seconds(name, request.args.get(name), long_poll_max())
