"""The one place a game changes: load → step → clock → compare-and-set save → effects.

Every change of a game is a *step*: a function from the game as loaded to a
:class:`Change` (the next state, its events, and the seats' tokens when they change).
A player's action, a claim, a rematch ask and the service's own move are each a small
step (:mod:`.games`, :mod:`.rematch`, :mod:`.moves`); :func:`commit` is the loop they
share. It runs the step on a fresh load, sets the turn clock (:func:`with_clock`), saves
with the version check (the record of a finishing move and an idempotent reply in the
same atomic write, with the change's events: the outbox of what it causes), re-runs the
step on the newer game when another writer won the race (or answers 412 when the caller
named a version with ``If-Match``), then plans the game's next visit and runs what the
change causes beyond the game from its events (:func:`.effects.run_effects`: account
notes, webhooks, the lobby, the rating queue, tournaments). The save script itself
publishes the new version, which wakes every waiter of the game. Nothing else in the
service writes a game, and a read never does.

Why the schedule is written before the save as well as after: only a move worker makes
the service's moves, and only its visit of the game runs the effects a lost process
left, so a game whose next move is the service's, or whose change owes effects, must be
on the schedule whatever happens to this process. The plan after the save makes the
visit due and wakes a worker, once the move it is to answer is stored. The plan before
it is the safety net for a process lost between its save and that plan (or its
effects), and is made :data:`SAFETY_SECONDS` later: a worker that took it at once could
read the game before the save lands, find nothing due and drop the visit, and the move
would then wait for nobody. A plan only ever brings a visit forward
(:meth:`~service.storage.Schedule.plan`), so a plan for a save that then loses its race
costs one wasted visit, never a lost one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from service import metrics
from service.engine import Event, GameState, opening_events
from service.storage import (
    GameRecord,
    Lease,
    StoredReply,
    Stores,
    VersionConflictError,
)

from .effects import owes_effects, run_effects
from .errors import GameBusyError, PreconditionFailedError
from .loads import lane_of
from .lobby import best_effort
from .records import finishing_record
from .visits import plan_visit

__all__ = ["MAX_ATTEMPTS", "Change", "Committed", "Step", "commit", "create", "with_clock"]

log = logging.getLogger("three_thirteen.commit")

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
        # a change that owes no effects, saved when none were owed: the cursor moves with
        # the save itself, so its effects cost no read and no write after it (an action
        # in-process, a human game on Redis: 0.41 -> 0.31 ms median)
        # (a game stored before the cursor was kept owes nothing of its past: its
        # cursor starts here, written by this save)
        base = before.state.event_seq if before.handled is None else before.handled
        quiet = (base >= before.state.event_seq
                 and not owes_effects(GameRecord(game_id, state, hashes), change.events))
        handled = state.event_seq if quiet else base
        after = GameRecord(game_id, state, hashes, before.created_at, handled)
        reply = render_reply(after, change.seat) if render_reply and reply_key else None
        if lease is None:  # before the save: a process lost now loses no move, no effect
            _plan_safety(stores, after, change.events, now)
        try:
            earlier = stores.games.save(
                game_id, before.state.version, state, change.events,
                token_hashes=change.token_hashes, reply_key=reply_key, reply=reply,
                record=finishing_record(stores.games, before, state, change.events,
                                        now),
                handled=handled if quiet or before.handled is None else None)
        except VersionConflictError as conflict:
            if if_match is not None:
                raise PreconditionFailedError(
                    f"the game is at version {conflict.current}; reload it and decide again",
                    current_version=conflict.current) from None
            continue
        if earlier is not None:
            return Committed(None, None, earlier, replayed=True)
        _count(before, after, change.events)
        _after_save(stores, after, lease, now)
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
    events = opening_events(state)
    # a game whose deal owes no effects (no account seated) starts with its cursor past
    # them: nothing to read back
    owed = announced and owes_effects(GameRecord(game_id, state, token_hashes), events)
    handled = 0 if owed or not announced else state.event_seq
    record = GameRecord(game_id, state, token_hashes, now, handled=handled)
    if listed and announced:  # listed before it exists: a listing is a hint readers check
        stores.lobby.list_game(game_id, "open" if record.open_seats else "in_progress", now)
    if announced:
        _plan_safety(stores, record, events, now)
    stores.games.create(game_id, state, token_hashes, events, handled)
    if announced:
        plan_visit(stores, record, now)
        _fast_path(stores, record, now)
    return record


def _plan_safety(stores: Stores, record: GameRecord, events: list[Event], now: float) -> None:
    """The game's visit, planned before its save :data:`SAFETY_SECONDS` after it is due
    (its next move or clock), or after now when only its effects are owed."""
    if owes_effects(record, events):
        seat = record.state.current_seat
        lane = lane_of(record.state.bots)
        stores.schedule.plan(record.game_id, now + SAFETY_SECONDS, lane)
        if seat is None or record.state.finished:
            return
    plan_visit(stores, record, now, later=SAFETY_SECONDS)


def _after_save(stores: Stores, after: GameRecord, lease: Lease | None, now: float) -> None:
    """The game's next visit planned (unless a move worker holds it: it plans the next
    itself) and the change's effects run: a request's failure is logged and left to the
    visit planned before its save; a worker's raises, so its visit comes due again."""
    if lease is not None:
        run_effects(stores, after.game_id, now, after)
        return
    best_effort("schedule", lambda: plan_visit(stores, after, now))
    _fast_path(stores, after, now)


def _fast_path(stores: Stores, record: GameRecord, now: float) -> None:
    """Run a change's effects in the request that saved it: any failure (Redis away, a
    handler's bug) is logged, and the game's visit, planned before the save, runs them."""
    try:
        run_effects(stores, record.game_id, now, record)
    except Exception:
        log.exception("the effects of game %s are left to its visit", record.game_id)


def _count(before: GameRecord, after: GameRecord, events: list[Event]) -> None:
    """This process's metrics of the change (counted where it was saved)."""
    if after.state.finished and not before.state.finished:
        metrics.GAMES_FINISHED.inc()
    for event in events:
        if event.type in metrics.ACTION_EVENTS:
            metrics.ACTIONS_BY_TYPE[metrics.ACTION_EVENTS[event.type]].inc()
