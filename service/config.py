"""Service configuration, read from environment variables with sane defaults.

Everything a deployment may want to change is here and nowhere else, so
``create_app(Config(...))`` in a test and ``create_app()`` under gunicorn build
the same application from different inputs. Every variable is optional.

=========================  ==========================  =========================================
variable                   default                     what it sets
=========================  ==========================  =========================================
``REDIS_URL``              ``redis://127.0.0.1:6379/0``  where games live (``redis+cluster://host:port``:
                                                       a Redis Cluster, through any node)
``GAME_TTL_SECONDS``       ``604800`` (7 days)         idle lifetime of a game; every write renews it
``FINISHED_GAME_TTL_SECONDS`` ``86400`` (1 day)        how long a finished game (view and event log)
                                                       is kept after its last move
``RECORD_TTL_SECONDS``     ``7776000`` (90 days)       how long a finished game's record is kept
                                                       (``GET /v1/games/{id}/record``)
``MAX_BODY_BYTES``         ``65536``                   larger request bodies get ``413``
``BODY_READ_SECONDS``      ``10``                      a body still arriving after this long gets
                                                       ``408`` (the read's whole time, not per byte)
``LONG_POLL_MAX_SECONDS``  ``30``                      upper bound of ``timeout`` on long-polls
``REDIS_TIMEOUT_SECONDS``  ``2.0``                     connect/read timeout; past it, ``503``
``REDIS_MAX_CONNECTIONS``  ``32``                      Redis connections per worker (a bounded
                                                       pool, per node on a cluster; waiting
                                                       clients hold none)
``RETRY_AFTER_SECONDS``    ``5``                       ``Retry-After`` sent with ``503``
``IDEMPOTENCY_TTL_SECONDS`` ``3600`` (1 h)             how long a seat's latest reply is kept
                                                       (one per seat; a retry comes within
                                                       seconds)
``CORS_ORIGINS``           ``*``                       allowed browser origins (comma separated)
``RATE_LIMIT``             ``50/second``               requests per seat token (``off``: none)
``RATE_LIMIT_PER_ADDRESS`` ``500/second``              requests per client address (``off``: none)
``MAX_WAITS_PER_ADDRESS``  ``1000``                    parked long-polls and streams per client
                                                       address and worker (``off``: none)
``MAX_WAITS_PER_TOKEN``    ``10``                      the same per seat token
``STREAM_MAX_SECONDS``     ``3600``                    a stream ends after this long (reason
                                                       ``max_duration``; the client resumes)
``STREAM_HEARTBEAT_SECONDS`` ``15``                    idle streams send a heartbeat this often
``CREATION_LIMIT_PER_ADDRESS`` ``30/minute;300/hour``  games created, rematches asked and seeks
                                                       opened per client address, and per token
                                                       when one is sent (``off``: none)
``SOLVE_LIMIT``            ``200/second;1800/minute``   solves per client address, and per token
                                                       when one is sent, each weighing 1 and 4
                                                       more per card past 14 (``off``: none)
``ACCOUNT_LIMIT_PER_ADDRESS`` ``10/hour;50/day``     accounts created per client address (``off``)
``CHALLENGE_LIMIT``        ``20/minute;400/day``       challenges made per account (``off``)
``EXPORT_LIMIT_PER_ADDRESS`` ``10/minute;100/hour``    exports of an account's games begun per
                                                       client address (``off``)
``ANALYSIS_LIMIT``         ``10/hour;50/day``          analyses asked for per client address, and
                                                       per token or key when one is sent (``off``)
``ANALYSIS_QUEUE_MAX``     ``200``                     analyses waiting at most (more: ``503
                                                       analysis_busy``)
``ANALYSIS_AUTO_PER_DAY``  ``5``                       rated games of an account analysed by
                                                       themselves (its ``analyse_rated``) in any
                                                       24 hours (``0``: none)
``ANALYSIS_SETTING``       ``default``                 how hard an analysis worker judges: ``default``,
                                                       or ``quick`` (no look-ahead in the playouts:
                                                       a seventh of the CPU, the same judgement on
                                                       99.6% of decisions; docs/analysis.md)
``ANALYSIS_STALE_SECONDS`` ``120``                     an analysis whose worker was silent this
                                                       long is taken over by another worker
``BOT_GAMES_PER_ADDRESS``  ``32``                      the weight of unfinished games with bot seats
                                                       one client address may hold (a bot seat
                                                       weighs its bot's cost × the game's cards
                                                       ÷ 88: ``service/play/loads.py``; ``off``)
``WORKER_METRICS_PORT``    ``0``                       a move worker's own ``/metrics`` port
``WORKER_NICE``            ``10``                      how much lower a move worker's CPU priority
                                                       is than the web workers' (0 to 19)
``ANALYSIS_NICE``          ``19``                      how much lower an analysis worker's CPU
                                                       priority is (0 to 19; 19: batch work, below
                                                       the moves and the web workers)
``OPEN_GAME_TTL_SECONDS``  ``3600`` (1 h)              a game with unclaimed seats expires this
                                                       long after its creation
``SEEK_TTL_SECONDS``       ``300``                     an unmatched seek expires after this long
``RATE_LIMIT_STORAGE_URL`` ``REDIS_URL``               where the limiter counts (flask-limiter URI)
``PROXY_HOPS``             ``0``                       proxies in front that set ``X-Forwarded-For``
                                                       and ``-Proto`` (werkzeug's ``ProxyFix``): the
                                                       client address (per-address limit) is the
                                                       value that many hops back; ``0`` trusts none
``WEBHOOK_ALLOW_PRIVATE``  ``false``                   allow webhook URLs whose host is on a loopback,
                                                       private, link-local or other non-public
                                                       address (``true``: for tests and closed
                                                       networks; docs/accounts.md#webhooks)
``WEBHOOK_RETRY_SECONDS``  ``5,300,1800,7200,``        the wait before each retry of a webhook
                           ``18000,28800,28800``       delivery after a failed attempt (the first
                                                       is made at once); a failed attempt with no
                                                       wait left gives up: by default the eighth,
                                                       23 h 35 min after the first
``WEBHOOK_TIMEOUT_SECONDS`` ``5``                      a delivery's connect timeout, and its read
                                                       timeout; an attempt lasts at most twice it
``WEBHOOK_QUEUE_MAX``      ``1000``                    undelivered webhooks kept per account (more:
                                                       the oldest is dropped)
``WEBHOOK_CONCURRENCY``    ``8``                       deliveries a worker process makes at once
                                                       (``0``: it delivers none)
=========================  ==========================  =========================================
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from service.analysis.judge import SETTINGS

__all__ = ["Config"]


@dataclass(frozen=True, slots=True)
class Config:
    """The settings of one application instance (immutable, so safe to share)."""

    redis_url: str = "redis://127.0.0.1:6379/0"
    game_ttl_seconds: int = 7 * 24 * 3600
    finished_game_ttl_seconds: int = 24 * 3600
    record_ttl_seconds: int = 90 * 24 * 3600
    max_body_bytes: int = 64 * 1024
    body_read_seconds: float = 10.0
    long_poll_max_seconds: float = 30.0
    redis_timeout_seconds: float = 2.0
    redis_max_connections: int = 32
    retry_after_seconds: int = 5
    idempotency_ttl_seconds: int = 3600
    cors_origins: str = "*"
    rate_limit: str = "50/second"
    rate_limit_per_address: str = "500/second"
    max_waits_per_address: str = "1000"
    max_waits_per_token: str = "10"
    stream_max_seconds: float = 3600.0
    stream_heartbeat_seconds: float = 15.0
    creation_limit_per_address: str = "30/minute;300/hour"
    solve_limit: str = "200/second;1800/minute"
    #: accounts created per client address
    account_limit_per_address: str = "10/hour;50/day"
    #: challenges made per account (its key)
    challenge_limit: str = "20/minute;400/day"
    #: exports of an account's finished games (``GET /v1/accounts/{handle}/games``) begun
    #: per client address: each streams up to the whole history
    export_limit_per_address: str = "10/minute;100/hour"
    analysis_limit: str = "10/hour;50/day"
    analysis_queue_max: int = 200
    #: rated games an account that asked for it (``analyse_rated``) has analysed when they
    #: finish, in any 24 hours: each is a minute of an analysis worker's CPU nobody asked
    #: for at the time, so an account that plays all day takes its share, not the workers
    analysis_auto_per_day: int = 5
    analysis_setting: str = "default"
    analysis_stale_seconds: float = 120.0
    #: the weight of unfinished games with bot seats one address may hold (``off``: none)
    bot_games_per_address: str = "160"
    open_game_ttl_seconds: int = 3600
    seek_ttl_seconds: int = 300
    rate_limit_storage_url: str = ""
    proxy_hops: int = 0
    worker_metrics_port: int = 0  # a move worker's own /metrics port (0: none)
    #: how much lower a move worker's CPU priority is than the web workers' (nice(2)):
    #: under load the kernel serves requests first, bot decisions with what is left
    worker_nice: int = 10
    analysis_nice: int = 19
    #: the longest a move worker with nothing due sleeps on the schedule before it looks
    #: again (a plan wakes it at once; this bounds a plan made while it was not listening)
    worker_idle_seconds: float = 5.0
    #: webhook URLs on non-public addresses allowed (docs/accounts.md#webhooks): off,
    #: since a webhook is a request the service makes to wherever an account says
    webhook_allow_private: bool = False
    #: seconds before each retry of a delivery: Standard Webhooks' schedule (5 s, 5 min,
    #: 30 min, 2 h, 5 h, 10 h, 10 h) with its last two waits 8 h, so the last attempt
    #: comes within a day of the event, as the service promises
    webhook_retry_seconds: str = "5,300,1800,7200,18000,28800,28800"
    webhook_timeout_seconds: float = 5.0
    webhook_queue_max: int = 1000
    webhook_concurrency: int = 8

    def __post_init__(self) -> None:
        if self.stream_max_seconds <= 0 or self.stream_heartbeat_seconds <= 0:
            raise ValueError("STREAM_MAX_SECONDS and STREAM_HEARTBEAT_SECONDS must be > 0")
        if self.body_read_seconds <= 0:
            raise ValueError(f"BODY_READ_SECONDS={self.body_read_seconds} must be > 0")
        if not 0 <= self.worker_metrics_port <= 65535:
            raise ValueError(
                f"WORKER_METRICS_PORT={self.worker_metrics_port} is not a port (0: none)")
        if self.worker_idle_seconds <= 0:
            raise ValueError(f"WORKER_IDLE_SECONDS={self.worker_idle_seconds} must be > 0")
        if not 0 <= self.worker_nice <= 19:
            raise ValueError(f"WORKER_NICE={self.worker_nice} must be from 0 to 19")
        if not 0 <= self.analysis_nice <= 19:
            raise ValueError(f"ANALYSIS_NICE={self.analysis_nice} must be from 0 to 19")
        cap = self.bot_games_per_address.strip().lower()
        if cap not in ("", "off", "0", "none", "false"):
            try:
                if float(cap) <= 0:
                    raise ValueError
            except ValueError:
                raise ValueError(f"BOT_GAMES_PER_ADDRESS={self.bot_games_per_address!r} is "
                                 "not a positive number (or off)") from None
        if self.proxy_hops < 0:
            raise ValueError(f"PROXY_HOPS={self.proxy_hops} must be 0 or more")
        try:
            retries = self.webhook_retries
        except ValueError:
            retries = ()
        if not retries or any(not 0 <= s < 7 * 24 * 3600 for s in retries):
            raise ValueError(f"WEBHOOK_RETRY_SECONDS={self.webhook_retry_seconds!r} is not a "
                             "comma-separated list of seconds (0 to 7 days)")
        if not 0 < self.webhook_timeout_seconds <= 60:
            raise ValueError(f"WEBHOOK_TIMEOUT_SECONDS={self.webhook_timeout_seconds} must be "
                             "more than 0 and at most 60")
        if self.analysis_stale_seconds < 2 * 2.0:  # (its worker reports every 2 s)
            raise ValueError(f"ANALYSIS_STALE_SECONDS={self.analysis_stale_seconds} must be "
                             "4 or more")
        if self.analysis_auto_per_day < 0:
            raise ValueError(f"ANALYSIS_AUTO_PER_DAY={self.analysis_auto_per_day} must be 0 "
                             "or more (0: no automatic analysis)")
        if self.analysis_setting not in SETTINGS:
            raise ValueError(f"ANALYSIS_SETTING={self.analysis_setting!r} must be one of "
                             f"{', '.join(SETTINGS)}")
        if self.analysis_queue_max < 1:
            raise ValueError(f"ANALYSIS_QUEUE_MAX={self.analysis_queue_max} must be 1 or more")
        if self.webhook_queue_max < 1:
            raise ValueError(f"WEBHOOK_QUEUE_MAX={self.webhook_queue_max} must be 1 or more")
        if self.webhook_concurrency < 0:
            raise ValueError(f"WEBHOOK_CONCURRENCY={self.webhook_concurrency} must be 0 or "
                             "more (0: this process delivers none)")

    @property
    def webhook_retries(self) -> tuple[float, ...]:
        """``WEBHOOK_RETRY_SECONDS`` as numbers: the wait before each retry."""
        return tuple(float(s) for s in self.webhook_retry_seconds.split(","))

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Config:
        """Read every field from its upper-case environment variable, when set."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}  # each field's value, made by its default's type
        for f in fields(cls):
            raw = env.get(f.name.upper())
            if raw is None or raw == "":
                continue
            kind = type(getattr(cls(), f.name))
            try:
                values[f.name] = _boolean(raw) if kind is bool else kind(raw)
            except ValueError:
                raise ValueError(f"{f.name.upper()}={raw!r} is not a valid {kind.__name__}") from None
        return cls(**values)


def _boolean(raw: str) -> bool:
    """A switch's value: ``true``/``1``/``yes``/``on`` or ``false``/``0``/``no``/``off``
    (``bool("false")`` would be true)."""
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(raw)
