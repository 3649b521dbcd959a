"""The storage interface: what the service needs from wherever games live.

The HTTP layer and the play functions talk to :class:`GameStore` only, so the
rules of persistence (one atomic compare-and-set per move, events written with
the state, TTLs) are stated once here and implemented once per backend. The
Redis implementation in :mod:`.redis_store` is the only one the service runs
on; :mod:`.memory` implements the same promises in one process, for fast tests of
the service layer. The interface keeps Redis out of the game logic.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass

from service.engine import Event, GameState

__all__ = [
    "GameExistsError",
    "GameRecord",
    "GameStore",
    "StorageError",
    "StorageUnavailableError",
    "StoredReply",
    "UnknownGameError",
    "VersionConflictError",
]


class StorageError(Exception):
    """Base of the errors a store raises."""


class UnknownGameError(StorageError):
    """No game with this id (never created, or expired after its TTL)."""


class GameExistsError(StorageError):
    """A game id was created twice (ids are random, so this means a bug or a collision)."""


class VersionConflictError(StorageError):
    """The stored version is not the one the write was computed from: nothing was written."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class StorageUnavailableError(StorageError):
    """The backend cannot be reached or did not answer in time (the service answers 503)."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A loaded game: the engine state plus, per seat, the sha256 of its token (None: open)."""

    game_id: str
    state: GameState
    token_hashes: tuple[str | None, ...]

    @property
    def open_seats(self) -> list[int]:
        """The seats nobody has claimed yet (nobody may act until this is empty)."""
        return [s for s, h in enumerate(self.token_hashes) if h is None]


@dataclass(frozen=True, slots=True)
class StoredReply:
    """The first response to an idempotent request, replayed on a retry with the same key."""

    fingerprint: str
    status: int
    etag: str | None
    body: bytes


class GameStore(ABC):
    """Where games live. Every write is atomic: state, tokens and events together or nothing."""

    @abstractmethod
    def create(
        self, game_id: str, state: GameState, token_hashes: Sequence[str | None],
        events: Sequence[Event],
    ) -> None:
        """Store a new game and its first events; :class:`GameExistsError` if the id is taken."""

    @abstractmethod
    def load(self, game_id: str) -> GameRecord:
        """The current game; :class:`UnknownGameError` if there is none."""

    @abstractmethod
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
        """Compare-and-set: write ``state`` (and its events) only if the stored version is
        ``expected_version``, else raise :class:`VersionConflictError`.

        With ``reply_key``, ``reply`` is stored under it in the same step, unless a reply is
        already stored there: then nothing is written and that earlier reply is returned
        (two retries of one request racing each other still act once).
        """

    @abstractmethod
    def stored_reply(self, game_id: str, reply_key: str) -> StoredReply | None:
        """The reply stored under ``reply_key`` by an earlier :meth:`save`, if any."""

    @abstractmethod
    def events(self, game_id: str, after: int, limit: int) -> list[Event]:
        """Up to ``limit`` events with ``seq > after``, in order."""

    @abstractmethod
    def wait(self, game_id: str, after_seq: int, timeout: float) -> int | None:
        """Block until an event with ``seq > after_seq`` exists, or ``timeout`` passes.

        Returns the ``seq`` of the newest such event (``None`` after the timeout).
        Blocks on the backend, never by polling.
        """

    @abstractmethod
    def turn(self, game_id: str) -> int | None:
        """The seat on turn as last saved (``-1`` once the game is finished), read without
        loading the game, so a waiting seat woken by someone else's move can go back to
        waiting cheaply; ``None`` when the store does not know (then load the game)."""

    @abstractmethod
    def ping(self) -> None:
        """Raise :class:`StorageUnavailableError` unless the backend answers."""
