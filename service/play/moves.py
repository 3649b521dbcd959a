"""The moves the service makes itself: bot seats, stand-ins and turn clocks.

Who makes them: only the move workers (``python -m service.workers``), never a request
and never a read. Every commit that makes such a move due plans the game on the
schedule (:mod:`.commit`), which wakes a waiting worker at once; a worker takes the
earliest due game under a lease (:meth:`~service.storage.Schedule.take`: no other worker
plays it meanwhile), makes **one** move with the usual commit (:func:`visit`), and
releases it with its next visit, which for a game that still owes a move is now: behind
every game that was due before it. So the workers share their time fairly between
games, one move at a time, and one client's many bot games cannot starve another's
(each decision is bounded by its bot's budget, ``service/bots/budget.py``).

What a bot sees: :func:`service.bots.decide` gets the seat's view (the engine's view
for that seat, with the moves the service may make for it) and that seat's share of the
events, as plain JSON data, never the state; its RNG seed comes from the secret seed
*and* salt (:func:`service.bots.decision_seed`), so its visible choices cannot be
searched for a guessable seed, and a verifier recomputes it from the record.

The clock (``turn_seconds``): :func:`.commit.with_clock` sets the deadline whenever a
turn begins, and the turn's visit is planned at it. When it has passed,
:func:`~service.engine.seats.time_out` is the service's move (the deadline cleared),
then the stand-in (``greedy``) plays the rest of that turn.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace

from service.bots import BOTS, decide, decision_seed
from service.engine import apply, view
from service.engine.seats import SERVICE, STAND_IN, played_by_service, player_of, time_out
from service.storage import GameRecord, Lease, Stores, UnknownGameError

from .commit import Change, Step, commit
from .effects import run_effects
from .loads import lane_of
from .visits import next_visit

__all__ = ["LEASE_SECONDS", "NothingDue", "due", "service_move", "visit_game"]

log = logging.getLogger(__name__)

#: How soon a game's visit comes back for effects that failed at the last one.
EFFECTS_RETRY_SECONDS = 15.0
#: How long a taken game is held by its worker before another may take it: far beyond
#: one move (a decision is bounded by its bot's budget), so it only matters when a
#: worker died holding the game.
LEASE_SECONDS = 15.0


class NothingDue(Exception):
    """The game owes no move now (another worker made it, or a player moved in time)."""

    def __init__(self, record: GameRecord) -> None:
        super().__init__(record.game_id)
        self.record = record


def due(record: GameRecord, now: float) -> bool:
    """Whether the service owes the game a move now: a bot or the stand-in is on turn,
    or the turn's clock ran out."""
    at = next_visit(record, now)
    return at is not None and at <= now


def service_move(stores: Stores, now: float) -> Step:
    """The step of the service's next move: the time-out of a turn whose clock ran out,
    else the move of the bot (or stand-in) on turn."""

    def step(record: GameRecord) -> Change:
        if not due(record, now):
            raise NothingDue(record)
        state = record.state
        seat = state.current_seat
        assert seat is not None
        if not played_by_service(state, seat):  # a player's clock ran out
            timed_out, events = time_out(state, seat)
            return Change(replace(timed_out, turn_deadline=None), events)
        bot = player_of(state, seat) or STAND_IN
        seat_events = ([e.for_seat(seat) for e in stores.games.all_events(record.game_id)]
                       if BOTS[bot].wants_events else [])  # the log is read for strong only
        action = decide(bot, decision_seed(state.seed_salt, state.seed, seat, state.version),
                        view(state, seat, SERVICE), seat_events)
        new, events = apply(state, seat, action, SERVICE)
        return Change(new, events)

    return step


def visit_game(stores: Stores, lease: Lease, game_id: str,
               clock: Callable[[], float] = time.time) -> GameRecord | None:
    """Run what the game's last change left of its effects (a process lost between its
    save and them: :mod:`.effects`), make the one move the game owes now, if any, and
    release it with its next visit; the game as that move saved it (``None``: nothing
    was due). Left effects that fail again are logged and the move is made anyway (a
    game's play never waits on what it causes); the visit then comes back for them
    :data:`EFFECTS_RETRY_SECONDS` later."""
    owed = False
    try:
        run_effects(stores, game_id, clock())  # what a lost process left of its change
    except UnknownGameError:  # expired: nothing left to play
        stores.schedule.release(lease, None)
        return None
    except Exception:
        log.exception("the left effects of game %s failed: retried", game_id)
        owed = True
    try:
        committed = commit(stores, game_id, service_move(stores, clock()), lease=lease,
                           clock=clock)
    except NothingDue as nothing:
        _release(stores, lease, nothing.record, clock(), owed)
        return None
    except UnknownGameError:  # expired: nothing left to play
        stores.schedule.release(lease, None)
        return None
    assert committed.record is not None
    _release(stores, lease, committed.record, clock(), owed)
    return committed.record


def _release(stores: Stores, lease: Lease, record: GameRecord, now: float,
             owed: bool = False) -> None:
    """Release a game's lease with its next visit (sooner when effects are ``owed``), on
    the game's own lane: a visit found on the other lane (planned there before the
    game's lane was known: a deploy of the lanes) is moved, so no loop of the wrong lane
    keeps making its moves."""
    at, lane = next_visit(record, now), lane_of(record.state.bots)
    if owed:
        at = min(at, now + EFFECTS_RETRY_SECONDS) if at is not None else (
            now + EFFECTS_RETRY_SECONDS)
    if lease.lane == lane:
        stores.schedule.release(lease, at)
        return
    stores.schedule.release(lease, None)
    if at is not None:
        stores.schedule.plan(record.game_id, at, lane)
