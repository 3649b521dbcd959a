"""Games and their event logs: what the service needs from wherever games live.

The HTTP layer and the play functions talk to :class:`GameStore` only, so the rules of
persistence (one atomic compare-and-set per move, events written with the state, TTLs)
are stated once here and implemented once per backend: :mod:`.redis.games`, the one the
service runs on, and :mod:`.memory.games`, the same promises in one process for fast
tests of the service layer. The interface keeps Redis out of the game logic.

Why the save also writes a reply and a record, which have interfaces of their own
(:mod:`.replies`, :mod:`.records`): they must never disagree with the move they belong
to, and only one atomic step can promise that. Those interfaces only read them back.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TypeVar

from service.engine import Event, GameState

from .replies import StoredReply

T = TypeVar("T")

__all__ = ["GameRecord", "GameStore", "GameWatch"]


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A loaded game: the engine state plus, per seat, the sha256 of its token (None: open)."""

    game_id: str
    state: GameState
    token_hashes: tuple[str | None, ...]
    #: Unix seconds (None: a game stored before it was kept); not part of what a game *is*,
    #: so two loads of one game compare equal whoever made them
    created_at: float | None = field(default=None, compare=False)
    #: the last event whose effects beyond the game have run (``service/play/effects.py``:
    #: the game's log is their outbox); ``None``: a game stored before it was kept, whose
    #: past effects ran the old way (its cursor starts at its next save)
    handled: int | None = field(default=None, compare=False)

    @property
    def open_seats(self) -> list[int]:
        """The seats nobody has claimed yet (nobody may act until this is empty)."""
        return [s for s, h in enumerate(self.token_hashes) if h is None]


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
        accept: Callable[[GameRecord], bool] = (lambda r: False) if at_least is None else (
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
        events: Sequence[Event], handled: int = 0,
    ) -> None:
        """Store a new game and its first events, its effects' cursor at ``handled`` (0:
        its opening events' effects are owed); :class:`~.errors.GameExistsError` if the
        id is taken."""

    @abstractmethod
    def load(self, game_id: str) -> GameRecord:
        """The current game; :class:`~.errors.UnknownGameError` if there is none."""

    @abstractmethod
    def mark_handled(self, game_id: str, seq: int) -> None:
        """Record that the effects of the game's events up to ``seq`` have run
        (:attr:`GameRecord.handled`): only ever forward, and nothing for a game that is
        gone. A new game's cursor starts at 0 (its opening events are owed)."""

    @abstractmethod
    def load_many(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        """The games of ``game_ids`` in one round trip (``None``: no such game)."""

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
        handled: int | None = None,
    ) -> StoredReply | None:
        """Compare-and-set: write ``state`` (and its events) only if the stored version is
        ``expected_version``, else raise :class:`~.errors.VersionConflictError`.

        With ``reply_key`` (``"<slot>:<key id>"``: the slot is the acting seat's, the key id
        the hash of its Idempotency-Key), ``reply`` is stored under it in the same step,
        unless that key's reply is already stored: then nothing is written and that earlier
        reply is returned (two retries of one request racing each other still act once).
        A new key replaces its slot's reply; a key the slot replaced lately raises
        :class:`~.errors.ReplyKeySupersededError`, nothing written (why: :mod:`.replies`).

        ``record`` (the save of the move that finished the game) is the game's record
        (opaque bytes), kept for the record TTL and written in the same step unless one
        is stored already: a record is never replaced, and this is the only write of it
        (:mod:`.records` reads it back).

        ``handled``: the effects' cursor set in the same step (a change that owes no
        effects, saved when none were owed before it: its cursor moves with it, and no
        one reads its events again for them).
        """

    @abstractmethod
    def events(self, game_id: str, after: int, limit: int) -> list[Event]:
        """Up to ``limit`` events with ``seq > after``, in order (none for an unknown game)."""

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
        """Wake every waiter of this process to look again, the seek board's too (a
        graceful shutdown: a stream that sees the service stopping ends at once instead
        of at its next move)."""

    @abstractmethod
    def ping(self) -> None:
        """Raise :class:`~.errors.StorageUnavailableError` unless the backend answers."""
