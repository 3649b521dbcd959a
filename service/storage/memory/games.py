"""The in-memory :class:`~service.storage.games.GameStore`, for fast tests of the service layer.

Why it exists: the service layer's rules (compare-and-set, retries on a lost race,
idempotent replies, waiting for a turn) can then be tested in milliseconds, without a
Redis server. The service itself runs only on the Redis stores; this one keeps games
in one process, forever (no TTLs), so it is never wired into a deployment. Everything
one write changes is changed under the shared lock (:mod:`.shared`), which is what the
Redis store's Lua scripts guarantee there; watches wake on every write to their game,
as the Redis store's hub wakes every waiter of a game when its save is published.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar

from service.engine import Event, GameState

from ..errors import GameExistsError, UnknownGameError, VersionConflictError
from ..games import GameRecord, GameStore, GameWatch
from ..replies import SUPERSEDED_KEYS_KEPT, StoredReply, split_reply_key
from .replies import slot_reply
from .shared import ChannelWaiter, Shared, StoredGame

__all__ = ["MemoryGameStore"]

T = TypeVar("T")


class MemoryGameStore(GameStore):
    """Games in a dict of ``shared``, one lock for all of them (tests hold a handful)."""

    def __init__(self, shared: Shared) -> None:
        self.shared = shared

    def _game(self, game_id: str) -> StoredGame:
        game = self.shared.games.get(game_id)
        if game is None:
            raise UnknownGameError(game_id)
        return game

    def create(
        self, game_id: str, state: GameState, token_hashes: Sequence[str | None],
        events: Sequence[Event], handled: int = 0,
    ) -> None:
        with self.shared.lock:
            if game_id in self.shared.games:
                raise GameExistsError(game_id)
            self.shared.games[game_id] = StoredGame(state, tuple(token_hashes), list(events),
                                                    handled=handled)
            self.shared.announce(game_id)

    def load(self, game_id: str) -> GameRecord:
        with self.shared.lock:
            game = self._game(game_id)
            return GameRecord(game_id, game.state, game.token_hashes, game.created_at,
                              game.handled)

    def mark_handled(self, game_id: str, seq: int) -> None:
        with self.shared.lock:
            game = self.shared.games.get(game_id)
            if game is not None:
                game.handled = max(game.handled, seq)

    def load_many(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        with self.shared.lock:
            games = self.shared.games
            return [None if (g := games.get(gid)) is None
                    else GameRecord(gid, g.state, g.token_hashes, g.created_at, g.handled)
                    for gid in game_ids]

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
        with self.shared.lock:
            game = self.shared.games.get(game_id)
            if reply_key is not None and game is not None:
                earlier = slot_reply(game, reply_key)
                if earlier is not None:
                    return earlier
            if game is None:
                raise UnknownGameError(game_id)
            if game.state.version != expected_version:
                raise VersionConflictError(game.state.version)
            game.state = state
            if handled is not None:
                game.handled = max(game.handled, handled)
            if token_hashes is not None:
                game.token_hashes = tuple(token_hashes)
            game.events.extend(events)
            if reply_key is not None and reply is not None:
                slot, key_id = split_reply_key(reply_key)
                ids, _ = game.replies.get(slot, ([], reply))
                game.replies[slot] = ([key_id, *ids][: 1 + SUPERSEDED_KEYS_KEPT], reply)
            if record is not None:
                self.shared.records.setdefault(game_id, record)
            self.shared.announce(game_id)
            return None

    def events(self, game_id: str, after: int, limit: int) -> list[Event]:
        with self.shared.lock:
            game = self.shared.games.get(game_id)
            if game is None:
                return []  # as an expired stream reads on Redis
            return [e for e in game.events if e.seq > after][:limit]

    @contextmanager
    def watch(self, game_id: str) -> Iterator[GameWatch]:
        yield _MemoryWatch(self, game_id, self.shared.waiter(game_id))

    def wake_all(self) -> None:
        self.shared.wake_all()

    def ping(self) -> None:
        return None


class _MemoryWatch(GameWatch):
    """Wakes on every write to the game; nothing is shared between waiters, since reads
    here cost nothing."""

    def __init__(self, store: MemoryGameStore, game_id: str, waiter: ChannelWaiter) -> None:
        self._store = store
        self.game_id = game_id
        self._waiter = waiter

    @property
    def store(self) -> MemoryGameStore:
        return self._store

    def wait(self, timeout: float) -> bool:
        return self._waiter.wait(timeout)

    def shared(self, key: Hashable, fn: Callable[[], T],
               accept: Callable[[T], bool] | None = None) -> T:
        return fn()
