"""Games in Redis: the state hash and the event stream, written by one Lua script each
(:mod:`.scripts`), read with plain commands; waiting on the process's hub.

The save script also writes, in the same atomic step, the acting seat's reply slot
(:mod:`.replies`) and the finished game's record (:mod:`.records`), and publishes the new
version on the game's channel.

A game with open seats expires ``open_ttl_seconds`` after its creation (claims that
leave seats open do not renew it), so games nobody joins cannot fill Redis; the save
that claims the last seat gives it the normal TTL. Otherwise the game hash and the event
stream expire ``GAME_TTL_SECONDS`` after each move, and ``FINISHED_GAME_TTL_SECONDS``
after the last one; a seat's reply ``IDEMPOTENCY_TTL_SECONDS`` after its latest keyed
action; the record ``RECORD_TTL_SECONDS`` after the game finished.

Why a stream for events: the event log is append-only and read by position, which is
what a stream is.

Why publish from the save script: waiting clients park on the worker's notification
hub (:mod:`service.storage.hub`: one subscription per worker, not a connection per
waiter), and a notification sent in the same atomic step as the save can never announce
a state that is not yet readable. On a Redis Cluster of Redis 7 the channel is a sharded
one (``SPUBLISH``), so a game's notifications stay on its shard.

Why orjson: the state is written and read on every move; orjson is a maintained, widely
used C library that encodes several times faster than the standard ``json`` module,
byte-for-byte deterministic, with no code of ours.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import orjson

from service.engine import Event, GameState, to_dict

from .. import event_codec
from ..errors import (
    GameExistsError,
    ReplyKeySupersededError,
    UnknownGameError,
    VersionConflictError,
)
from ..games import GameRecord, GameStore, GameWatch
from ..hub import Watch
from ..replies import SUPERSEDED_KEYS_KEPT, StoredReply, split_reply_key
from .connection import RedisConnection
from .records import record_key
from .replies import reply_blob, reply_of, slot_key
from .scripts import CREATE, GAME_FIELDS, HANDLED, SAVE, game_keys, record_of

__all__ = ["RedisGameStore", "event_of", "game_keys"]

T = TypeVar("T")


def event_of(blob: bytes) -> Event:
    """An event as the stream stores it (:mod:`service.storage.event_codec`)."""
    return event_codec.decode(blob)


def _event_args(events: Sequence[Event]) -> list[Any]:
    args: list[Any] = []
    for e in events:
        args += [f"{e.seq}-0", event_codec.encode(e)]
    return args


class RedisGameStore(GameStore):
    """Games in Redis, on the process's shared :class:`.connection.RedisConnection`."""

    def __init__(
        self,
        connection: RedisConnection,
        *,
        ttl_seconds: int,
        reply_ttl_seconds: int,
        finished_ttl_seconds: int | None = None,
        open_ttl_seconds: int | None = None,
        record_ttl_seconds: int = 90 * 24 * 3600,
    ) -> None:
        self.connection = connection
        self.ttl = int(ttl_seconds)
        # A finished game no longer changes: it is kept for its players to see the end,
        # not for play, and it is what fills a shard (its keys outnumber the live games')
        self.finished_ttl = self.ttl if finished_ttl_seconds is None else int(finished_ttl_seconds)
        self.open_ttl = self.ttl if open_ttl_seconds is None else int(open_ttl_seconds)
        self.reply_ttl = int(reply_ttl_seconds)
        self.record_ttl = int(record_ttl_seconds)
        # redis-py's Script runs EVALSHA and reloads the script if Redis lost it (a restart)
        self._create = connection.client.register_script(CREATE)
        self._save = connection.client.register_script(SAVE)
        self._handled = connection.client.register_script(HANDLED)

    @property
    def client(self) -> Any:
        """The shared redis-py client."""
        return self.connection.client

    def create(
        self, game_id: str, state: GameState, token_hashes: Sequence[str | None],
        events: Sequence[Event], handled: int = 0,
    ) -> None:
        args = [
            state.version,
            orjson.dumps(to_dict(state)),
            orjson.dumps(list(token_hashes)),
            self.open_ttl if None in token_hashes else self.ttl,
            repr(time.time()),
            handled,
            *_event_args(events),
        ]
        created = self.connection.run(
            lambda: self._create(keys=list(game_keys(game_id)), args=args))
        if not created:
            raise GameExistsError(game_id)

    def load(self, game_id: str) -> GameRecord:
        key, _ = game_keys(game_id)
        record = record_of(game_id, self.connection.run(
            lambda: self.client.hmget(key, GAME_FIELDS)))
        if record is None:
            raise UnknownGameError(game_id)
        return record

    def mark_handled(self, game_id: str, seq: int) -> None:
        key, _ = game_keys(game_id)
        self.connection.run(lambda: self._handled(keys=[key], args=[seq]))

    def load_many(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        def read() -> list[Any]:
            pipe = self.client.pipeline(transaction=False)
            for game_id in game_ids:
                pipe.hmget(game_keys(game_id)[0], GAME_FIELDS)
            replies: list[Any] = pipe.execute()  # a reply per command, in order
            return replies

        rows = self.connection.run(read) if game_ids else []
        return [record_of(gid, row) for gid, row in zip(game_ids, rows, strict=True)]

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
        handled: int | None = None,
    ) -> StoredReply | None:
        keys = [*game_keys(game_id), record_key(game_id)]
        key_id = ""
        if reply_key is not None:
            slot, key_id = split_reply_key(reply_key)
            keys.append(slot_key(game_id, slot))
        args = [
            expected_version,
            state.version,
            orjson.dumps(to_dict(state)),
            b"" if token_hashes is None else orjson.dumps(list(token_hashes)),
            # a claim that leaves seats open keeps the open game's TTL (from its creation)
            b"" if token_hashes is not None and None in token_hashes
            else self.finished_ttl if state.finished else self.ttl,
            b"" if reply is None else reply_blob(reply),
            self.reply_ttl,
            *self.connection.publish_command(game_id),
            key_id,
            SUPERSEDED_KEYS_KEPT,
            b"" if record is None else record,
            self.record_ttl,
            b"" if handled is None else handled,
            *_event_args(events),
        ]
        status, value = self.connection.run(lambda: self._save(keys=keys, args=args))
        if status == 0:
            return None
        if status == 1:
            raise VersionConflictError(int(value))
        if status == 2:
            return reply_of(value)
        if status == 4:
            raise ReplyKeySupersededError(reply_key or "")
        raise UnknownGameError(game_id)

    def events(self, game_id: str, after: int, limit: int) -> list[Event]:
        _, stream = game_keys(game_id)
        entries = self.connection.run(
            lambda: self.client.xrange(stream, min=f"{after + 1}-0", max="+", count=limit)
        )
        return [event_of(fields[b"e"]) for _, fields in entries]

    @contextmanager
    def watch(self, game_id: str) -> Iterator[GameWatch]:
        with self.connection.hub.watch(game_id) as watch:
            yield _RedisWatch(self, game_id, watch)

    def wake_all(self) -> None:
        self.connection.wake_all()

    def ping(self) -> None:
        self.connection.ping()


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
        gate = self._store.connection.waiters_gate

        def gated() -> T:
            with gate:  # waiters' reads take at most their share of the pool
                return fn()

        return self._watch.shared(key, gated, accept)
