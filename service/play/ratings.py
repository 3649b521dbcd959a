"""Ratings in play: a finished rated game queued, its new ratings applied by a rating
worker exactly once, and the ratings read back (profiles, history, leaderboards).

The system is Glicko-2 with the pairwise reduction by place (:mod:`service.ratings`); the
parameters, the bounds and why are in docs/ratings.md. The storage's promises (queued
once, computed once, applied once per game and account, in the order games finished)
are :mod:`service.storage.ratings`'. Reads never write: a rating's deviation as shown is
aged to the moment it is read (:meth:`~service.ratings.glicko2.System.aged`), not
stored aged.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from service.bots import BOTS
from service.core.instants import instant
from service.core.rules import PRESETS
from service.ratings import ANCHORS, Rating, Seat, System, anchor, rate_table
from service.storage import (
    HistoryPoint,
    RatedSeat,
    RatingResult,
    StorageUnavailableError,
    StoredRating,
    Stores,
    UnknownGameError,
    folded,
)

from .admission import RATED_PAIR_LIMIT, pair_name
from .errors import RatedPairLimitedError, UnknownAccountError, UnknownPresetError
from .records import game_record

__all__ = [
    "BOARD_ACTIVE_DAYS",
    "BOARD_DEVIATION",
    "PROVISIONAL_DEVIATION",
    "RATED_PAIR_LIMIT",
    "SYSTEM",
    "BoardEntry",
    "ShownRating",
    "board",
    "check_pairs",
    "history",
    "known_preset",
    "pair_name",
    "queue_rating",
    "rate_next",
    "ratings_of",
    "retry_set_aside",
]

log = logging.getLogger("three_thirteen.ratings")

#: Glicko-2 as Lichess runs it: 1500/350/0.06, τ 0.75, 0.21436 rating periods a day idle.
SYSTEM = System()
#: A rating is provisional while its deviation is this or more (Lichess's bound).
PROVISIONAL_DEVIATION = 110.0
#: On a leaderboard: a deviation of at most this (aged to now) ...
BOARD_DEVIATION = 75.0
#: ... and a rated game within this many days.
BOARD_ACTIVE_DAYS = 30.0
_DAY = 86_400.0


def _anchor(name: str) -> Rating:
    return anchor(name, BOTS[name].version)


@dataclass(frozen=True, slots=True)
class ShownRating:
    """A rating as shown (a profile's, a leaderboard's): aged to when it is read, rounded
    to hundredths, with its rated games and whether it is still provisional."""

    rating: float
    deviation: float
    games: int
    provisional: bool

    def to_json(self) -> dict[str, object]:
        return {"rating": self.rating, "deviation": self.deviation, "games": self.games,
                "provisional": self.provisional}


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """A line of a leaderboard: its rank (from 1) and whose rating it is."""

    rank: int
    handle: str
    bot: bool
    rating: float
    deviation: float
    games: int

    def to_json(self) -> dict[str, object]:
        return {"rank": self.rank, "handle": self.handle, "bot": self.bot,
                "rating": self.rating, "deviation": self.deviation, "games": self.games}


def queue_rating(stores: Stores, game_id: str, now: float) -> None:
    """Queue a just-finished rated game for the rating workers (once, whoever asks: the
    game's effects, run by the finishing request or by the game's visit)."""
    stores.ratings.enqueue(game_id, now)


def _current(stores: Stores, handle: str, bot: bool, preset: str, at: float, system: System
             ) -> tuple[Rating, int, bool]:
    """A seat's rating before a game that ended at ``at``: (rating aged to then, games so
    far, frozen). A reference bot's is its anchor (frozen)."""
    if bot and folded(handle) in BOTS:
        return _anchor(folded(handle)), 0, True
    stored = stores.ratings.ratings(handle).get(preset)
    if stored is None:
        return system.initial, 0, False
    idle = max(0.0, at - stored.at) / _DAY
    return system.aged(stored.value, idle), stored.games, False


def _compute(stores: Stores, game_id: str, system: System) -> RatingResult | None:
    """The game's new ratings from its record and the seats' ratings now (``None``: not a
    game to rate: unrated, aborted, or its record gone)."""
    try:
        record = game_record(stores, game_id)
    except UnknownGameError:
        log.warning("rated game %s has no record: not rated", game_id)
        return None
    if not record.rated or not record.places:
        return None
    preset, at = record.preset, record.finished_at
    if preset is None:
        raise ValueError(f"rated game {game_id} was played on no preset's rules")
    seats: list[tuple[str, bool, bool, int, int, Rating]] = []
    for seat, place in zip(record.seats, record.places, strict=True):
        reference = seat.reference_bot is not None and seat.account is None
        handle = seat.handle
        if handle is None:
            raise ValueError(f"seat {len(seats)} of rated game {game_id} is no account's")
        bot = reference or seat.account_bot
        rating, games, frozen = _current(stores, handle, bot, preset, at, system)
        seats.append((handle, bot, frozen, place, games, rating))
    after = rate_table([Seat(before, place, frozen)
                        for _, _, frozen, place, _, before in seats], system)
    return RatingResult(preset, at, tuple(
        RatedSeat(handle, bot, frozen, place, games, before, new)
        for (handle, bot, frozen, place, games, before), new in zip(seats, after, strict=True)))


def rate_next(stores: Stores, now: float, system: System = SYSTEM) -> str | None:
    """Apply the game at the head of the rating queue, if any; its id (``system``: the
    service's own :data:`SYSTEM` but in the test of Glickman's worked example).

    Safe to run in any number of workers at once and to kill at any point: the new
    ratings are computed once and stored before any account changes; each account takes
    them once; the game leaves the queue only after every account has them.

    A game that cannot be rated (its computation or an application raises anything but
    an unavailable store) is *set aside* (:meth:`~service.storage.RatingStore.set_aside`,
    logged with why), so the games after it are rated rather than waiting on it for
    ever; ``python -m service.workers --retry-ratings`` queues the set-aside games again
    once the cause is fixed (:func:`retry_set_aside`)."""
    game_id = stores.ratings.head()
    if game_id is None:
        return None
    try:
        result = stores.ratings.computed(game_id)
        if result is None:
            fresh = _compute(stores, game_id, system)
            result = None if fresh is None else stores.ratings.compute_once(game_id, fresh)
        if result is not None:
            _apply(stores, game_id, result)
    except StorageUnavailableError:
        raise
    except Exception as exc:
        log.exception("rated game %s cannot be rated: set aside, the next games are rated "
                      "(python -m service.workers --retry-ratings queues it again)", game_id)
        stores.ratings.set_aside(game_id, f"{type(exc).__name__}: {exc}"[:500], now)
        return game_id
    stores.ratings.done(game_id, now)
    return game_id


def retry_set_aside(stores: Stores, game_ids: Sequence[str] = ()) -> list[str]:
    """Queue the games set aside again (``game_ids``, or every one): those queued."""
    aside = stores.ratings.aside()
    return [g for g in (game_ids or sorted(aside, key=lambda g: aside[g].at))
            if stores.ratings.retry(g)]


def _apply(stores: Stores, game_id: str, result: RatingResult) -> None:
    for seat in result.seats:
        if seat.frozen:
            continue
        stored = StoredRating(seat.after, seat.games + 1, result.at)
        point = HistoryPoint(game_id, instant(result.at), seat.after.rating,
                             seat.after.deviation, seat.place, result.players,
                             tuple(s.handle for s in result.seats if s is not seat))
        stores.ratings.apply(seat.handle, result.preset, game_id, stored, point)
        # on the board only while established (the reader also checks it is recent)
        listed = seat.after.deviation <= BOARD_DEVIATION
        stores.ratings.rank(result.preset, seat.bot, seat.handle,
                            seat.after.rating if listed else None)


def _shown(rating: Rating, games: int, at: float | None, now: float) -> ShownRating:
    aged = rating if at is None else SYSTEM.aged(rating, max(0.0, now - at) / _DAY)
    return ShownRating(round(aged.rating, 2), round(aged.deviation, 2), games,
                       aged.deviation >= PROVISIONAL_DEVIATION)


def ratings_of(stores: Stores, handle: str, bot: bool, now: float) -> dict[str, ShownRating]:
    """An account's rating in every preset as shown (a preset it never played rated: the
    initial rating, provisional); a reference bot's anchors (frozen, never provisional)."""
    if bot and folded(handle) in BOTS:
        return {preset: dataclasses.replace(_shown(_anchor(folded(handle)), 0, None, now),
                                            provisional=False) for preset in PRESETS}
    stored = stores.ratings.ratings(handle)
    out = {}
    for preset in PRESETS:
        mine = stored.get(preset)
        out[preset] = (_shown(SYSTEM.initial, 0, None, now) if mine is None
                       else _shown(mine.value, mine.games, mine.at, now))
    return out


def history(stores: Stores, handle: str, preset: str, start: int, count: int
            ) -> list[HistoryPoint]:
    """An account's rating after each of its rated games in ``preset``, oldest first."""
    known_preset(preset)
    if folded(handle) not in BOTS:
        account = stores.accounts.load(handle)
        if account is None or account.closed:
            raise UnknownAccountError(f"there is no account {handle!r}")
    return stores.ratings.history(handle, preset, start, count)


def check_pairs(stores: Stores, handles: Sequence[str], preset: str, now: float) -> None:
    """Refuse up front (:class:`RatedPairLimitedError`, a 429) a rated challenge in which
    two of the accounts ``handles`` have had :data:`RATED_PAIR_LIMIT` rated games
    together in ``preset`` in the last day: so a pair of accounts cannot farm ratings by
    playing each other over and over. A courtesy to the challenger: the limit itself is
    counted when each rated game is admitted, whatever path made it (:mod:`.admission`;
    a pair that reaches it before the challenge's game starts plays that game unrated)."""
    for handle, other in itertools.combinations(handles, 2):
        met = stores.ratings.pair_count(pair_name(handle, other, preset), now, _DAY)
        if met >= RATED_PAIR_LIMIT:
            raise RatedPairLimitedError(
                f"{handle} and {other} played {met} rated games together in the last day, "
                f"the most a day allows: play unrated, or later", pair=[handle, other],
                cap=RATED_PAIR_LIMIT)


def known_preset(preset: str) -> str:
    """``preset`` if there is one of this name, else :class:`UnknownPresetError` (404)."""
    if preset not in PRESETS:
        raise UnknownPresetError(f"there is no preset {preset!r}: one of "
                                 f"{', '.join(PRESETS)}")
    return preset


def board(stores: Stores, preset: str, bot: bool, start: int, count: int, now: float
          ) -> list[BoardEntry]:
    """A leaderboard page: established ratings (deviation at most
    :data:`BOARD_DEVIATION` aged to now) of accounts with a rated game in the last
    :data:`BOARD_ACTIVE_DAYS`, highest first, ranked from 1; the reference bots (the
    anchors) on the bots' board. ``start`` counts listed entries."""
    known_preset(preset)
    entries: list[tuple[str, bool, ShownRating]] = []
    if bot:
        entries = [(name, True, _shown(_anchor(name), 0, None, now)) for name in ANCHORS]
    anchors = len(entries)
    scanned, batch = 0, max(count + start, 50)
    while len(entries) < start + count + anchors:
        handles = stores.ratings.board(preset, bot, scanned, batch)
        scanned += len(handles)
        for handle in handles:
            stored = stores.ratings.ratings(handle).get(preset)
            if stored is None or now - stored.at > BOARD_ACTIVE_DAYS * _DAY:
                continue
            shown = _shown(stored.value, stored.games, stored.at, now)
            if shown.deviation <= BOARD_DEVIATION:
                entries.append((handle, bot, shown))
        if len(handles) < batch:
            break
    entries.sort(key=lambda e: (-e[2].rating, folded(e[0])))
    page = entries[start:start + count]
    return [BoardEntry(start + i + 1, handle, is_bot, shown.rating, shown.deviation,
                       shown.games) for i, (handle, is_bot, shown) in enumerate(page)]
