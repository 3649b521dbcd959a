"""The sweeper: the moves the service owes on games nobody is reading.

Every request or woken waiter that reads a game plays what is due on it
(:mod:`.autoplay`), so a game with a clock finishes while anyone plays or watches. This
covers the rest: a game whose humans all left with the clock running, and a game whose
bots were being played by a worker that died. A game goes on the sweeper's schedule when
it starts with a clock or a bot on turn (:func:`plan`), and again whenever a request
starts playing bot moves (:func:`play_due_apart`). The sweeper (``python -m
service.sweep``) takes one due game at a time (:meth:`Schedule.take_visits`, which
leases it for :data:`LEASE_SECONDS`: no other sweeper takes it meanwhile), plays what
is due with the usual compare-and-set (:func:`.autoplay.play_due`), and plans the next
visit from what it then finds (:func:`next_visit`). So any number of sweepers may run,
and none is needed for correctness: it only bounds how long a game nobody reads stands
still.

The sweeper also keeps the lobby's listings tidy, since reads never write
(:mod:`.lobby`): at most every :data:`PRUNE_EVERY_SECONDS` a pass prunes a page of
:data:`PRUNE_PAGE` entries of each listing (:class:`LobbyPruning`), going on where the
last page ended and starting over at a listing's end. Stale entries are few (those a
failed second write or an expiry left), and readers skip them meanwhile, so a slow walk
will do: it only bounds the memory they hold. Several sweepers each walk on their own;
their moves of one entry make one (the relist is atomic).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from functools import partial

from service.engine import GameState
from service.storage import LISTINGS, Schedule, StorageUnavailableError, Stores, UnknownGameError

from .autoplay import due, play_due_from
from .lobby import best_effort, prune_listing

__all__ = [
    "LEASE_SECONDS",
    "PRUNE_EVERY_SECONDS",
    "PRUNE_PAGE",
    "REVISIT_SECONDS",
    "LobbyPruning",
    "next_visit",
    "plan",
    "play_due_apart",
    "soon",
    "sweep",
    "visit",
]

log = logging.getLogger(__name__)

#: How soon a game is looked at again while the service owes it a move that someone
#: else is making (a bot on turn is played by the request that made it its turn): the
#: sweeper takes over only a game that stalled.
REVISIT_SECONDS = 60.0
#: How long a taken game is held by its sweeper before another may take it.
LEASE_SECONDS = 30.0
#: How often a sweeper prunes the lobby's listings, and how many entries of each it reads
#: then (one read of the listing and one pipelined read of the games per listing).
PRUNE_EVERY_SECONDS = 10.0
PRUNE_PAGE = 200


def soon(state: GameState, now: float) -> float:
    """A look again in :data:`REVISIT_SECONDS`, or within one turn of a shorter clock."""
    return now + min(REVISIT_SECONDS, state.turn_seconds or REVISIT_SECONDS)


def next_visit(state: GameState, open_seats: list[int] | tuple[int, ...],
               now: float) -> float | None:
    """When the sweeper should next look at a game: :func:`soon` while the service owes
    it a move (a bot on turn, or a time-out someone else is applying), else the turn's
    deadline; ``None`` for a game that is over, waiting for seats, or waiting for a human
    without a clock (whoever comes back to it plays the bots that follow)."""
    if state.finished or open_seats or state.current_seat is None:
        return None
    if due(state, open_seats, now):
        return soon(state, now)
    if state.turn_seconds is not None:
        return state.turn_deadline if state.turn_deadline is not None else soon(state, now)
    return None


def plan(schedule: Schedule, game_id: str, state: GameState,
         open_seats: list[int] | tuple[int, ...], now: float) -> None:
    """Schedule a game that has just started, if it ever needs the sweeper. Best effort:
    the game is saved already, and a game read by anyone plays what is due anyway."""
    at = next_visit(state, open_seats, now)
    if at is not None:
        best_effort("sweeper schedule", partial(schedule.plan_visit, game_id, at))


def visit(stores: Stores, game_id: str, clock: Callable[[], float] = time.time) -> int:
    """Play what is due on ``game_id`` and plan its next visit; the moves made."""
    try:
        made, record = play_due_from(stores, stores.games.load(game_id), clock)
    except UnknownGameError:  # expired: nothing left to play
        stores.schedule.drop_visit(game_id)
        return 0
    at = next_visit(record.state, record.open_seats, clock())
    if at is None:
        stores.schedule.drop_visit(game_id)
    else:
        stores.schedule.plan_visit(game_id, at)
    return made


def play_due_apart(stores: Stores, game_id: str) -> None:
    """:func:`.autoplay.play_due` on a thread of its own (a greenlet under gevent's
    patched ``threading``), started once a response is sent, as a :func:`visit`.

    Why not in the request itself: a request is done only when its close returns, and
    until then its connection reads nothing more; a proxy that reuses the connection
    (nginx's upstream keep-alive) would hold other clients' requests behind a whole
    game of bots. Why scheduled first: should this worker die between two bot moves,
    the sweeper takes the game over in :data:`REVISIT_SECONDS` (as does the next waiter
    that waits its full time); the visit then plans what comes next. A failure is
    logged: nobody is left to answer."""

    def run() -> None:
        try:
            stores.schedule.plan_visit(game_id, time.time() + REVISIT_SECONDS)
            visit(stores, game_id)
        except Exception:
            log.exception("bot moves of game %s stopped", game_id)

    threading.Thread(target=run, name=f"bots-{game_id}", daemon=True).start()


def sweep(stores: Stores, count: int = 100, clock: Callable[[], float] = time.time,
          stopping: Callable[[], bool] = lambda: False,
          pruning: LobbyPruning | None = None) -> tuple[int, int]:
    """One pass: visit due games one at a time (each leased as it is taken) until none is
    due, ``count`` were visited or ``stopping()``; ``(games visited, moves made)``. A
    game whose visit fails is logged and comes due again when its lease ends. With
    ``pruning`` (the sweeper's, kept between passes), the pass first prunes the lobby if
    that is due."""
    if pruning is not None:
        pruning.run(stores, clock())
    visited = moves = 0
    while visited < count and not stopping():
        taken = stores.schedule.take_visits(clock(), 1, LEASE_SECONDS)
        if not taken:
            break
        visited += 1
        try:
            moves += visit(stores, taken[0], clock)
        except StorageUnavailableError:
            raise  # the whole pass stops: every other game would fail the same way
        except Exception:
            log.exception("sweeper visit of %s failed", taken[0])
    return visited, moves


class LobbyPruning:
    """A sweeper's walk through the lobby's listings (:func:`.lobby.prune_listing`): a page
    of each at most every ``every`` seconds, each from where its last page ended."""

    def __init__(self, every: float = PRUNE_EVERY_SECONDS, page: int = PRUNE_PAGE) -> None:
        self.every = every
        self.page = page
        self.next_at = float("-inf")
        self.cursors: dict[str, tuple[float, str] | None] = dict.fromkeys(LISTINGS)

    def run(self, stores: Stores, now: float) -> int:
        """Prune a page of each listing if the last prune is ``every`` seconds old; the
        entries moved or removed."""
        if now < self.next_at:
            return 0
        self.next_at = now + self.every
        moved = 0
        for listing in LISTINGS:
            pruned, self.cursors[listing] = prune_listing(
                stores, listing, self.cursors[listing], self.page, now)
            moved += pruned
        if moved:
            log.info("pruned %d stale lobby entries", moved)
        return moved
