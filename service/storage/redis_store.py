"""The Redis implementation of :class:`~service.storage.base.GameStore`.

Keys (all of one game share the hash tag ``{<game_id>}``, so a Redis Cluster
keeps them on one shard and a Lua script may touch them together)::

    ttt:{<id>}:game         hash  v = version, s = state (orjson of engine to_dict),
                                  t = JSON list of seat token sha256 hashes (null: open seat)
    ttt:{<id>}:events       stream, one entry per event, entry id "<seq>-0", field e = event
                                  in the compact form of :mod:`.event_codec`
    ttt:{<id>}:reply:<slot> string, one per seat (the slot): the key ids of its latest
                                  Idempotency-Key and of up to 16 superseded ones (of one
                                  length: 16 hex digits from the play layer; latest
                                  first), a newline, then the first response to
                                  the latest key, zlib-compressed (own TTL, renewed by
                                  each keyed action of the seat)
    ttt:{<id>}:ticket:<h>   string, a stream ticket's value under the sha256 of its secret
                                  (``SET EX NX``; taken once with ``GETDEL``)
    ttt:{<id>}:record       string, once the game is finished: its record (the JSON of
                                  :mod:`service.verify.record`) and its seats' token
                                  hashes, zlib-compressed; written by the save that
                                  finished the game, never replaced (own TTL)
    ttt:{<id>}:moved        pub/sub channel: every save publishes the new version on it
    ttt:{lobby}:open        sorted set, the lobby's games with open seats (score: created,
    ttt:{lobby}:in_progress   Unix ms), and its games being played: one hash tag, so one
                              script moves a game from one to the other
    ttt:{sweep}:visits      sorted set, when the sweeper looks at a game with a clock or
                            a bot seat (score: Unix ms)

The lobby's listings and why they are kept apart from the games: :mod:`.listings`;
the sweeper's schedule: :mod:`.visits`.

A game with open seats expires ``open_ttl_seconds`` after its creation (claims that
leave seats open do not renew it), so games nobody joins cannot fill Redis; the save
that claims the last seat gives it the normal TTL.

TTLs: the game hash and the event stream ``GAME_TTL_SECONDS`` after each move, and
``FINISHED_GAME_TTL_SECONDS`` after the last one; a seat's reply
``IDEMPOTENCY_TTL_SECONDS`` after its latest keyed action; the record ``RECORD_TTL_SECONDS``
after the game finished (it outlives the game's other keys); a ticket its own short one.

Why Lua scripts (:mod:`.redis_scripts`): each write is one atomic step on Redis.

Why a stream for events: the event log is append-only and read by position,
which is what a stream is.

Why publish from the save script: waiting clients park on the worker's notification
hub (:mod:`.hub`: one subscription per worker, not a connection per waiter), and a
notification sent in the same atomic step as the save can never announce a state
that is not yet readable. On a Redis Cluster of Redis 7 the channel is a sharded one
(``SPUBLISH``), so a game's notifications stay on its shard.

Why orjson: the state is written and read on every move; orjson is a
maintained, widely used C library that encodes several times faster than the
standard ``json`` module, byte-for-byte deterministic, with no code of ours.
"""

from __future__ import annotations

import functools
import threading
import time
import zlib
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import orjson
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.engine import Event, GameState, to_dict

from . import event_codec
from .base import (
    SUPERSEDED_KEYS_KEPT,
    GameExistsError,
    GameRecord,
    GameStore,
    GameWatch,
    ReplyKeySupersededError,
    StorageUnavailableError,
    StoredReply,
    UnknownGameError,
    VersionConflictError,
    split_reply_key,
)
from .hub import Hub, Watch, channel_of
from .listings import RELIST, RedisListings, listing_key
from .redis_errors import is_oom
from .redis_scripts import CREATE, GAME_FIELDS, SAVE, game_keys, record_of
from .visits import TAKE_VISITS, RedisVisits

__all__ = ["RedisGameStore", "game_keys", "listing_key"]

T = TypeVar("T")

def _record_key(game_id: str) -> str:
    return f"ttt:{{{game_id}}}:record"


def _reply_key(game_id: str, slot: str) -> str:
    return f"ttt:{{{game_id}}}:reply:{slot}"


def _ticket_key(game_id: str, ticket_hash: str) -> str:
    return f"ttt:{{{game_id}}}:ticket:{ticket_hash}"


def _event_blob(event: Event) -> bytes:
    return event_codec.encode(event)


def _event_of(blob: bytes) -> Event:
    return event_codec.decode(blob)


def _event_args(events: Sequence[Event]) -> list[Any]:
    args: list[Any] = []
    for e in events:
        args += [f"{e.seq}-0", _event_blob(e)]
    return args


def _reply_blob(reply: StoredReply) -> bytes:
    """Compressed: a view is repetitive JSON (2 KB becomes about 0.6 KB), and zlib at
    level 6 takes tens of microseconds for it, a small part of an action's CPU."""
    return zlib.compress(
        orjson.dumps([reply.fingerprint, reply.status, reply.etag, reply.body.decode()]))


def _reply_of(blob: bytes) -> StoredReply:
    fingerprint, status, etag, body = orjson.loads(zlib.decompress(blob))
    return StoredReply(fingerprint, status, etag, body.encode())


def _slot_reply(value: bytes, reply_key: str) -> StoredReply | None:
    """The reply in a slot's stored value if ``reply_key`` is its latest key (as the save
    script decides: superseded raises, a key the slot never saw is ``None``)."""
    _, key_id = split_reply_key(reply_key)
    kept, _, blob = value.partition(b"\n")
    ids = [kept[i:i + len(key_id)].decode() for i in range(0, len(kept), len(key_id))]
    if ids and ids[0] == key_id:
        return _reply_of(blob)
    if key_id in ids:
        raise ReplyKeySupersededError(reply_key)
    return None


CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}


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
    a burst on one shard (many seekers of one rules pool) would turn into 503s."""
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


#: What "Redis is down, slow or re-sharding" looks like from redis-py (a cluster adds its own).
UNREACHABLE = (redis.ConnectionError, redis.TimeoutError, redis.exceptions.ClusterError)
#: Redis is up but refuses writes for now: full (``maxmemory`` reached under ``noeviction``:
#: ``OOM``, also from inside the Lua scripts) or a replica during a failover (``READONLY``).
#: Both pass when the operator or the failover acts, so they are 503s, not 500s.
REFUSING_WRITES = (redis.exceptions.OutOfMemoryError, redis.exceptions.ReadOnlyError)
_UNAVAILABLE = (*UNREACHABLE, *REFUSING_WRITES)


class RedisGameStore(RedisListings, RedisVisits, GameStore):
    """Games in Redis. Thread-safe: redis-py clients hold a connection pool."""

    def __init__(
        self,
        url: str,
        *,
        ttl_seconds: int,
        reply_ttl_seconds: int,
        timeout_seconds: float,
        max_connections: int = 32,
        finished_ttl_seconds: int | None = None,
        open_ttl_seconds: int | None = None,
        record_ttl_seconds: int = 90 * 24 * 3600,
    ) -> None:
        self.ttl = int(ttl_seconds)
        # A finished game no longer changes: it is kept for its players to see the end,
        # not for play, and it is what fills a shard (its keys outnumber the live games')
        self.finished_ttl = self.ttl if finished_ttl_seconds is None else int(finished_ttl_seconds)
        self.open_ttl = self.ttl if open_ttl_seconds is None else int(open_ttl_seconds)
        self.reply_ttl = int(reply_ttl_seconds)
        self.record_ttl = int(record_ttl_seconds)
        common: dict[str, Any] = dict(
            socket_connect_timeout=timeout_seconds,
            # One immediate retry recovers a pooled connection that Redis closed (a
            # restart); more would only delay the 503 when Redis is really down. Never on
            # a timeout: the command may have run (a save), and a re-run would answer an
            # applied move with a version conflict; a timeout is a 503 (retry with the key)
            retry=Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,)),
            health_check_interval=30,
        )
        self.client = _connect(url, max_connections, timeout_seconds,
                               socket_timeout=timeout_seconds, **common)
        self._hub: Hub | None = None
        self._hub_lock = threading.Lock()
        # redis-py's Script runs EVALSHA and reloads the script if Redis lost it (a restart)
        self._create = self.client.register_script(CREATE)
        self._save = self.client.register_script(SAVE)
        self._relist = self.client.register_script(RELIST)
        self._take_visits = self.client.register_script(TAKE_VISITS)

    def run(self, fn: Callable[[], T]) -> T:
        """``fn()`` (a call on :attr:`client`) with this store's error mapping, for the
        other Redis users of the service (matchmaking) to fail the same way."""
        return self._run(fn)

    def publish_command(self, game_id: str) -> tuple[str, str]:
        """The command and channel a script publishes on to wake ``game_id``'s waiters."""
        return self._publish(game_id)

    def _run(self, fn: Callable[[], T]) -> T:
        """``fn()``, with "Redis is down, slow, full or read-only" turned into one storage
        error the HTTP layer maps to 503 with ``Retry-After`` (and logs)."""
        try:
            return fn()
        except _UNAVAILABLE as exc:
            raise StorageUnavailableError(str(exc) or type(exc).__name__) from exc
        except redis.ResponseError as exc:
            if not is_oom(exc):  # Redis 6.2's OOM inside a script comes as a plain error
                raise
            raise StorageUnavailableError(str(exc)) from exc

    def create(
        self, game_id: str, state: GameState, token_hashes: Sequence[str | None],
        events: Sequence[Event],
    ) -> None:
        args = [
            state.version,
            orjson.dumps(to_dict(state)),
            orjson.dumps(list(token_hashes)),
            self.open_ttl if None in token_hashes else self.ttl,
            repr(time.time()),
            *_event_args(events),
        ]
        created = self._run(lambda: self._create(keys=list(game_keys(game_id)), args=args))
        if not created:
            raise GameExistsError(game_id)

    def load(self, game_id: str) -> GameRecord:
        key, _ = game_keys(game_id)
        record = record_of(game_id, self._run(lambda: self.client.hmget(key, GAME_FIELDS)))
        if record is None:
            raise UnknownGameError(game_id)
        return record

    def save(
        self,
        game_id: str,
        expected_version: int,
        state: GameState,
        events: Sequence[Event],
        *,
        token_hashes: Sequence[str | None] | None = None,
        reply_key: str | None = None,
        reply: StoredReply | None = None,
        record: bytes | None = None,
    ) -> StoredReply | None:
        keys = [*game_keys(game_id), _record_key(game_id)]
        key_id = ""
        if reply_key is not None:
            slot, key_id = split_reply_key(reply_key)
            keys.append(_reply_key(game_id, slot))
        args = [
            expected_version,
            state.version,
            orjson.dumps(to_dict(state)),
            b"" if token_hashes is None else orjson.dumps(list(token_hashes)),
            # a claim that leaves seats open keeps the open game's TTL (from its creation)
            b"" if token_hashes is not None and None in token_hashes
            else self.finished_ttl if state.finished else self.ttl,
            b"" if reply is None else _reply_blob(reply),
            self.reply_ttl,
            *self._publish(game_id),
            key_id,
            SUPERSEDED_KEYS_KEPT,
            b"" if record is None else record,
            self.record_ttl,
            *_event_args(events),
        ]
        status, value = self._run(lambda: self._save(keys=keys, args=args))
        if status == 0:
            return None
        if status == 1:
            raise VersionConflictError(int(value))
        if status == 2:
            return _reply_of(value)
        if status == 4:
            raise ReplyKeySupersededError(reply_key or "")
        raise UnknownGameError(game_id)

    def stored_reply(self, game_id: str, reply_key: str) -> StoredReply | None:
        slot, _ = split_reply_key(reply_key)
        value = self._run(lambda: self.client.get(_reply_key(game_id, slot)))
        return None if value is None else _slot_reply(value, reply_key)

    def events(self, game_id: str, after: int, limit: int) -> list[Event]:
        _, stream = game_keys(game_id)
        entries = self._run(
            lambda: self.client.xrange(stream, min=f"{after + 1}-0", max="+", count=limit)
        )
        return [_event_of(fields[b"e"]) for _, fields in entries]

    def put_record(self, game_id: str, record: bytes) -> bool:
        key = _record_key(game_id)
        return bool(self._run(lambda: self.client.set(key, record, ex=self.record_ttl, nx=True)))

    def load_record(self, game_id: str) -> bytes | None:
        key = _record_key(game_id)
        return self._run(lambda: self.client.get(key))  # type: ignore[no-any-return]

    @contextmanager
    def watch(self, game_id: str) -> Iterator[GameWatch]:
        with self.hub.watch(game_id) as watch:
            yield _RedisWatch(self, game_id, watch)

    @property
    def hub(self) -> Hub:
        """This worker's notification hub, made on first use (after gunicorn forked)."""
        with self._hub_lock:
            if self._hub is None:
                self._hub = self._run(lambda: Hub(self.client, sharded=self._sharded()))
            return self._hub

    def _sharded(self) -> bool:
        """Sharded pub/sub on a Redis Cluster whose nodes have it (Redis 7); plain pub/sub
        on one Redis (where the two are the same) and on an older cluster."""
        if not isinstance(self.client, redis.RedisCluster):
            return False
        version = self.client.info("server", target_nodes=redis.RedisCluster.RANDOM)
        return int(str(version["redis_version"]).split(".")[0]) >= 7

    def _publish(self, game_id: str) -> tuple[str, str]:
        """The save script's publish command and channel for ``game_id``."""
        return ("SPUBLISH" if self.hub.sharded else "PUBLISH"), channel_of(game_id)

    def wake_all(self) -> None:
        with self._hub_lock:
            hub = self._hub
        if hub is not None:
            hub.wake_all()

    def put_ticket(self, game_id: str, ticket_hash: str, value: str, ttl_seconds: int) -> bool:
        key = _ticket_key(game_id, ticket_hash)
        return bool(self._run(lambda: self.client.set(key, value, ex=ttl_seconds, nx=True)))

    def take_ticket(self, game_id: str, ticket_hash: str) -> str | None:
        key = _ticket_key(game_id, ticket_hash)
        value = self._run(lambda: self.client.getdel(key))
        return None if value is None else value.decode()

    def close(self) -> None:
        """Stop the hub (waking its waiters) and close the connections: a worker's exit."""
        with self._hub_lock:
            hub, self._hub = self._hub, None
        if hub is not None:
            hub.close()
        self.client.close()

    def ping(self) -> None:
        self._run(self.client.ping)


class _RedisWatch(GameWatch):
    """A watch on the worker's hub: waiters woken by one move share one read of it."""

    def __init__(self, store: RedisGameStore, game_id: str, watch: Watch) -> None:
        self._store = store
        self.game_id = game_id
        self._watch = watch

    @property
    def store(self) -> RedisGameStore:
        return self._store

    def wait(self, timeout: float) -> bool:
        return self._watch.wait(timeout)

    def shared(self, key: Hashable, fn: Callable[[], T],
               accept: Callable[[T], bool] | None = None) -> T:
        return self._watch.shared(key, fn, accept)
