"""Accounts: players who persist across games, their games and their event stream.

What an account keeps (each behind the account's own hash tag, so on a Redis Cluster an
account lives on one shard and its writes are one script each):

* the account itself (:class:`Account`): its handle as chosen, whether it is a declared
  bot, the sha256 of its key (never the key), its settings;
* its games: those it plays (``active``) by when it joined, and those over
  (``finished``) by when they ended (readers check each game's state: like the lobby,
  an index across games that the games themselves correct). The finished index keeps
  what a record is kept (``RECORD_TTL_SECONDS``): each game that finishes takes out the
  entries that ended that long before it, so an account that plays for years holds
  about a record lifetime's worth; readers skip the games whose record is gone in
  between. Its order is the end time in whole milliseconds,
  then the game id (as Redis orders a sorted set's ties: byte by byte), so a position in
  it, ``(ended ms, game id)``, is a cursor that skips and repeats nothing, however many
  games ended in the same millisecond;
* its notes: the account's event stream (``challenge``, ``game_started``, ``your_turn``,
  ``game_finished``…), numbered 1, 2, 3… so a reader resumes after the last it saw.
  Appending is idempotent by a note id the caller derives from what the note is about
  (a game and its version), so a note written twice (a retried effect) is kept once.

A handle is unique regardless of case: the store keys accounts by the handle case-folded,
and a closed account keeps its handle taken (its finished games still show it, and
nobody may later pass for it). The games and the notes are kept by the handle folded too,
beside the account rather than in it: writing them neither reads the account nor needs
it to exist.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from .seeks import Waiter

#: How many of its latest note ids an account's stream remembers ("lately": a note
#: appended again after that many others is appended again).
NOTE_IDS_KEPT = 5_000

__all__ = ["NOTE_IDS_KEPT", "Account", "AccountStore", "Note", "folded"]


def folded(handle: str) -> str:
    """The form handles are compared in: case-folded (handles are ASCII, so lower case)."""
    return handle.casefold()


@dataclass(frozen=True, slots=True)
class Account:
    """One account as stored."""

    handle: str
    bot: bool
    key_hash: str
    created: float
    #: who may challenge it: "anyone", "bots" (declared bot accounts only) or "nobody"
    challenges_from: str = "anyone"
    webhook_url: str | None = None
    #: the secret webhook deliveries are signed with (it must be read back to sign)
    webhook_secret: str | None = None
    closed: bool = False
    #: its rated games analysed when they finish, within its quota (docs/analysis.md)
    analyse_rated: bool = False


@dataclass(frozen=True, slots=True)
class Note:
    """One event of an account's stream: its number and its body (with ``type``)."""

    seq: int
    body: Mapping[str, object]


class AccountStore(ABC):
    """Accounts by handle, with their games and notes."""

    @abstractmethod
    def create(self, account: Account) -> bool:
        """Store a new account; ``False`` (nothing written) if its handle, in any case,
        is taken (by a closed account too)."""

    @abstractmethod
    def load(self, handle: str) -> Account | None:
        """The account of ``handle`` in any case (``None``: no such account)."""

    @abstractmethod
    def update(self, handle: str, **changes: Any) -> Account | None:
        """Change fields of an open account (its key hash, its settings); the account as
        changed, ``None`` if there is none or it is closed."""

    @abstractmethod
    def add_game(self, handle: str, game_id: str, joined: float) -> None:
        """Index ``game_id`` among the account's active games (joined at ``joined``, kept
        to the millisecond), unless it is there already (its first time stands) or among
        its finished games (a late repeat of an effect never brings a game back)."""

    @abstractmethod
    def finish_game(self, handle: str, game_id: str, ended: float) -> None:
        """Move ``game_id`` from the account's active games to its finished ones, and drop
        the finished ones that ended more than the record lifetime before it."""

    @abstractmethod
    def games(self, handle: str, which: str, before: tuple[float, str] | None,
              count: int) -> list[tuple[str, float]]:
        """Up to ``count`` ``(game_id, time)`` of the account's ``active`` or ``finished``
        games, newest first (of one millisecond, in reverse id order), strictly after
        the cursor ``before`` (the previous page's last), however many games share its
        millisecond: a page shorter than ``count`` is the last."""

    @abstractmethod
    def finished_time(self, handle: str, game_id: str) -> int | None:
        """When ``game_id`` ended (ms), as the account's finished index has it; ``None`` if
        it is not among the account's finished games."""

    @abstractmethod
    def finished_page(self, handle: str, after: tuple[int, str] | None, count: int, *,
                      newest_first: bool, low: int | None = None,
                      high: int | None = None) -> list[tuple[str, int]]:
        """Up to ``count`` ``(game_id, ended ms)`` of the account's finished games in the
        index's order (``(ended ms, game id)``, reversed when ``newest_first``), strictly
        after the position ``after`` in that order, ended from ``low`` to ``high`` ms
        (both included; ``None``: unbounded). What an export pages through, a page at a
        time: one read a page (more only to step over the games that ended in ``after``'s
        own millisecond at or before it)."""

    @abstractmethod
    def append(self, handle: str, notes: Sequence[tuple[str, Mapping[str, object]]]) -> list[int]:
        """Append ``(note id, body)`` notes in order, each once (a note id among the
        stream's latest :data:`NOTE_IDS_KEPT` is skipped), bodies kept as JSON, and wake
        the stream's readers if any was appended; the numbers given (one per note
        appended)."""

    @abstractmethod
    def notes(self, handle: str, after: int, limit: int) -> list[Note]:
        """Up to ``limit`` notes numbered after ``after``, in order."""

    @abstractmethod
    def newest(self, handle: str) -> int:
        """The number of the account's newest note (0: none yet)."""

    @abstractmethod
    def watch(self, handle: str) -> AbstractContextManager[Waiter]:
        """Park on the account's stream: woken by the next append after entering."""

    @abstractmethod
    def wake(self, handle: str) -> None:
        """Wake the account's stream readers without a note (its streams hold its seeks:
        a seek opened, or a match waiting for them to look at their connections)."""
