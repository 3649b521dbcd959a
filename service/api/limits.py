"""Rate limits per seat token and per client address (flask-limiter on the games' Redis).

Three limits, each counted in Redis so they hold across gunicorn workers and machines:

* per seat token (``RATE_LIMIT``, default ``50/second``), on ``/v1/games…``, ``/v1/seeks…``
  and ``/v1/solve``: keyed by the bearer it resolves to (an account, whichever of its
  keys and however ``Bearer`` is spelled; a seat token), as a sha256 (a leaked Redis
  holds no credentials; requests without a token skip it). Every per-token limit below
  is keyed the same way. It counts only *wasted* requests (flask-limiter's
  ``deduct_when``): a view or event read that gives the bearer nothing new (a view that
  is not the bearer's turn asked without waiting, an ``If-None-Match`` of the current
  version, an events read with nothing after the cursor and no wait), a refused request
  (any 4xx), and every solver call. A bot that waits (``wait=turn``, a stream) and acts
  on its turn makes only requests that bring progress, so it never meets the limit
  however fast it plays; a client that busy-polls meets it at once;
* per client address (``RATE_LIMIT_PER_ADDRESS``, default ``500/second``) on the same
  routes, every request counted: the request's ``remote_addr``, which is the TCP peer
  unless ``PROXY_HOPS`` is set (then werkzeug's ``ProxyFix``, installed by
  ``create_app``, takes it from ``X-Forwarded-For``);
* creation (``CREATION_LIMIT_PER_ADDRESS``, default ``30/minute;300/hour``): games created,
  rematches asked (the last ask creates a game), seeks opened, tournaments created,
  challenges made and accepted (an acceptance may start a game), evaluations started, per
  client address and, when a token is sent, per token too. Over it: ``429 creation_limited``. This is
  what keeps one client from filling Redis.

* accounts (``ACCOUNT_LIMIT_PER_ADDRESS``, default ``10/hour;50/day``): accounts created
  per client address (each holds a handle for good). Over it: ``429 creation_limited``.

* challenges (``CHALLENGE_LIMIT``, default ``20/minute;400/day``, as Lichess caps them):
  challenges made per account and per client address (many accounts of one client
  share its quota). Over it: ``429 creation_limited``. Besides, an account has at most
  20 pending challenges of its own (``429 too_many_challenges``).

* solves (``SOLVE_LIMIT``, default ``200/second;1800/minute``): ``POST /v1/solve`` per
  client address and, when a token is sent, per token, each weighed by its hand before it
  runs (:func:`solve_weight`): 1 for a hand of a game (up to 14 cards, a millisecond or
  two of CPU), four more for each card past 14, as the solver's work grows steeply with
  the hand (30 cards: 65, up to 0.4 s). So a table of bots solving every turn at full
  speed from one address fits (a turn of four requests can take 5 ms: 60 a second was
  passed on a quick machine), and a burst of worst-case hands is refused after three; a refused
  ``solve_too_complex`` (which used the whole budget) weighs as much as any solve of its
  hand. Over it: ``429 rate_limited``.

* exports (``EXPORT_LIMIT_PER_ADDRESS``, default ``10/minute;100/hour``): exports of an
  account's finished games (``GET /v1/accounts/{handle}/games``) begun per client
  address. An export streams up to a whole history (thousands of records, each read from
  Redis and sent), so it is the one public read that costs more than a request's
  millisecond; a resumed export counts as one more. Over it: ``429 rate_limited``.

* analyses (``ANALYSIS_LIMIT``, default ``10/hour;50/day``): analyses of finished games
  asked for (``POST /v1/games/{id}/analysis`` answered 202) per client address and, when a
  token or account key is sent, per token or key. Each is a minute or so of an analysis
  worker's CPU; one already done (200) costs nothing and counts for nothing. Over it:
  ``429 rate_limited``. Besides, at most ``ANALYSIS_QUEUE_MAX`` wait at once (``503
  analysis_busy``).

Apart from these request limits, the unfinished games with bot seats one address may
hold are capped by their weight (``BOT_GAMES_PER_ADDRESS``, :func:`bot_load`,
``service/play/loads.py``): ``429 too_many_bot_games`` past it, so one client cannot
take the move workers' time from everyone else's games.

Every limited response carries the IETF draft's ``RateLimit-Limit``,
``RateLimit-Remaining``, ``RateLimit-Reset`` (seconds until the window resets) and
``RateLimit-Policy`` (``<limit>;w=<window seconds>``) of the limit nearest to breach,
so a client can pace itself. Over a limit the answer is ``429 rate_limited`` (or
``creation_limited``) problem+json with ``Retry-After``. ``off`` turns a limit off.
Health probes, metrics and the docs are never limited. If the limiter's Redis is
unreachable, requests are not refused for that (``swallow_errors``) and the limits are
counted per worker in memory until it is back (``in_memory_fallback_enabled``).
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any
from urllib.parse import urlsplit

import redis
from flask import Flask, Response, g, request
from flask_limiter import Limiter, RequestLimit
from flask_smorest import Blueprint
from werkzeug.exceptions import HTTPException

from service.config import Config
from service.play import LoadLimit

from .problems import ApiProblem, problem_response
from .waiting import will_wait
from .web import checked_identity, read_json

#: The most cards of a hand in a game (13 dealt and 1 drawn): such a solve weighs 1.
GAME_HAND = 14
#: What each card past :data:`GAME_HAND` adds to a solve's weight (30 cards: 65).
WEIGHT_PER_EXTRA_CARD = 4


def solve_weight() -> int:
    """What a solve counts against ``SOLVE_LIMIT``: 1, and
    :data:`WEIGHT_PER_EXTRA_CARD` more per card past a game's hand. A body that cannot be read weighs 1 (the view answers it with its problem)."""
    try:
        body = read_json()  # parsed once per request: the view gets the same
    except (ApiProblem, HTTPException):
        return 1
    hand = body.get("hand") if isinstance(body, dict) else None
    if not isinstance(hand, list):
        return 1
    return 1 + WEIGHT_PER_EXTRA_CARD * max(0, len(hand) - GAME_HAND)


__all__ = [
    "LIMITER_CLIENT", "RATE_LIMITED_BLUEPRINTS", "bot_load", "install_rate_limits", "nothing_new",
]

#: The name of the limiter's Redis connections (``CLIENT SETNAME``).
LIMITER_CLIENT = "ttt-limiter"
#: The blueprints whose requests count against the limits.
RATE_LIMITED_BLUEPRINTS = ("games", "events", "records", "solve", "streams", "seeks",
                           "accounts", "me", "challenges", "ratings", "ladder",
                           "tournaments", "exports", "analyses", "evaluations")
#: The endpoints whose POST creates something that lives in Redis (a game, a rematch's
#: game, a seek, a tournament, a challenge and the game its last acceptance starts, an
#: evaluation).
CREATION_ENDPOINTS = ("games.Games", "games.Rematch", "seeks.Seeks",
                      "tournaments.Tournaments", "challenges.Challenges", "challenges.Accept",
                      "evaluations.Evaluations")


def nothing_new() -> None:
    """Mark this request as giving its bearer nothing new (a view handler calls it):
    it then counts against the per-token limit."""
    g.ttt_nothing_new = True


def _wasted(response: Response) -> bool:
    if request.blueprint == "solve":
        return True
    return 400 <= response.status_code < 500 or bool(g.get("ttt_nothing_new"))


def _not_account_creation() -> bool:
    return not (request.method == "POST" and request.endpoint == "accounts.Accounts")


def _on_account_breach(limit: RequestLimit) -> Response:
    retry_after = _retry_after(limit)
    return problem_response(
        429, "creation_limited",
        f"too many accounts created ({limit.limit}); retry after {retry_after} s",
        {"Retry-After": str(retry_after)},
    )


def _not_challenge() -> bool:
    return not (request.method == "POST" and request.endpoint == "challenges.Challenges")


def _on_challenge_breach(limit: RequestLimit) -> Response:
    retry_after = _retry_after(limit)
    return problem_response(
        429, "creation_limited",
        f"too many challenges made ({limit.limit}); retry after {retry_after} s",
        {"Retry-After": str(retry_after)},
    )


def _not_analysis_request() -> bool:
    return not (request.method == "POST" and request.endpoint == "analyses.Analysis")


def _queued(response: Response) -> bool:
    """An analysis request counts when it was queued (202), not when it was done (200)."""
    return response.status_code == 202


def _not_creation() -> bool:
    return not (request.method == "POST" and request.endpoint in CREATION_ENDPOINTS)


def _token_key() -> str:
    """The bearer a per-token limit counts: its account (a key that authenticates) or its
    seat token, whatever spelling of the header carried it (:func:`.web.checked_identity`)."""
    who = checked_identity() or request.headers.get("Authorization", "")
    return "token:" + hashlib.sha256(who.encode("utf-8", "replace")).hexdigest()[:32]


def _no_token() -> bool:
    return not request.headers.get("Authorization", "").strip()


def _address_key() -> str:
    return "addr:" + (request.remote_addr or "unknown")


def _retry_after(limit: RequestLimit) -> int:
    return max(1, math.ceil(limit.reset_at - time.time()))


def _on_breach(limit: RequestLimit) -> Response:
    retry_after = _retry_after(limit)
    return problem_response(
        429, "rate_limited", f"too many requests ({limit.limit}); retry after {retry_after} s",
        {"Retry-After": str(retry_after)},
    )


def _on_creation_breach(limit: RequestLimit) -> Response:
    retry_after = _retry_after(limit)
    return problem_response(
        429, "creation_limited",
        f"too many games and seeks created ({limit.limit}); retry after {retry_after} s",
        {"Retry-After": str(retry_after)},
    )


def _headers(limiter: Limiter, response: Response) -> Response:
    """The IETF draft's RateLimit-* fields of the limit nearest to breach (after this
    request's deduction: this hook runs after flask-limiter's own).

    Not on the answer of a request that waits (a long-poll, a stream): the fields are
    read from the limiter's Redis (its window's count and expiry), which one move would
    do again for every waiter it wakes, and a client that waits paces itself by
    waiting. A refused wait still carries them."""
    if response.status_code == 200 and will_wait():
        return response
    try:
        current = limiter.current_limit
        if current is None:
            return response
        window = current.limit.get_expiry()
        response.headers["RateLimit-Limit"] = str(current.limit.amount)
        response.headers["RateLimit-Remaining"] = str(current.remaining)
        response.headers["RateLimit-Reset"] = str(max(0, math.ceil(current.reset_at
                                                                   - time.time())))
        response.headers["RateLimit-Policy"] = f"{current.limit.amount};w={window}"
    except Exception:
        pass
    return response


def _enabled(value: str) -> bool:
    return value.strip().lower() not in ("", "off", "0", "none", "false")


def bot_load(config: Config) -> LoadLimit | None:
    """This request's client and the weight of bot games it may hold (``None``: off)."""
    if not _enabled(config.bot_games_per_address):
        return None
    return LoadLimit.of_address(request.remote_addr or "unknown",
                                float(config.bot_games_per_address))


def _storage_options(storage: str, config: Config) -> dict[str, Any]:
    """The limiter's Redis options: its timeouts and, on one Redis, a bounded blocking pool.

    Why bounded: limits' Redis storage otherwise makes redis-py's default pool, which
    opens a new connection whenever every one it has is busy; under gevent, a move that
    wakes thousands of long-polls has them all count their next request at once, and
    each would open a connection of its own (a connection storm, and as many Redis
    clients per worker). A blocking pool of ``REDIS_MAX_CONNECTIONS`` makes them take
    turns instead (limits hands ``connection_pool`` to redis-py, its documented option).
    A request waits for its turn without a deadline of its own: every count is one short
    round trip bounded by the socket timeout, and a Redis that does not answer fails
    them, so the limiter counts in memory meanwhile (a deadline would make a burst of
    counts look like a dead Redis). Its connections are named ``LIMITER_CLIENT``
    (``CLIENT LIST`` tells them from the stores'). In bench-push, 2,000 long-polls
    woken: 1,868 Redis connections → 71, and 108 → 42 KB of worker memory per waiter."""
    timeouts: dict[str, Any] = {"socket_timeout": config.redis_timeout_seconds,
                                "socket_connect_timeout": config.redis_timeout_seconds}
    if urlsplit(storage).scheme not in ("redis", "rediss"):
        return timeouts  # a cluster (limits' own cluster client), memory://, …
    pool = redis.BlockingConnectionPool.from_url(
        storage, max_connections=config.redis_max_connections, timeout=None,
        client_name=LIMITER_CLIENT, **timeouts)
    return {"connection_pool": pool}


def install_rate_limits(app: Flask, config: Config, blueprints: list[Blueprint]) -> None:
    """Limit the requests of ``blueprints`` per token and per address."""
    storage = config.rate_limit_storage_url or config.redis_url
    # registered before the limiter's own hook, so it runs after it (Flask runs them in
    # reverse), when this request's deduction is counted; ``limiter`` is bound below
    limiter: Limiter
    app.after_request(lambda response: _headers(limiter, response))
    # redis-py's timeouts and pool, through flask-limiter's config key: its constructor's
    # ``storage_options`` is typed str | int values, and these are seconds as floats
    app.config["RATELIMIT_STORAGE_OPTIONS"] = _storage_options(storage, config)
    limiter = Limiter(
        _address_key,
        app=app,
        storage_uri=storage,
        strategy="fixed-window",
        key_prefix="ttt-limits",
        headers_enabled=False,
        swallow_errors=True,
        # Redis down: count in this worker's memory meanwhile instead of waiting on the
        # dead storage at every request (flask-limiter re-checks the storage and returns)
        in_memory_fallback_enabled=True,
        on_breach=_on_breach,
        enabled=(_enabled(config.rate_limit) or _enabled(config.rate_limit_per_address)
                 or _enabled(config.creation_limit_per_address)
                 or _enabled(config.solve_limit)
                 or _enabled(config.account_limit_per_address)
                 or _enabled(config.challenge_limit)
                 or _enabled(config.export_limit_per_address)
                 or _enabled(config.analysis_limit)),
    )
    creation = config.creation_limit_per_address
    for blp in blueprints:
        if _enabled(config.rate_limit):
            # shared: one budget per token across every endpoint, not one per route
            limiter.shared_limit(config.rate_limit, "token", key_func=_token_key,
                                 exempt_when=_no_token, override_defaults=False,
                                 deduct_when=_wasted)(blp)
        if _enabled(config.rate_limit_per_address):
            limiter.shared_limit(config.rate_limit_per_address, "address",
                                 key_func=_address_key, override_defaults=False)(blp)
        if blp.name == "solve" and _enabled(config.solve_limit):
            limiter.shared_limit(config.solve_limit, "solve-address", key_func=_address_key,
                                 override_defaults=False, cost=solve_weight)(blp)
            limiter.shared_limit(config.solve_limit, "solve-token", key_func=_token_key,
                                 exempt_when=_no_token, override_defaults=False,
                                 cost=solve_weight)(blp)
        if blp.name == "accounts" and _enabled(config.account_limit_per_address):
            limiter.shared_limit(config.account_limit_per_address, "account-address",
                                 key_func=_address_key, exempt_when=_not_account_creation,
                                 override_defaults=False, on_breach=_on_account_breach)(blp)
        if blp.name == "challenges" and _enabled(config.challenge_limit):
            limiter.shared_limit(config.challenge_limit, "challenge-account",
                                 key_func=_token_key,
                                 exempt_when=lambda: _not_challenge() or _no_token(),
                                 override_defaults=False, on_breach=_on_challenge_breach)(blp)
            # and per address: many accounts of one client share its quota
            limiter.shared_limit(config.challenge_limit, "challenge-address",
                                 key_func=_address_key, exempt_when=_not_challenge,
                                 override_defaults=False, on_breach=_on_challenge_breach)(blp)
        if blp.name == "exports" and _enabled(config.export_limit_per_address):
            limiter.shared_limit(config.export_limit_per_address, "export-address",
                                 key_func=_address_key, override_defaults=False)(blp)
        if blp.name == "analyses" and _enabled(config.analysis_limit):
            limiter.shared_limit(config.analysis_limit, "analysis-address",
                                 key_func=_address_key, exempt_when=_not_analysis_request,
                                 override_defaults=False, deduct_when=_queued)(blp)
            limiter.shared_limit(config.analysis_limit, "analysis-token", key_func=_token_key,
                                 exempt_when=lambda: _not_analysis_request() or _no_token(),
                                 override_defaults=False, deduct_when=_queued)(blp)
        if _enabled(creation):
            limiter.shared_limit(creation, "creation-address", key_func=_address_key,
                                 exempt_when=_not_creation, override_defaults=False,
                                 on_breach=_on_creation_breach)(blp)
            limiter.shared_limit(creation, "creation-token", key_func=_token_key,
                                 exempt_when=lambda: _not_creation() or _no_token(),
                                 override_defaults=False, on_breach=_on_creation_breach)(blp)
    app.extensions["three_thirteen_limiter"] = limiter
