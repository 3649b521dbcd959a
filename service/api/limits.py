"""Rate limits per seat token and per client address (flask-limiter on the games' Redis).

Two limits apply to every ``/v1/games…`` and ``/v1/solve`` request, each counted in
Redis so they hold across gunicorn workers and machines:

* per seat token (``RATE_LIMIT``, default ``50/second``): keyed by the token's sha256,
  so a leaked Redis holds no credentials; requests without a token skip it;
* per client address (``RATE_LIMIT_PER_ADDRESS``, default ``500/second``): the
  request's ``remote_addr``, which is the TCP peer unless ``PROXY_HOPS`` is set (then
  werkzeug's ``ProxyFix``, installed by ``create_app``, takes it from
  ``X-Forwarded-For``; gunicorn itself never does, so behind a proxy without
  ``PROXY_HOPS`` every client shares the proxy's budget).

Over a limit the answer is ``429 rate_limited`` problem+json with ``Retry-After``
(seconds until the window resets). ``off`` turns a limit off. The defaults are far
above what a player or bot needs, so only floods meet them. Health probes, metrics
and the docs are never limited. If the limiter's Redis is unreachable, requests are
not refused for that (``swallow_errors``) and the limits are counted per worker in
memory until it is back (``in_memory_fallback_enabled``), so a dead Redis costs one
timeout per request (the games' own call, answered ``503``), not three.
"""

from __future__ import annotations

import hashlib
import math
import time

from flask import Flask, request
from flask_limiter import Limiter, RequestLimit
from flask_smorest import Blueprint

from service.config import Config

from .problems import problem_response

__all__ = ["RATE_LIMITED_BLUEPRINTS", "install_rate_limits"]

#: The blueprints whose requests count against the limits.
RATE_LIMITED_BLUEPRINTS = ("games", "records", "solve", "streams")


def _token_key() -> str:
    header = request.headers.get("Authorization", "")
    return "token:" + hashlib.sha256(header.strip().encode("utf-8", "replace")).hexdigest()[:32]


def _no_token() -> bool:
    return not request.headers.get("Authorization", "").strip()


def _address_key() -> str:
    return "addr:" + (request.remote_addr or "unknown")


def _on_breach(limit: RequestLimit):  # type: ignore[no-untyped-def]
    retry_after = max(1, math.ceil(limit.reset_at - time.time()))
    return problem_response(
        429, "rate_limited",
        f"too many requests ({limit.limit}); retry after {retry_after} s",
        {"Retry-After": str(retry_after)},
    )


def _enabled(value: str) -> bool:
    return value.strip().lower() not in ("", "off", "0", "none", "false")


def install_rate_limits(app: Flask, config: Config, blueprints: list[Blueprint]) -> None:
    """Limit the requests of ``blueprints`` per token and per address."""
    storage = config.rate_limit_storage_url or config.redis_url
    limiter = Limiter(
        _address_key,
        app=app,
        storage_uri=storage,
        storage_options={"socket_timeout": config.redis_timeout_seconds,
                         "socket_connect_timeout": config.redis_timeout_seconds},
        strategy="fixed-window",
        key_prefix="ttt-limits",
        headers_enabled=False,
        swallow_errors=True,
        # Redis down: count in this worker's memory meanwhile instead of waiting on the
        # dead storage at every request (flask-limiter re-checks the storage and returns)
        in_memory_fallback_enabled=True,
        on_breach=_on_breach,
        enabled=_enabled(config.rate_limit) or _enabled(config.rate_limit_per_address),
    )
    for blp in blueprints:
        if _enabled(config.rate_limit):
            # shared: one budget per token across every endpoint, not one per route
            limiter.shared_limit(config.rate_limit, "token", key_func=_token_key,
                                 exempt_when=_no_token, override_defaults=False)(blp)
        if _enabled(config.rate_limit_per_address):
            limiter.shared_limit(config.rate_limit_per_address, "address",
                                 key_func=_address_key, override_defaults=False)(blp)
    app.extensions["three_thirteen_limiter"] = limiter
