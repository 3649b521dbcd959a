"""An in-memory :class:`~service.storage.base.GameStore`, for fast tests of the service layer.

Why it exists: the service layer's rules (compare-and-set, retries on a lost race,
idempotent replies, waiting for a turn) can then be tested in milliseconds, without
a Redis server. The service itself runs only on :class:`~.redis_store.RedisGameStore`;
this store keeps games in one process, forever (no TTLs), so it is never wired into
the app's factory. Everything one write changes is changed under one lock, which is
what the Redis store's Lua scripts guarantee there; watches block on a
``threading.Condition`` that every write notifies, as the Redis store's hub wakes
every waiter of a game when its save is published.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from service.engine import Event, GameState

from .base import (
    LISTINGS,
    SUPERSEDED_KEYS_KEPT,
    GameExistsError,
    GameRecord,
    GameStore,
    GameWatch,
    ReplyKeySupersededError,
    StoredReply,
    UnknownGameError,
    VersionConflictError,
    split_reply_key,
)

__all__ = ["MemoryGameStore"]

T = TypeVar("T")


@dataclass
class _Game:
    state: GameState
    token_hashes: tuple[str | None, ...]
    events: list[Event] = field(default_factory=list)
    #: per reply slot: the key ids, latest first (then the superseded ones), and its reply
    replies: dict[str, tuple[list[str], StoredReply]] = field(default_factory=dict)
    changes: int = 0  # writes so far, so a watch can tell that something happened
    created_at: float = field(default_factory=time.time)


def _reply_of(game: _Game, reply_key: str) -> StoredReply | None:
    """The reply of ``reply_key`` if it is its slot's latest; raises if it was superseded."""
    slot, key_id = split_reply_key(reply_key)
    ids, reply = game.replies.get(slot, ([], None))
    if ids and ids[0] == key_id:
        return reply
    if key_id in ids:
        raise ReplyKeySupersededError(reply_key)
    return None


class MemoryGameStore(GameStore):
    """Games in a dict, one lock for all of them (tests hold a handful of games)."""

    def __init__(self) -> None:
        self._games: dict[str, _Game] = {}
        self._changed = threading.Condition()
        self._wakeups = 0  # wake_all() calls: a watch wakes on these too
        self._tickets: dict[tuple[str, str], tuple[str, float]] = {}
        self._listings: dict[str, dict[str, float]] = {name: {} for name in LISTINGS}
        self._visits: dict[str, float] = {}
        self._records: dict[str, bytes] = {}  # kept apart from the games, as on Redis

    def _game(self, game_id: str) -> _Game:
        game = self._games.get(game_id)
        if game is None:
            raise UnknownGameError(game_id)
        return game

    def create(
        self, game_id: str, state: GameState, token_hashes: Sequence[str | None],
        events: Sequence[Event],
    ) -> None:
        with self._changed:
            if game_id in self._games:
                raise GameExistsError(game_id)
            self._games[game_id] = _Game(state, tuple(token_hashes), list(events))
            self._changed.notify_all()

    def load(self, game_id: str) -> GameRecord:
        with self._changed:
            game = self._game(game_id)
            return GameRecord(game_id, game.state, game.token_hashes, game.created_at)

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
        with self._changed:
            game = self._games.get(game_id)
            if reply_key is not None and game is not None:
                earlier = _reply_of(game, reply_key)
                if earlier is not None:
                    return earlier
            if game is None:
                raise UnknownGameError(game_id)
            if game.state.version != expected_version:
                raise VersionConflictError(game.state.version)
            game.state = state
            if token_hashes is not None:
                game.token_hashes = tuple(token_hashes)
            game.events.extend(events)
            if reply_key is not None and reply is not None:
                slot, key_id = split_reply_key(reply_key)
                ids, _ = game.replies.get(slot, ([], reply))
                game.replies[slot] = ([key_id, *ids][: 1 + SUPERSEDED_KEYS_KEPT], reply)
            if record is not None:
                self._records.setdefault(game_id, record)
            game.changes += 1
            self._changed.notify_all()
            return None

    def put_record(self, game_id: str, record: bytes) -> bool:
        with self._changed:
            return self._records.setdefault(game_id, record) is record

    def load_record(self, game_id: str) -> bytes | None:
        with self._changed:
            return self._records.get(game_id)

    def stored_reply(self, game_id: str, reply_key: str) -> StoredReply | None:
        with self._changed:
            game = self._games.get(game_id)
            return None if game is None else _reply_of(game, reply_key)

    def events(self, game_id: str, after: int, limit: int) -> list[Event]:
        with self._changed:
            game = self._games.get(game_id)
            if game is None:
                return []  # as an expired stream reads on Redis
            return [e for e in game.events if e.seq > after][:limit]

    @contextmanager
    def watch(self, game_id: str) -> Iterator[GameWatch]:
        yield _MemoryWatch(self, game_id)

    def _changes(self, game_id: str) -> tuple[int, int]:
        game = self._games.get(game_id)
        return (-1 if game is None else game.changes), self._wakeups

    def wake_all(self) -> None:
        with self._changed:
            self._wakeups += 1
            self._changed.notify_all()

    def put_ticket(self, game_id: str, ticket_hash: str, value: str, ttl_seconds: int) -> bool:
        with self._changed:
            key = (game_id, ticket_hash)
            held = self._tickets.get(key)
            if held is not None and held[1] > time.monotonic():
                return False
            self._tickets[key] = (value, time.monotonic() + ttl_seconds)
            return True

    def take_ticket(self, game_id: str, ticket_hash: str) -> str | None:
        with self._changed:
            held = self._tickets.pop((game_id, ticket_hash), None)
            if held is None or held[1] <= time.monotonic():
                return None
            return held[0]

    def list_game(self, game_id: str, listing: str, created: float) -> None:
        with self._changed:
            self._listings[listing][game_id] = created

    def relist_game(self, game_id: str, listing: str, to: str | None) -> None:
        with self._changed:
            created = self._listings[listing].pop(game_id, None)
            if created is not None and to is not None:
                self._listings[to][game_id] = created

    def listed(self, listing: str, before: tuple[float, str] | None,
               count: int) -> list[tuple[str, float]]:
        with self._changed:
            rows = sorted(((c, g) for g, c in self._listings[listing].items()), reverse=True)
        return [(g, c) for c, g in rows if before is None or (c, g) < before][:count]

    def plan_visit(self, game_id: str, at: float) -> None:
        with self._changed:
            self._visits[game_id] = at

    def take_visits(self, now: float, count: int, lease_seconds: float) -> list[str]:
        with self._changed:
            due = sorted((at, g) for g, at in self._visits.items() if at <= now)[:count]
            for _, game_id in due:
                self._visits[game_id] = now + lease_seconds
            return [g for _, g in due]

    def drop_visit(self, game_id: str) -> None:
        with self._changed:
            self._visits.pop(game_id, None)

    def visits_due(self, now: float) -> tuple[int, float | None]:
        with self._changed:
            times = list(self._visits.values())
        return sum(1 for at in times if at <= now), min(times, default=None)

    def load_many(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        with self._changed:
            return [None if (g := self._games.get(gid)) is None
                    else GameRecord(gid, g.state, g.token_hashes) for gid in game_ids]

    def ping(self) -> None:
        return None


class _MemoryWatch(GameWatch):
    """Wakes on every write to the game (one condition for the whole store); nothing is
    shared between waiters, since reads here cost nothing."""

    def __init__(self, store: MemoryGameStore, game_id: str) -> None:
        self._store = store
        self.game_id = game_id
        with store._changed:
            self._seen = store._changes(game_id)

    @property
    def store(self) -> MemoryGameStore:
        return self._store

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._store._changed:
            while self._store._changes(self.game_id) == self._seen:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._store._changed.wait(remaining)
            self._seen = self._store._changes(self.game_id)
            return True

    def shared(self, key: Hashable, fn: Callable[[], T],
               accept: Callable[[T], bool] | None = None) -> T:
        return fn()
