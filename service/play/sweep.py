"""The sweeper: the moves the service owes on games nobody is reading.

Every request or woken waiter that reads a game plays what is due on it
(:mod:`.autoplay`), so a game with a clock finishes while anyone plays or watches. This
covers the rest: a game whose humans all left with the clock running, and a game of
bots whose worker died between two moves. A game with a clock or a bot seat is put on
the store's schedule when it starts (:func:`plan`); the sweeper (``python -m
service.sweep``) takes the games that are due (:meth:`GameStore.take_visits`: never
one game to two sweepers at once), plays what is due with the usual compare-and-set
(:func:`.autoplay.play_due`), and plans the next visit from what it then finds: the
turn's deadline, or a look again in :data:`REVISIT_SECONDS` while a bot seat may need
it; nothing once the game is over or gone. So any number of sweepers may run, and none
is needed for correctness: it only bounds how long a game nobody reads stands still.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from service.engine import GameState
from service.storage import GameStore, StorageUnavailableError, UnknownGameError

from .autoplay import due, play_due

__all__ = ["LEASE_SECONDS", "REVISIT_SECONDS", "next_visit", "plan", "sweep", "visit"]

log = logging.getLogger(__name__)

#: How often a game with a bot seat and no clock is looked at: a bot on turn is played
#: by the request that made it its turn, so the sweeper only takes over a stalled one.
REVISIT_SECONDS = 60.0
#: How long a taken game is held by its sweeper before another may take it.
LEASE_SECONDS = 30.0


def next_visit(state: GameState, open_seats: list[int] | tuple[int, ...],
               now: float) -> float | None:
    """When the sweeper should next look at a game: its turn's deadline, or
    :data:`REVISIT_SECONDS` from ``now`` for a game with a bot seat; ``None`` for a game
    that is over, still waiting for seats, or has neither a clock nor a bot."""
    if state.finished or open_seats:
        return None
    if state.turn_seconds is not None and state.turn_deadline is not None:
        return state.turn_deadline
    if state.turn_seconds is not None or any(state.bots):
        return now + REVISIT_SECONDS
    return None


def plan(store: GameStore, game_id: str, state: GameState,
         open_seats: list[int] | tuple[int, ...], now: float) -> None:
    """Schedule a game that has just started, if it ever needs the sweeper. Best effort:
    the game is saved already, and a game read by anyone plays what is due anyway."""
    at = next_visit(state, open_seats, now)
    if at is None:
        return
    try:
        store.plan_visit(game_id, at)
    except StorageUnavailableError as exc:
        log.warning("sweeper schedule not updated for %s: %s", game_id, exc)


def visit(store: GameStore, game_id: str, clock: Callable[[], float] = time.time) -> int:
    """Play what is due on ``game_id`` and plan its next visit; the moves made."""
    try:
        record = store.load(game_id)
        made = 0
        if due(record.state, record.open_seats, clock()):
            made = play_due(store, game_id, clock)
            record = store.load(game_id)
    except UnknownGameError:  # expired: nothing left to play
        store.drop_visit(game_id)
        return 0
    at = next_visit(record.state, record.open_seats, clock())
    if at is None:
        store.drop_visit(game_id)
    else:
        store.plan_visit(game_id, at)
    return made


def sweep(store: GameStore, count: int = 100,
          clock: Callable[[], float] = time.time) -> tuple[int, int]:
    """One pass: visit up to ``count`` due games; ``(games visited, moves made)``. A game
    whose visit fails is logged and comes due again when its lease ends."""
    taken = store.take_visits(clock(), count, LEASE_SECONDS)
    moves = 0
    for game_id in taken:
        try:
            moves += visit(store, game_id, clock)
        except StorageUnavailableError:
            raise  # the whole pass stops: every other game would fail the same way
        except Exception:
            log.exception("sweeper visit of %s failed", game_id)
    return len(taken), moves
