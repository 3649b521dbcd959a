"""Ratings: each account's rating per preset, its history, the queue of rated games to
apply, and the leaderboards.

Why these operations, and why no result is lost or applied twice (docs/ratings.md):

* :meth:`RatingStore.enqueue` puts a finished rated game on one queue, once: a game
  queued or applied lately is not queued again, so the finishing request and the move
  worker's safety visit may both queue it. The queue is in the order games were queued,
  which is the order they finished.
* A rating worker takes the queue's *head* only. :meth:`RatingStore.compute_once` stores
  the game's new ratings before any account is touched (the first computation stands), so
  a worker killed halfway, or two workers on the same head, apply the same numbers.
* :meth:`RatingStore.apply` changes one account (its rating, its games count, one
  history point) in one atomic step, and only if that account has not had this game
  yet: idempotent per game and account. :meth:`RatingStore.done` then takes the game off
  the queue, so the next head is computed from ratings every earlier game has moved.

An account's ratings live behind its own hash tag, the queue behind one of its own, and
each leaderboard behind its own: on a Redis Cluster, accounts on different shards are
written one atomic step each, which is all the steps above need.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

__all__ = ["RatingStore"]


class RatingStore(ABC):
    """The accounts' ratings, the rating queue and the leaderboards."""

    # -- the queue --------------------------------------------------------------------

    @abstractmethod
    def enqueue(self, game_id: str, now: float) -> bool:
        """Queue a finished rated game unless it is queued or was applied within the last
        day: ``True`` if queued now (and a waiting worker woken)."""

    @abstractmethod
    def head(self) -> str | None:
        """The game at the head of the queue (the earliest queued), if any."""

    @abstractmethod
    def queued(self) -> int:
        """How many games wait in the queue (a worker's gauge)."""

    @abstractmethod
    def wait(self, seconds: float) -> None:
        """Block up to ``seconds`` or until a game is queued (a worker with nothing to do).
        A game queued while no worker waits leaves a wake-up (one at most, however many
        games), which the next wait takes at once; a queue that is not empty does not wake
        a wait by itself."""

    @abstractmethod
    def compute_once(self, game_id: str, result: dict[str, Any]) -> dict[str, Any]:
        """Store ``result`` as the game's new ratings unless one is stored already; the
        stored one (the first computation stands)."""

    @abstractmethod
    def computed(self, game_id: str) -> dict[str, Any] | None:
        """The game's stored computation, if any."""

    @abstractmethod
    def done(self, game_id: str, now: float) -> None:
        """Take the game off the queue and forget its computation; remember it as
        applied for a day (so a late :meth:`enqueue` does not queue it again)."""

    @abstractmethod
    def set_aside(self, game_id: str, why: str, now: float) -> None:
        """Take a game that cannot be rated off the queue (so the games after it are
        rated) and keep it apart with why, until :meth:`retry`; its computation, if one
        was stored, is kept (computed once: a retry applies the same numbers)."""

    @abstractmethod
    def aside(self) -> dict[str, dict[str, Any]]:
        """The games set aside: id -> ``{"why", "at"}``."""

    @abstractmethod
    def retry(self, game_id: str) -> bool:
        """Queue a game set aside again (at the queue's end): ``True`` if it was aside."""

    # -- the accounts -----------------------------------------------------------------

    @abstractmethod
    def ratings(self, handle: str) -> dict[str, dict[str, Any]]:
        """The account's rating per preset as stored (``rating``, ``deviation``,
        ``volatility``, ``games``, ``at``: its last rated game's end); ``{}`` if none."""

    @abstractmethod
    def apply(self, handle: str, preset: str, game_id: str, rating: dict[str, Any],
              point: dict[str, Any]) -> bool:
        """Set the account's rating in ``preset`` and append ``point`` to its history,
        in one step, unless this game was applied to it already: ``True`` if applied now."""

    @abstractmethod
    def history(self, handle: str, preset: str, start: int, count: int) -> list[dict[str, Any]]:
        """The account's history points in ``preset``, oldest first, from ``start``."""

    @abstractmethod
    def latest(self, handle: str, preset: str, count: int) -> list[dict[str, Any]]:
        """The account's last ``count`` history points in ``preset``, oldest first."""

    # -- the leaderboards -------------------------------------------------------------

    @abstractmethod
    def rank(self, preset: str, bot: bool, handle: str, rating: float | None) -> None:
        """Put (or move) ``handle`` on the preset's board of bots or of humans at
        ``rating``; ``None`` takes it off."""

    @abstractmethod
    def board(self, preset: str, bot: bool, start: int, count: int) -> list[str]:
        """Handles on the board by rating, highest first (of one rating, in reverse
        handle order), from ``start``."""

    # -- the rated pairs ----------------------------------------------------------------

    @abstractmethod
    def admit_pair(self, pair: str, game_id: str, now: float, window: float,
                   limit: int) -> int | None:
        """Count ``game_id`` among the pair's rated games of the last ``window`` seconds
        in one atomic step, unless it has ``limit`` of them already: ``None`` if counted
        (or counted before: admitting a game again is harmless), else how many it has."""

    @abstractmethod
    def forget_pair(self, pair: str, game_id: str) -> None:
        """Take ``game_id`` out of the pair's count (a table another pair refused)."""

    @abstractmethod
    def pair_count(self, pair: str, now: float, window: float) -> int:
        """The pair's rated games admitted in the last ``window`` seconds."""
