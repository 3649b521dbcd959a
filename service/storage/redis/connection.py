"""The one Redis connection every Redis store of a process shares: a redis-py client with
its bounded connection pool, the error mapping, and the worker's notification hub.

Why shared: the stores are split by concept, not by server. One pool per process keeps
the number of connections a worker holds bounded (``REDIS_MAX_CONNECTIONS``) whatever
the number of stores, and one hub per process keeps one pub/sub subscription per Redis
node (:mod:`service.storage.hub`), which the games' saves and the seek board's matches
both publish to.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from ..errors import StorageUnavailableError
from ..hub import Hub, channel_of, shards_channels
from .errors import is_oom

__all__ = ["CLUSTER_SCHEMES", "REFUSING_WRITES", "UNREACHABLE", "RedisConnection"]

T = TypeVar("T")

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}

#: What "Redis is down, slow or re-sharding" looks like from redis-py (a cluster adds its own).
UNREACHABLE = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.ClusterError)
#: Redis is up but refuses writes for now: full (``maxmemory`` reached under ``noeviction``:
#: ``OOM``, also from inside the Lua scripts) or a replica during a failover (``READONLY``).
#: Both pass when the operator or the failover acts, so they are 503s, not 500s.
REFUSING_WRITES = (redis.exceptions.OutOfMemoryError, redis.exceptions.ReadOnlyError)
_UNAVAILABLE = (*UNREACHABLE, *REFUSING_WRITES)
#: The longest a worker blocks in one read (it plans its own sleeps within this).
LONGEST_WAIT_SECONDS = 30.0
#: The shortest timeout a blocking read is sent: redis-server before 7.0 turns a
#: ``BLPOP``'s seconds into whole milliseconds by truncation, so 0.001 may become 0, which
#: blocks for ever (6.2 does: a worker then hung until its socket timed out).
SHORTEST_BLOCK_SECONDS = 0.01


def _connect(url: str, max_connections: int, timeout: float, **kw: Any) -> Any:
    """``redis://`` (or ``rediss://``, ``unix://``) is one Redis; ``redis+cluster://host:port``
    (or ``rediss+cluster://``) is a Redis Cluster reached through any of its nodes, with
    redis-py's :class:`~redis.cluster.RedisCluster` (the same commands; every key of a game
    shares one hash tag, so its script runs on one shard).

    The pool is bounded, so a worker holds at most ``max_connections`` connections however
    many requests it serves at once (thousands, parked on the event loop): on one Redis a
    request waits up to ``timeout`` for a free connection (redis-py's blocking pool); on a
    cluster, each node gets the same blocking pool (``connection_pool_class``): redis-py's
    default there fails a request at once when the node's connections are all busy, which
    a burst on one shard (many seekers of one rules pool) would turn into 503s.

    Typed ``Any``: redis-py's hints give every command's reply as ``Awaitable | Any`` (its
    asyncio client shares them) and ``register_script`` as ``Redis``'s only, so a typed
    client would need a check at every call; each store says what a reply is where it
    reads one."""
    scheme, sep, rest = url.partition("://")
    if sep and scheme in CLUSTER_SCHEMES:
        plain = f"{CLUSTER_SCHEMES[scheme]}://{rest}"
        return redis.RedisCluster.from_url(
            plain, max_connections=max_connections,
            connection_pool_class=functools.partial(redis.BlockingConnectionPool,
                                                    timeout=timeout), **kw)
    pool = redis.BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=timeout, **kw)
    return redis.Redis.from_pool(pool)


class RedisConnection:
    """A redis-py client (``Redis`` or ``RedisCluster``) and this process's hub.
    Thread-safe: redis-py clients hold a connection pool."""

    def __init__(self, url: str, *, timeout_seconds: float, max_connections: int = 32) -> None:
        self._url = url
        self._timeout = timeout_seconds
        self._blocking: Any = None
        self.client = _connect(
            url, max_connections, timeout_seconds,
            socket_timeout=timeout_seconds,
            socket_connect_timeout=timeout_seconds,
            # One immediate retry recovers a pooled connection that Redis closed (a
            # restart); more would only delay the 503 when Redis is really down. Never on
            # a timeout: the command may have run (a save), and a re-run would answer an
            # applied move with a version conflict; a timeout is a 503 (retry with the key)
            retry=Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,)),
            health_check_interval=30,
        )
        self._hub: Hub | None = None
        self._hub_lock = threading.Lock()
        #: the reads waiters make through their watches (a wake-up's shared read) hold at
        #: most half the pool, so thousands of waiters woken or arriving at once cannot
        #: drain it: actions and views always find a connection within the timeout
        self.waiters_gate = threading.BoundedSemaphore(max(1, max_connections // 2))

    def block(self, read: Callable[[Any, float], T], seconds: float) -> T:
        """``read(client, timeout)``, a blocking read (a worker's ``BLPOP``, a stream's
        ``BLOCK``), as :meth:`run` runs a call: on a client of its own, whose socket
        timeout exceeds the block, as redis-py's docs ask of blocking commands, so the
        shared pool's short timeout is never held by one; ``timeout`` is ``seconds``
        within :data:`SHORTEST_BLOCK_SECONDS` (never 0, "for ever" to Redis) and
        :data:`LONGEST_WAIT_SECONDS`."""
        timeout = min(max(seconds, SHORTEST_BLOCK_SECONDS), LONGEST_WAIT_SECONDS)
        with self._hub_lock:
            if self._blocking is None:
                wait = LONGEST_WAIT_SECONDS + self._timeout
                self._blocking = _connect(self._url, 2, wait, socket_timeout=wait,
                                          socket_connect_timeout=self._timeout)
            client = self._blocking
        return self.run(lambda: read(client, timeout))

    def run(self, fn: Callable[[], T]) -> T:
        """``fn()`` (a call on :attr:`client`), with "Redis is down, slow, full or read-only"
        turned into one storage error the HTTP layer maps to 503 with ``Retry-After``."""
        try:
            return fn()
        except _UNAVAILABLE as exc:
            raise StorageUnavailableError(str(exc) or type(exc).__name__) from exc
        except redis.ResponseError as exc:
            if not is_oom(exc):  # Redis 6.2's OOM inside a script comes as a plain error
                raise
            raise StorageUnavailableError(str(exc)) from exc

    @property
    def hub(self) -> Hub:
        """This worker's notification hub, made on first use (after gunicorn forked)."""
        with self._hub_lock:
            if self._hub is None:
                self._hub = self.run(lambda: Hub(self.client, sharded=self._sharded()))
            return self._hub

    def _sharded(self) -> bool:
        """Sharded pub/sub on a Redis Cluster whose nodes have it (Redis 7); plain pub/sub
        on one Redis (where the two are the same) and on an older cluster."""
        if not isinstance(self.client, redis.RedisCluster):
            return False
        version = self.client.info("server", target_nodes=redis.RedisCluster.RANDOM)
        assert isinstance(version, dict)  # redis-py's hints add its asyncio client's Awaitable
        return shards_channels(str(version["redis_version"]))

    def publish_command(self, name: str) -> tuple[str, str]:
        """The command and channel a script publishes on to wake the waiters of ``name``
        (a game id, or a seek pool: a "game" of the hub)."""
        return ("SPUBLISH" if self.hub.sharded else "PUBLISH"), channel_of(name)

    def wake_all(self) -> None:
        """Wake every waiter of this process's hub (none yet: nothing to do)."""
        with self._hub_lock:
            hub = self._hub
        if hub is not None:
            hub.wake_all()

    def ping(self) -> None:
        """Raise :class:`~service.storage.errors.StorageUnavailableError` unless Redis answers
        and would take a write now (every primary, on a cluster).

        Why not only PING: a Redis that is full (``maxmemory`` reached under
        ``noeviction``) or a replica (read-only) answers PING and refuses every move, so a
        readiness probe that only pings keeps sending players to a service that can only
        answer 503. Read from ``INFO`` (memory and replication), so the probe writes
        nothing."""
        if isinstance(self.client, redis.RedisCluster):
            infos = list(self.run(lambda: self.client.info(
                target_nodes=redis.RedisCluster.PRIMARIES)).values())
        else:
            infos = [self.run(self.client.info)]
        for info in infos:
            if info.get("role", "master") != "master":
                raise StorageUnavailableError("Redis is a read-only replica")
            limit = int(info.get("maxmemory", 0))
            if (limit and info.get("maxmemory_policy") == "noeviction"
                    and int(info.get("used_memory", 0)) >= limit):
                raise StorageUnavailableError("Redis is full (maxmemory, noeviction)")

    def close(self) -> None:
        """Stop the hub (waking its waiters) and close the connections: a worker's exit."""
        with self._hub_lock:
            hub, self._hub = self._hub, None
        if hub is not None:
            hub.close()
        if self._blocking is not None:
            self._blocking.close()
        self.client.close()
