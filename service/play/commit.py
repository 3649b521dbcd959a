"""The one place a game changes: load → step → clock → compare-and-set save → effects.

Every change of a game is a *step*: a function from the game as loaded to a
:class:`Change` (the next state, its events, and the seats' tokens when they change).
A player's action, a claim, a rematch ask and the service's own move are each a small
step (:mod:`.games`, :mod:`.rematch`, :mod:`.moves`); :func:`commit` is the loop they
share. It runs the step on a fresh load, sets the turn clock (:func:`with_clock`), saves
with the version check (the record of a finishing move and an idempotent reply in the
same atomic write), re-runs the step on the newer game when another writer won the race
(or answers 412 when the caller named a version with ``If-Match``), and then runs every
after-save effect in one list (:func:`_after_save`): the lobby, the move workers'
schedule, the metrics. The save script itself publishes the new version, which wakes
every waiter of the game. Nothing else in the service writes a game, and a read never
does.

Why the schedule is written before the save as well as after: only a move worker makes
the service's moves, so a game whose next move is the service's must be on the schedule
whatever happens to this process. The plan after the save makes the visit due and wakes
a worker, once the move it is to answer is stored. The plan before it is the safety net
for a process lost between its save and that plan, and is made :data:`SAFETY_SECONDS`
later than the visit: a worker that took it at once could read the game before the save
lands, find nothing due and drop the visit, and the move would then wait for nobody. A
plan only ever brings a visit forward (:meth:`~service.storage.Schedule.plan`), so a plan
for a save that then loses its race costs one wasted visit, never a lost one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from service import metrics
from service.engine import Event, GameState, opening_events
from service.engine.seats import played_by_service
from service.storage import (
    GameRecord,
    Lease,
    StoredReply,
    Stores,
    VersionConflictError,
)
from service.tournaments.ids import TOURNAMENT_MEMBER, tournament_of

from .errors import GameBusyError, PreconditionFailedError
from .loads import lane_of
from .lobby import best_effort
from .notes import account_effects
from .ratings import RATING_MEMBER, queue_rating
from .records import finishing_record

__all__ = ["MAX_ATTEMPTS", "Change", "Committed", "Step", "commit", "create", "next_visit",
           "with_clock"]

#: Without If-Match, a step that lost a race is run again on the newer game this many
#: times before the service gives up with 409 version_conflict (never reached in
#: practice: each retry sees every move made meanwhile).
MAX_ATTEMPTS = 8
#: How much later than its visit the plan made before a save is: far beyond a save (whose
#: Redis timeout is 2 s), so that plan is due only when the one after the save was lost.
SAFETY_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class Change:
    """What a step makes of the game: the next ``state`` and its ``events``, the seats'
    ``token_hashes`` when they change (a claim), and the acting ``seat`` (whose reply an
    idempotent request stores)."""

    state: GameState
    events: list[Event]
    token_hashes: tuple[str | None, ...] | None = None
    seat: int | None = None


Step = Callable[[GameRecord], Change]


@dataclass(frozen=True, slots=True)
class Committed:
    """A saved change: the game as saved and the acting seat; or, when an idempotent
    request's key was answered already, only that first ``reply`` (``replayed``)."""

    record: GameRecord | None
    seat: int | None
    reply: StoredReply | None
    replayed: bool = False


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


def next_visit(record: GameRecord, now: float) -> float | None:
    """When a move worker must next look at the game: now while the service owes it a
    move (a bot's, the stand-in's), at the turn's deadline while a player's clock runs,
    else never (over, waiting for seats, or a player's turn without a clock)."""
    state = record.state
    seat = state.current_seat
    if state.finished or record.open_seats or seat is None:
        return None
    if played_by_service(state, seat):
        return now
    return state.turn_deadline


def commit(
    stores: Stores,
    game_id: str,
    step: Step,
    *,
    if_match: Callable[[int], bool] | None = None,
    reply_key: str | None = None,
    render_reply: Callable[[GameRecord, int | None], StoredReply] | None = None,
    lease: Lease | None = None,
    clock: Callable[[], float] = time.time,
) -> Committed:
    """Run ``step`` on ``game_id`` and save what it makes, once.

    ``if_match(version)`` says whether the client's ``If-Match`` accepts the version (a
    lost race is then 412, not a retry). With ``reply_key``, ``render_reply(game, seat)``
    renders the reply stored in the same atomic write (a retry of the request finds both
    the move and its reply, or neither). ``lease``: the caller is the move worker holding
    the game, which plans the next visit itself when it releases it."""
    for _ in range(MAX_ATTEMPTS):
        before = stores.games.load(game_id)
        if if_match is not None and not if_match(before.state.version):
            raise PreconditionFailedError(
                f"the game is at version {before.state.version}; reload it and decide again",
                current_version=before.state.version)
        change = step(before)
        now = clock()
        hashes = change.token_hashes or before.token_hashes
        started = bool(before.open_seats) and None not in hashes  # the last seat claimed
        state = with_clock(before.state, change.state, now, started=started)
        after = GameRecord(game_id, state, hashes, before.created_at)
        reply = render_reply(after, change.seat) if render_reply and reply_key else None
        if lease is None:  # before the save: a process lost now loses no move
            _plan(stores, after, now, later=SAFETY_SECONDS)
        if _rated_end(before, after):  # nor a rating (the visit queues it once)
            stores.schedule.plan(RATING_MEMBER + game_id, now + SAFETY_SECONDS)
        _plan_tournament(stores, before, after, now, later=SAFETY_SECONDS)
        try:
            earlier = stores.games.save(
                game_id, before.state.version, state, change.events,
                token_hashes=change.token_hashes, reply_key=reply_key, reply=reply,
                record=finishing_record(stores.games, before, state, change.events,
                                        now))
        except VersionConflictError as conflict:
            if if_match is not None:
                raise PreconditionFailedError(
                    f"the game is at version {conflict.current}; reload it and decide again",
                    current_version=conflict.current) from None
            continue
        if earlier is not None:
            return Committed(None, None, earlier, replayed=True)
        _after_save(stores, before, after, change.events, lease, now)
        return Committed(after, change.seat, reply)
    raise GameBusyError("the game kept changing; reload it and try again")


def create(stores: Stores, game_id: str, state: GameState,
           token_hashes: tuple[str | None, ...], *, listed: bool = True,
           announced: bool = True, clock: Callable[[], float] = time.time) -> GameRecord:
    """Store a freshly dealt game: on the lobby first (unless not ``listed``), then the
    game, its first turn's clock started if every seat is taken, and the move workers'
    first visit. A rematch is created before it is ``announced`` (its announcement may
    lose a race): it is listed and planned by the commit that announces it."""
    now = clock()
    if None not in token_hashes:
        state = with_clock(None, state, now, started=True)
    record = GameRecord(game_id, state, token_hashes, now)
    if listed and announced:  # listed before it exists: a listing is a hint readers check
        stores.lobby.list_game(game_id, "open" if record.open_seats else "in_progress", now)
    if announced:
        _plan(stores, record, now, later=SAFETY_SECONDS)
    stores.games.create(game_id, state, token_hashes, opening_events(state))
    if announced:
        _plan(stores, record, now)
        if state.accounts:
            best_effort("accounts", lambda: account_effects(stores, None, record, now))
    return record


def _plan(stores: Stores, record: GameRecord, now: float, later: float = 0.0) -> None:
    at = next_visit(record, now)
    if at is not None:  # on the lane of its bots (fixed by its seats: one lane for life)
        stores.schedule.plan(record.game_id, at + later, lane_of(record.state.bots))


def _plan_tournament(stores: Stores, before: GameRecord, after: GameRecord, now: float,
                     later: float = 0.0) -> None:
    """A tournament's game that this change finishes: its tournament's visit (which keeps
    the result and may pair the next round), planned as a game's own visit is: before
    the save as a safety net, and after it, due now."""
    tournament = tournament_of(after.game_id)
    if tournament is not None and after.state.finished and not before.state.finished:
        stores.schedule.plan(TOURNAMENT_MEMBER + tournament, now + later)


def _after_save(stores: Stores, before: GameRecord, after: GameRecord, events: list[Event],
                lease: Lease | None, now: float) -> None:
    """Every effect of a saved change beyond the game's own keys, each from the change
    itself. The indexes across games are hints their readers check, so a failed write
    here is logged and the request goes on (:func:`.lobby.best_effort`); the schedule
    was planned before the save already."""
    game_id = after.game_id
    if before.open_seats and not after.open_seats:  # full: from open games to those played
        best_effort("claim", lambda: stores.lobby.relist_game(game_id, "open", "in_progress"))
    rematch = after.state.rematch_game
    if rematch is not None and before.state.rematch_game is None:  # announced: now visible
        best_effort("rematch", lambda: _announce(stores, rematch, now))
    if after.state.finished and not before.state.finished:
        metrics.GAMES_FINISHED.inc()
        if _rated_end(before, after):
            best_effort("rating", lambda: queue_rating(stores, game_id, now))
        best_effort("finish", lambda: stores.lobby.relist_game(game_id, "in_progress", None))
        best_effort("tournament", lambda: _plan_tournament(stores, before, after, now))
    for event in events:
        if event.type in metrics.ACTION_EVENTS:
            metrics.ACTIONS_BY_TYPE[metrics.ACTION_EVENTS[event.type]].inc()
    if lease is None:
        best_effort("schedule", lambda: _plan(stores, after, now))
    if after.state.accounts:
        best_effort("accounts", lambda: account_effects(stores, before, after, now))


def _rated_end(before: GameRecord, after: GameRecord) -> bool:
    """The change finishes a rated game (one to queue for the rating workers)."""
    return after.state.rated and after.state.finished and not before.state.finished


def _announce(stores: Stores, game_id: str, now: float) -> None:
    """A rematch just announced: on the lobby, and its first visit planned (a rematch made
    for a request that lost its race is never announced, so nobody plays it)."""
    record = stores.games.load(game_id)
    stores.lobby.list_game(game_id, "open" if record.open_seats else "in_progress", now)
    _plan(stores, record, now)
    if record.state.accounts:
        account_effects(stores, None, record, now)
