"""An in-memory :class:`~service.storage.base.GameStore`, for fast tests of the service layer.

Why it exists: the service layer's rules (compare-and-set, retries on a lost race,
idempotent replies, waiting for a turn) can then be tested in milliseconds, without
a Redis server. The service itself runs only on :class:`~.redis_store.RedisGameStore`;
this store keeps games in one process, forever (no TTLs), so it is never wired into
the app's factory. Everything one write changes is changed under one lock, which is
what the Redis store's Lua scripts guarantee there; waits block on a
``threading.Condition`` that every write notifies, as ``XREAD BLOCK`` wakes every
waiter on a stream.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from service.engine import Event, GameState

from .base import (
    GameExistsError,
    GameRecord,
    GameStore,
    StoredReply,
    UnknownGameError,
    VersionConflictError,
)

__all__ = ["MemoryGameStore"]


@dataclass
class _Game:
    state: GameState
    token_hashes: tuple[str | None, ...]
    events: list[Event] = field(default_factory=list)
    replies: dict[str, StoredReply] = field(default_factory=dict)


class MemoryGameStore(GameStore):
    """Games in a dict, one lock for all of them (tests hold a handful of games)."""

    def __init__(self) -> None:
        self._games: dict[str, _Game] = {}
        self._changed = threading.Condition()

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
            return GameRecord(game_id, game.state, game.token_hashes)

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
    ) -> StoredReply | None:
        with self._changed:
            game = self._games.get(game_id)
            if reply_key is not None and game is not None and reply_key in game.replies:
                return game.replies[reply_key]
            if game is None:
                raise UnknownGameError(game_id)
            if game.state.version != expected_version:
                raise VersionConflictError(game.state.version)
            game.state = state
            if token_hashes is not None:
                game.token_hashes = tuple(token_hashes)
            game.events.extend(events)
            if reply_key is not None and reply is not None:
                game.replies[reply_key] = reply
            self._changed.notify_all()
            return None

    def stored_reply(self, game_id: str, reply_key: str) -> StoredReply | None:
        with self._changed:
            game = self._games.get(game_id)
            return None if game is None else game.replies.get(reply_key)

    def events(self, game_id: str, after: int, limit: int) -> list[Event]:
        with self._changed:
            game = self._games.get(game_id)
            if game is None:
                return []  # as an expired stream reads on Redis
            return [e for e in game.events if e.seq > after][:limit]

    def wait(self, game_id: str, after_seq: int, timeout: float) -> int | None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                game = self._games.get(game_id)
                if game is not None and game.events and game.events[-1].seq > after_seq:
                    return game.events[-1].seq
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                self._changed.wait(remaining)

    def turn(self, game_id: str) -> int | None:
        with self._changed:
            game = self._games.get(game_id)
            if game is None:
                return None
            return -1 if game.state.finished else game.state.current_seat

    def ping(self) -> None:
        return None
