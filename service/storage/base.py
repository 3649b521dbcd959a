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
from collections.abc import Callable, Hashable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TypeVar

from service.engine import Event, GameState

T = TypeVar("T")

__all__ = [
    "LISTINGS",
    "GameExistsError",
    "GameRecord",
    "GameStore",
    "GameWatch",
    "ReplyKeySupersededError",
    "StorageError",
    "StorageUnavailableError",
    "StoredReply",
    "UnknownGameError",
    "VersionConflictError",
]


#: The lobby's listings (see :meth:`GameStore.list_game`): games with open seats, and
#: games being played (to spectate).
LISTINGS = ("open", "in_progress")


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


class ReplyKeySupersededError(StorageError):
    """A reply key older than its slot's latest: that request was answered and then
    followed by a newer one of the same seat, so it may neither act again nor replay."""


class StorageUnavailableError(StorageError):
    """The backend cannot be reached or did not answer in time (the service answers 503)."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A loaded game: the engine state plus, per seat, the sha256 of its token (None: open)."""

    game_id: str
    state: GameState
    token_hashes: tuple[str | None, ...]
    #: Unix seconds (None: a game stored before it was kept); not part of what a game *is*,
    #: so two loads of one game compare equal whoever made them
    created_at: float | None = field(default=None, compare=False)

    @property
    def open_seats(self) -> list[int]:
        """The seats nobody has claimed yet (nobody may act until this is empty)."""
        return [s for s, h in enumerate(self.token_hashes) if h is None]


#: How many superseded keys a reply slot remembers besides its latest (see :meth:`GameStore.save`).
SUPERSEDED_KEYS_KEPT = 16


def split_reply_key(reply_key: str) -> tuple[str, str]:
    """``"<slot>:<key id>"`` as (slot, key id); a key without ``:`` is its own slot."""
    slot, sep, key_id = reply_key.rpartition(":")
    return (slot, key_id) if sep else (reply_key, reply_key)


@dataclass(frozen=True, slots=True)
class StoredReply:
    """The first response to an idempotent request, replayed on a retry with the same key."""

    fingerprint: str
    status: int
    etag: str | None
    body: bytes


class GameWatch(ABC):
    """A waiter's handle on one game, from :meth:`GameStore.watch`.

    Why reads go through the watch: when one move wakes thousands of waiters of a game
    in one worker, they all want the same new state. A watch may hand every waiter
    woken by the same move one shared read (and one shared rendering, :meth:`shared`),
    so the cost of a move does not grow with the number of its watchers.
    """

    game_id: str

    @abstractmethod
    def wait(self, timeout: float) -> bool:
        """Sleep until the game may have changed since the last wake-up (``True``: read it
        again), or ``timeout`` seconds pass (``False``). Never polls the backend."""

    def load(self, at_least: int | None = None) -> GameRecord:
        """The game as it is now. With ``at_least``, another waiter's read since the last
        wake-up will do if its version is at least that (a waiter never goes back behind
        what it has seen); ``None`` reads afresh (and that read serves the others)."""
        accept = (lambda r: False) if at_least is None else (
            lambda r: r.state.version >= at_least)
        return self.shared(("load",), lambda: self.store.load(self.game_id), accept)

    def events(self, after: int, limit: int) -> list[Event]:
        """Like :meth:`GameStore.events`, shared the same way as :meth:`load`."""
        return self.shared(("events", after, limit),
                           lambda: self.store.events(self.game_id, after, limit))

    @abstractmethod
    def shared(self, key: Hashable, fn: Callable[[], T],
               accept: Callable[[T], bool] | None = None) -> T:
        """``fn()``, computed at most once per wake-up for the waiters asking for ``key``;
        ``accept(value)`` may refuse another waiter's value (then ``fn()`` runs again)."""

    @property
    @abstractmethod
    def store(self) -> GameStore:
        """The store this watch reads from."""


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
        record: bytes | None = None,
    ) -> StoredReply | None:
        """Compare-and-set: write ``state`` (and its events) only if the stored version is
        ``expected_version``, else raise :class:`VersionConflictError`.

        With ``reply_key`` (``"<slot>:<key id>"``: the slot is the acting seat's, the key id
        the hash of its Idempotency-Key), ``reply`` is stored under it in the same step,
        unless that key's reply is already stored: then nothing is written and that earlier
        reply is returned (two retries of one request racing each other still act once).

        Why one reply per slot: a client retries only its latest request (it waits for an
        answer before sending the next), so a seat needs one reply kept, not one per action
        (which made replies 95 % of a game's memory). A new key replaces its slot's reply;
        the slot remembers the ids of its last :data:`SUPERSEDED_KEYS_KEPT` replaced keys,
        and one of those raises :class:`ReplyKeySupersededError` (nothing written) rather
        than act a second time. An older key than that is new to the store (a client using
        ``If-Match`` then gets a version conflict, as the game has moved on).

        ``record`` (the save of the move that finished the game) is the game's record,
        written in the same step unless one is stored already (see :meth:`put_record`).
        """

    @abstractmethod
    def stored_reply(self, game_id: str, reply_key: str) -> StoredReply | None:
        """The reply stored under ``reply_key`` by an earlier :meth:`save`, if any;
        :class:`ReplyKeySupersededError` if that key was replaced by a newer one."""

    @abstractmethod
    def put_record(self, game_id: str, record: bytes) -> bool:
        """Keep a finished game's record (opaque bytes) for the record TTL, unless one is
        stored already (``False``: nothing written; a record is never replaced)."""

    @abstractmethod
    def load_record(self, game_id: str) -> bytes | None:
        """The record stored by :meth:`save` or :meth:`put_record`; ``None`` if none (the
        game is not finished, or its record expired). Outlives the game's other keys."""

    @abstractmethod
    def events(self, game_id: str, after: int, limit: int) -> list[Event]:
        """Up to ``limit`` events with ``seq > after``, in order."""

    def all_events(self, game_id: str, after: int = 0) -> list[Event]:
        """Every event with ``seq > after``, in order (read a page of 1,000 at a time)."""
        out: list[Event] = []
        while True:
            page = self.events(game_id, out[-1].seq if out else after, 1000)
            out.extend(page)
            if len(page) < 1000:
                return out

    @abstractmethod
    def watch(self, game_id: str) -> AbstractContextManager[GameWatch]:
        """Follow ``game_id`` for the duration of a ``with`` block (see :class:`GameWatch`).

        Read the game through the watch *after* entering it: a move saved before that
        read is in it, and every move after it wakes :meth:`GameWatch.wait`.
        """

    @abstractmethod
    def wake_all(self) -> None:
        """Wake every waiter of this process to look again (a graceful shutdown: a stream
        that sees the service stopping ends at once instead of at its next move)."""

    @abstractmethod
    def put_ticket(self, game_id: str, ticket_hash: str, value: str, ttl_seconds: int) -> bool:
        """Store a single-use ticket of ``game_id`` under the sha256 of its secret for
        ``ttl_seconds``; ``False`` (nothing written) if that hash is already stored."""

    @abstractmethod
    def take_ticket(self, game_id: str, ticket_hash: str) -> str | None:
        """The value of a ticket, removed in the same step (so it serves once); ``None``
        if there is none (never issued, used, or expired)."""

    @abstractmethod
    def list_game(self, game_id: str, listing: str, created: float) -> None:
        """Put ``game_id`` on the lobby's ``listing`` (one of :data:`LISTINGS`), ordered by
        its ``created`` time (Unix seconds).

        Why the index is not written by the game's own save: on a Redis Cluster an index
        of many games cannot share one game's key slot, so no script can write both. The
        listing is a hint that readers check against the games themselves (an entry
        whose game expired, filled up or finished is dropped when read); so a game is
        listed *before* it is created (a failed creation leaves an entry that reads drop)
        and moved after it changes (a failed move leaves an entry that reads correct)."""

    @abstractmethod
    def relist_game(self, game_id: str, listing: str, to: str | None) -> None:
        """Move ``game_id`` from ``listing`` to ``to`` (``None``: off the lobby), keeping its
        created time; nothing if it is not on ``listing`` (an unlisted game stays so)."""

    @abstractmethod
    def listed(self, listing: str, before: tuple[float, str] | None,
               count: int) -> list[tuple[str, float]]:
        """Up to ``count`` ``(game_id, created)`` of ``listing``, newest first, strictly
        after the cursor ``before`` (the last pair of the previous page)."""

    @abstractmethod
    def plan_visit(self, game_id: str, at: float) -> None:
        """Ask the sweeper (``python -m service.sweep``) to look at ``game_id`` at ``at``
        (Unix seconds), replacing any earlier plan for it.

        Why a schedule beside the games: a turn clock or a bot seat is played by whoever
        next reads the game, and a game nobody reads (every human gone, bots whose
        worker died) would wait for its TTL. Like the listings it is one index across
        games, so it is written apart from the game's own save and is only a hint: the
        sweeper checks the game itself when the time comes."""

    @abstractmethod
    def take_visits(self, now: float, count: int, lease_seconds: float) -> list[str]:
        """Up to ``count`` games whose visit is due at ``now``, each moved ``lease_seconds``
        later in the same atomic step: no two sweepers take the same game within a lease,
        and a game whose sweeper died is taken again when its lease runs out."""

    @abstractmethod
    def drop_visit(self, game_id: str) -> None:
        """Take ``game_id`` off the schedule (finished, gone, or nothing left to play)."""

    @abstractmethod
    def visits_due(self, now: float) -> tuple[int, float | None]:
        """How many visits are due at ``now``, and when the earliest planned one is (Unix
        seconds; ``None``: the schedule is empty): whether the sweepers keep up."""

    @abstractmethod
    def load_many(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        """The games of ``game_ids`` in one round trip (``None``: no such game)."""

    @abstractmethod
    def ping(self) -> None:
        """Raise :class:`StorageUnavailableError` unless the backend answers."""
