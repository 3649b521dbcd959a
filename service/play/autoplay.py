"""The moves the service makes itself: bot seats, stand-ins and turn clocks.

Who makes them: every request that saves a move (create, claim, act) runs
:func:`play_due` afterwards, and every request or woken waiter that reads a game on
which a move is *due* (a bot on turn, or a turn clock run out) runs it too; the sweeper
(:mod:`.sweep`) runs it for games nobody reads. Each move is loaded, decided, applied
and saved with the usual compare-and-set, one version and its own events at a time, so
frontends see bot moves one by one on the stream; a lost race means another request is
making the same moves, and this one stops.

What a bot sees: :func:`decide` gets the seat's view (the engine's view for that seat,
the dict a client would get) and that seat's share of the events, as plain JSON data,
never the state; it runs exactly the reference bot (``service/bots``), built afresh for
each decision with an RNG seeded from the game's seed, the seat and the version, so a
seed and the list of actions replay the game. ``strong`` keeps its card counting by
being shown the seat's events from the start.

The clock (``turn_seconds``): :func:`with_clock` sets the deadline whenever a turn
begins. When it passes, :func:`~service.engine.seats.time_out` is saved (and the
deadline cleared), then the stand-in (``greedy``) plays the rest of that turn.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from service import metrics
from service.bots import decide  # the service's bot decisions live with the bots
from service.engine import Event, GameState, apply, view
from service.engine.seats import SERVICE, STAND_IN, played_by_service, player_of, time_out
from service.storage import GameRecord, GameStore, Stores, VersionConflictError

from .lobby import off_the_lobby
from .records import finishing_record

__all__ = [
    "MAX_MOVES_PER_CALL",
    "catch_up",
    "decide",
    "due",
    "play_due",
    "play_due_from",
    "seconds_to_deadline",
    "with_clock",
]

log = logging.getLogger(__name__)

#: A safety net only: an 11-round game of 8 bots is about 1,500 moves.
MAX_MOVES_PER_CALL = 20_000


def with_clock(old: GameState | None, new: GameState, now: float,
               started: bool = False) -> GameState:
    """``new`` with its turn deadline: a fresh one when a turn began (another seat, a new
    round, or the game just ``started``), none once finished or without a clock."""
    if new.turn_seconds is None:
        return new
    if new.finished:
        return replace(new, turn_deadline=None)
    began = started or old is None or (
        new.current_seat != old.current_seat or new.round_index != old.round_index)
    if began:
        return replace(new, turn_deadline=now + new.turn_seconds)
    return new


def due(state: GameState, open_seats: list[int] | tuple[int, ...], now: float,
        bots: bool = True) -> bool:
    """Whether the service owes a move: a bot (or stand-in) is on turn, or the clock ran
    out. ``bots=False`` asks about the clock only: a bot on turn is being played by the
    request that saved the move before it."""
    if state.finished or open_seats or state.current_seat is None:
        return False
    if played_by_service(state, state.current_seat):
        return bots
    return state.turn_deadline is not None and now >= state.turn_deadline


def seconds_to_deadline(state: GameState, now: float) -> float:
    """Seconds until the current turn times out (a little after, so the waiter that wakes
    then sees it passed): waiters park no longer than this. Infinite without a clock."""
    if state.finished or state.turn_seconds is None or state.turn_deadline is None:
        return float("inf")
    return max(0.0, state.turn_deadline - now) + 0.01


def catch_up(stores: Stores, record: GameRecord, bots: bool = False) -> GameRecord:
    """``record``, or, if the service owes moves on it, the game once this caller has
    made them: the first request or waiter that sees a turn clock run out applies it.

    A bot on turn counts only with ``bots``: normally the request that made it the bot's
    turn is playing it (a second driver would only lose compare-and-sets, or take the
    game over and make a GET wait for a whole bot game), so only a waiter that waited
    its full time without a move (that request died) takes the bots over."""
    if not due(record.state, record.open_seats, time.time(), bots=bots):
        return record
    return play_due_from(stores, record)[1]


def _events_for(games: GameStore, game_id: str, seat: int, log: list[Event]) -> list[Any]:
    """The seat's share of every event so far (read once per call, then extended)."""
    log.extend(games.all_events(game_id, log[-1].seq if log else 0))
    return [e.for_seat(seat) for e in log]


def _service_move(games: GameStore, game_id: str, state: GameState, now: float,
                  log: list[Event]) -> tuple[GameState, list[Event]]:
    """The next move the service makes on ``state`` (the time-out first, then the bot's)."""
    seat = state.current_seat
    assert seat is not None
    if not played_by_service(state, seat):  # the clock ran out just now
        new, events = time_out(state, seat)
        return replace(new, turn_deadline=None), events
    bot = player_of(state, seat) or STAND_IN
    seat_view = view(state, seat, SERVICE)
    action = decide(bot, f"{state.seed}:{seat}:{state.version}", seat_view,
                    _events_for(games, game_id, seat, log) if bot == "strong" else [])
    new, events = apply(state, seat, action, SERVICE)
    metrics.ACTIONS_BY_TYPE[action["type"]].inc()
    return with_clock(state, new, now), events


def play_due(stores: Stores, game_id: str,
             clock: Callable[[], float] = time.time) -> int:
    """Make every move the service owes on this game now; the number made.

    Stops when a human is on turn within its time, the game is over, or another request
    saved first (it is making these moves). Between moves it yields (``time.sleep(0)``:
    under gevent the worker's other requests run while a bot game plays)."""
    return play_due_from(stores, stores.games.load(game_id), clock)[0]


def play_due_from(stores: Stores, record: GameRecord,
                  clock: Callable[[], float] = time.time) -> tuple[int, GameRecord]:
    """:func:`play_due` from ``record`` (a load the caller already made): the moves made
    and the game as it then stands, read again only if another request saved first."""
    game_id = record.game_id
    log: list[Event] = []
    made = 0
    while made < MAX_MOVES_PER_CALL:
        now = clock()
        if not due(record.state, record.open_seats, now):
            return made, record
        new, events = _service_move(stores.games, game_id, record.state, now, log)
        try:
            stores.games.save(game_id, record.state.version, new, events,
                              record=finishing_record(stores.games, record, new, events))
        except VersionConflictError:
            return made, stores.games.load(game_id)
        made += 1
        if new.finished:
            metrics.GAMES_FINISHED.inc()
            off_the_lobby(stores.lobby, game_id)
        time.sleep(0)
        record = replace(record, state=new)  # as saved: a service move claims no seat
    return made, record
