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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from service.ratings import Rating

__all__ = ["HistoryPoint", "RatedSeat", "RatingResult", "RatingStore", "SetAside",
           "StoredRating"]


def _rating_json(rating: Rating) -> dict[str, object]:
    return {"rating": rating.rating, "deviation": rating.deviation,
            "volatility": rating.volatility}


def _rating(data: Mapping[str, Any]) -> Rating:
    return Rating(data["rating"], data["deviation"], data["volatility"])


@dataclass(frozen=True, slots=True)
class StoredRating:
    """An account's rating in one preset as stored: its Glicko-2 rating as of its last
    rated game (not aged: a reader ages it to when it reads), its rated games, and when
    the last one ended (Unix seconds)."""

    value: Rating
    games: int
    at: float

    def to_json(self) -> dict[str, object]:
        return {**_rating_json(self.value), "games": self.games, "at": self.at}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StoredRating:
        return cls(_rating(data), data["games"], data["at"])


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """One point of an account's rating history in a preset (as ``GET
    /v1/accounts/{handle}/ratings/{preset}`` shows it): the game, when it ended, the
    rating and deviation after it, the place and the table's size, the opponents (``None``
    in a point kept from before points named them: shown without)."""

    game_id: str
    at: str  # an instant (RFC 3339)
    rating: float
    deviation: float
    place: int
    players: int
    opponents: tuple[str, ...] | None

    def to_json(self) -> dict[str, object]:
        point: dict[str, object] = {
            "game_id": self.game_id, "at": self.at, "rating": self.rating,
            "deviation": self.deviation, "place": self.place, "players": self.players}
        if self.opponents is not None:
            point["opponents"] = list(self.opponents)
        return point

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> HistoryPoint:
        opponents = data.get("opponents")
        return cls(data["game_id"], data["at"], data["rating"], data["deviation"],
                   data["place"], data["players"],
                   None if opponents is None else tuple(opponents))


@dataclass(frozen=True, slots=True)
class RatedSeat:
    """One seat of a rated game's computation: who (an account, or a reference bot:
    ``bot`` for either kind of bot), whether its rating is ``frozen`` (an anchor's), its
    place, its rated games before, its rating before (aged to the game's end) and
    after."""

    handle: str
    bot: bool
    frozen: bool
    place: int
    games: int
    before: Rating
    after: Rating

    def to_json(self) -> dict[str, object]:
        return {"handle": self.handle, "bot": self.bot, "frozen": self.frozen,
                "place": self.place, "games": self.games,
                "before": _rating_json(self.before), "after": _rating_json(self.after)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RatedSeat:
        return cls(data["handle"], data["bot"], data["frozen"], data["place"],
                   data["games"], _rating(data["before"]), _rating(data["after"]))


@dataclass(frozen=True, slots=True)
class RatingResult:
    """A rated game's new ratings, computed once (:meth:`RatingStore.compute_once`): its
    preset, when it ended (Unix seconds) and its seats."""

    preset: str
    at: float
    seats: tuple[RatedSeat, ...]

    @property
    def players(self) -> int:
        return len(self.seats)

    def to_json(self) -> dict[str, object]:
        return {"preset": self.preset, "at": self.at, "players": self.players,
                "seats": [s.to_json() for s in self.seats]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RatingResult:
        return cls(data["preset"], data["at"],
                   tuple(RatedSeat.from_json(s) for s in data["seats"]))


@dataclass(frozen=True, slots=True)
class SetAside:
    """Why a game could not be rated, and when it was set aside (Unix seconds)."""

    why: str
    at: float

    def to_json(self) -> dict[str, object]:
        return {"why": self.why, "at": self.at}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SetAside:
        return cls(data["why"], data["at"])


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
    def compute_once(self, game_id: str, result: RatingResult) -> RatingResult:
        """Store ``result`` as the game's new ratings unless one is stored already; the
        stored one (the first computation stands)."""

    @abstractmethod
    def computed(self, game_id: str) -> RatingResult | None:
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
    def aside(self) -> dict[str, SetAside]:
        """The games set aside, by id."""

    @abstractmethod
    def retry(self, game_id: str) -> bool:
        """Queue a game set aside again (at the queue's end): ``True`` if it was aside."""

    # -- the accounts -----------------------------------------------------------------

    @abstractmethod
    def ratings(self, handle: str) -> dict[str, StoredRating]:
        """The account's rating per preset as stored; ``{}`` if none."""

    @abstractmethod
    def apply(self, handle: str, preset: str, game_id: str, rating: StoredRating,
              point: HistoryPoint) -> bool:
        """Set the account's rating in ``preset`` and append ``point`` to its history,
        in one step, unless this game was applied to it already: ``True`` if applied now."""

    @abstractmethod
    def history(self, handle: str, preset: str, start: int, count: int) -> list[HistoryPoint]:
        """The account's history points in ``preset``, oldest first, from ``start``."""

    @abstractmethod
    def latest(self, handle: str, preset: str, count: int) -> list[HistoryPoint]:
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
