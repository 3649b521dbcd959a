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

import itertools
import logging
from collections.abc import Sequence
from typing import Any

from service.bots import BOTS
from service.core.instants import instant, unix_of
from service.core.rules import PRESETS
from service.ratings import ANCHORS, Rating, Seat, System, anchor, rate_table
from service.storage import StorageUnavailableError, Stores, UnknownGameError, folded

from .admission import RATED_PAIR_LIMIT, pair_name
from .errors import RatedPairLimitedError, UnknownAccountError, UnknownPresetError
from .records import game_record

__all__ = [
    "BOARD_ACTIVE_DAYS",
    "BOARD_DEVIATION",
    "PROVISIONAL_DEVIATION",
    "RATED_PAIR_LIMIT",
    "SYSTEM",
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


def _rating(stored: dict[str, Any]) -> Rating:
    return Rating(stored["rating"], stored["deviation"], stored["volatility"])


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
    idle = max(0.0, at - stored["at"]) / _DAY
    return system.aged(_rating(stored), idle), stored["games"], False


def _compute(stores: Stores, game_id: str, system: System) -> dict[str, Any] | None:
    """The game's new ratings from its record and the seats' ratings now (``None``: not a
    game to rate: unrated, aborted, or its record gone)."""
    try:
        record, _ = game_record(stores, game_id)
    except UnknownGameError:
        log.warning("rated game %s has no record: not rated", game_id)
        return None
    if not record.get("rated") or not record.get("places"):
        return None
    preset, at = record["rules"]["preset"], unix_of(record["finished_at"])
    seats = []
    for player, place in zip(record["players"], record["places"], strict=True):
        reference = player.get("bot") is not None and player.get("account") is None
        handle = player["bot"] if reference else player["account"]
        bot = reference or bool(player.get("account_bot"))
        rating, games, frozen = _current(stores, handle, bot, preset, at, system)
        seats.append({"handle": handle, "bot": bot, "frozen": frozen, "place": place,
                      "games": games, "before": rating})
    after = rate_table([Seat(s["before"], s["place"], s["frozen"]) for s in seats], system)
    for seat, new in zip(seats, after, strict=True):
        seat["before"] = _as_dict(seat["before"])
        seat["after"] = _as_dict(new)
    return {"preset": preset, "at": at, "players": len(seats), "seats": seats}


def _as_dict(rating: Rating) -> dict[str, float]:
    return {"rating": rating.rating, "deviation": rating.deviation,
            "volatility": rating.volatility}


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
    return [g for g in (game_ids or sorted(aside, key=lambda g: aside[g]["at"]))
            if stores.ratings.retry(g)]


def _apply(stores: Stores, game_id: str, result: dict[str, Any]) -> None:
    preset, at = result["preset"], result["at"]
    for seat in result["seats"]:
        if seat["frozen"]:
            continue
        after = seat["after"]
        stored = {**after, "games": seat["games"] + 1, "at": at}
        point = {"game_id": game_id, "at": instant(at), "rating": after["rating"],
                 "deviation": after["deviation"], "place": seat["place"],
                 "players": result["players"],
                 "opponents": [s["handle"] for s in result["seats"] if s is not seat]}
        stores.ratings.apply(seat["handle"], preset, game_id, stored, point)
        # on the board only while established (the reader also checks it is recent)
        listed = after["deviation"] <= BOARD_DEVIATION
        stores.ratings.rank(preset, seat["bot"], seat["handle"],
                            after["rating"] if listed else None)


def _shown(rating: Rating, games: int, at: float | None, now: float) -> dict[str, Any]:
    aged = rating if at is None else SYSTEM.aged(rating, max(0.0, now - at) / _DAY)
    return {"rating": round(aged.rating, 2), "deviation": round(aged.deviation, 2),
            "games": games, "provisional": aged.deviation >= PROVISIONAL_DEVIATION}


def ratings_of(stores: Stores, handle: str, bot: bool, now: float) -> dict[str, Any]:
    """An account's rating in every preset as shown (a preset it never played rated: the
    initial rating, provisional); a reference bot's anchors (frozen, never provisional)."""
    if bot and folded(handle) in BOTS:
        return {preset: {**_shown(_anchor(folded(handle)), 0, None, now),
                         "provisional": False} for preset in PRESETS}
    stored = stores.ratings.ratings(handle)
    out = {}
    for preset in PRESETS:
        mine = stored.get(preset)
        out[preset] = (_shown(SYSTEM.initial, 0, None, now) if mine is None
                       else _shown(_rating(mine), mine["games"], mine["at"], now))
    return out


def history(stores: Stores, handle: str, preset: str, start: int, count: int
            ) -> list[dict[str, Any]]:
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
          ) -> list[dict[str, Any]]:
    """A leaderboard page: established ratings (deviation at most
    :data:`BOARD_DEVIATION` aged to now) of accounts with a rated game in the last
    :data:`BOARD_ACTIVE_DAYS`, highest first, ranked from 1; the reference bots (the
    anchors) on the bots' board. ``start`` counts listed entries."""
    known_preset(preset)
    entries: list[dict[str, Any]] = []
    if bot:
        entries = [{"handle": name, "bot": True, **_shown(_anchor(name), 0, None, now)}
                   for name in ANCHORS]
    anchors = len(entries)
    scanned, batch = 0, max(count + start, 50)
    while len(entries) < start + count + anchors:
        handles = stores.ratings.board(preset, bot, scanned, batch)
        scanned += len(handles)
        for handle in handles:
            stored = stores.ratings.ratings(handle).get(preset)
            if stored is None or now - stored["at"] > BOARD_ACTIVE_DAYS * _DAY:
                continue
            shown = _shown(_rating(stored), stored["games"], stored["at"], now)
            if shown["deviation"] <= BOARD_DEVIATION:
                entries.append({"handle": handle, "bot": bot, **shown})
        if len(handles) < batch:
            break
    entries.sort(key=lambda e: (-e["rating"], folded(e["handle"])))
    page = entries[start:start + count]
    return [{"rank": start + i + 1, "handle": e["handle"], "bot": e["bot"],
             "rating": e["rating"], "deviation": e["deviation"], "games": e["games"]}
            for i, e in enumerate(page)]
