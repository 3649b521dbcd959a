"""What a change causes beyond its game, run from the game's own event log: the outbox.

Why the log: a save appends the change's events in the same atomic step as the state
(:meth:`~service.storage.GameStore.save`), so once a move is saved, what it causes is
written down with it and cannot be lost with the process that saved it. Each game keeps a
cursor of the events whose effects have run (:attr:`~service.storage.GameRecord.handled`,
on the game's own key). :func:`run_effects` runs the handlers of the events after it, in
the table :data:`EFFECTS` (event type → handlers), then moves the cursor on:

* the request that saved runs them at once (the fast path: the same latency as running
  them inline), and
* the move worker's visit of the game runs whatever is left (:mod:`.moves`): the commit
  plans that visit *before* its save whenever the change owes effects
  (:func:`owes_effects`), so a web worker killed between its save and its effects leaves
  a visit that runs them a few seconds later.

Every handler is idempotent (a note, a webhook, a rating queued, an analysis queued, a
lobby entry moved, a tournament's or an evaluation's visit planned: each once however
often it runs), so the two paths racing, or a worker that dies halfway, cost a repeat,
never a second note. Each reads the game
as it is when it runs (the record after the batch's last event) and the batch's events:
a late run tells an account of the turn it is on now, not of one long over.

What is not here: the game's own next visit (planned by the commit, before and after its
save: it *is* the outbox's safety net), and the process's own metrics (counted where the
change was saved: a count, not something anyone is owed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from service.core.instants import instant
from service.engine import Event, winners
from service.engine.seats import played_by_service
from service.storage import (
    EvaluationVisit,
    GameRecord,
    Stores,
    TournamentVisit,
    UnknownGameError,
    member_of,
)
from service.tournaments.ids import tournament_of

from .analyses import auto_analysis
from .evaluation_ids import evaluation_of
from .notes import tell
from .ratings import queue_rating
from .records import FinishedRecord
from .visits import plan_visit

__all__ = ["BATCH", "EFFECTS", "Handler", "owes_effects", "run_effects"]

#: Events read at a time while catching up.
BATCH = 500

Handler = Callable[[Stores, GameRecord, Sequence[Event], float], None]


def _accounts(record: GameRecord) -> list[tuple[int, str]]:
    return [(s, h) for s, h in enumerate(record.state.accounts) if h is not None]


def _note(record: GameRecord, key: str, kind: str, seat: int,
          **fields: object) -> tuple[str, dict[str, object]]:
    """A note about the game for its ``seat``'s account, kept once under ``key``."""
    body = {"type": kind, "game_id": record.game_id, "seat": seat,
            "version": record.state.version, **fields}
    return f"{record.game_id}:{key}:{kind}", body


def _seats_taken(events: Sequence[Event]) -> bool:
    """Whether ``events`` seat someone: a claim, or the game's first deal (its seats as
    made with it)."""
    return any(e.type == "seat_claimed" or (e.type == "round_started"
                                            and e.public.get("number") == 1)
               for e in events)


def index_accounts(stores: Stores, record: GameRecord, events: Sequence[Event],
                   now: float) -> None:
    """An account seated (at the deal, or by a claim) has the game in its games (its
    first time there stands: :meth:`~service.storage.AccountStore.add_game`)."""
    if record.state.finished or not _seats_taken(events):
        return
    joined = record.created_at if record.created_at is not None else now
    for _, handle in _accounts(record):
        stores.accounts.add_game(handle, record.game_id,
                                 now if any(e.type == "seat_claimed" for e in events)
                                 else joined)


def announce_start(stores: Stores, record: GameRecord, events: Sequence[Event],
                   now: float) -> None:
    """Every seat taken: each account seat hears ``game_started`` (once)."""
    if record.open_seats or record.state.finished or not _seats_taken(events):
        return
    players = list(record.state.names)
    for seat, handle in _accounts(record):
        tell(stores, handle, [_note(record, "start", "game_started", seat, players=players)])


def tell_turn(stores: Stores, record: GameRecord, events: Sequence[Event],
              now: float) -> None:
    """A turn began: the account whose turn it is now hears ``your_turn`` (once per turn),
    unless the service plays its seat (away, resigned, a turn that timed out)."""
    state, seat = record.state, record.state.current_seat
    if seat is None or state.finished or record.open_seats:
        return
    handle = state.accounts[seat] if state.accounts else None
    if handle is None or played_by_service(state, seat):
        return
    turn = f"r{state.round_index}.t{state.turns}.s{seat}"
    tell(stores, handle, [_note(record, turn, "your_turn", seat, round=state.round_index + 1,
                                phase=state.phase, deadline=instant(state.turn_deadline))])


def tell_finished(stores: Stores, record: GameRecord, events: Sequence[Event],
                  now: float) -> None:
    """The game is over: each account seat hears ``game_finished`` and the game moves to
    its finished games, filed under the record's ``finished_at`` (so an export's
    ``since``/``until`` and order agree with the records it sends, however late this
    runs)."""
    state = record.state
    if not state.accounts:
        return
    ended = _finished_at(stores, record.game_id, now)
    for seat, handle in _accounts(record):
        tell(stores, handle, [_note(record, "end", "game_finished", seat,
                                    winners=list(winners(state)), totals=list(state.totals()),
                                    reason=state.finish_reason)])
        stores.accounts.finish_game(handle, record.game_id, ended)


def _finished_at(stores: Stores, game_id: str, now: float) -> float:
    """When the game's record says it finished (Unix seconds; ``now`` without one). The
    record alone is read: the handler has the finished game already, and its finishing
    save wrote the record with it (:func:`.records.finishing_record`)."""
    blob = stores.records.load_record(game_id)
    return now if blob is None else FinishedRecord.from_blob(blob).finished_at


def relist_full(stores: Stores, record: GameRecord, events: Sequence[Event],
                now: float) -> None:
    """Its last seat claimed: from the lobby's open games to those being played."""
    if not record.open_seats:
        stores.lobby.relist_game(record.game_id, "open", "in_progress")


def unlist_finished(stores: Stores, record: GameRecord, events: Sequence[Event],
                    now: float) -> None:
    """Over: off the lobby."""
    stores.lobby.relist_game(record.game_id, "in_progress", None)


def queue_rated(stores: Stores, record: GameRecord, events: Sequence[Event],
                now: float) -> None:
    """A rated game over: on the rating workers' queue (once)."""
    if record.state.rated:
        queue_rating(stores, record.game_id, now)


def analyse_rated(stores: Stores, record: GameRecord, events: Sequence[Event],
                  now: float) -> None:
    """A rated game over: queued for analysis for each account seat that asked for its
    rated games to be (``analyse_rated``), within its quota (:func:`.analyses.auto_analysis`:
    once, however often this runs); one past its quota, or met by a full queue, hears
    ``analysis_skipped`` (once)."""
    state = record.state
    if not state.rated or state.finish_reason == "aborted":
        return
    for seat, handle in _accounts(record):
        account = stores.accounts.load(handle)
        if account is None or account.closed or not account.analyse_rated:
            continue
        outcome = auto_analysis(stores, record.game_id, handle, now)
        if outcome in ("quota", "busy"):
            tell(stores, handle, [_note(record, "auto", "analysis_skipped", seat,
                                        reason=outcome,
                                        per_day=stores.analyses.auto_per_day)])


def advance_tournament(stores: Stores, record: GameRecord, events: Sequence[Event],
                       now: float) -> None:
    """A tournament's game over: its tournament's visit, which keeps the result and may
    pair the next round."""
    tournament = tournament_of(record.game_id)
    if tournament is not None:
        stores.schedule.plan(member_of(TournamentVisit(tournament)), now)


def advance_evaluation(stores: Stores, record: GameRecord, events: Sequence[Event],
                       now: float) -> None:
    """An evaluation's game over: its evaluation's visit, which keeps the deal's result
    once both of its games are over, and deals the next."""
    evaluation = evaluation_of(record.game_id)
    if evaluation is not None:
        stores.schedule.plan(member_of(EvaluationVisit(evaluation)), now)


def announce_rematch(stores: Stores, record: GameRecord, events: Sequence[Event],
                     now: float) -> None:
    """A rematch started: the new game (made unannounced, in case its start lost a race)
    on the lobby and the move workers' schedule, and its own effects run."""
    game_id = record.state.rematch_game
    if game_id is None:
        return
    try:
        rematch = stores.games.load(game_id)
    except UnknownGameError:  # expired unplayed: nothing left to announce
        return
    stores.lobby.list_game(game_id, "open" if rematch.open_seats else "in_progress", now)
    plan_visit(stores, rematch, now)
    run_effects(stores, game_id, now, rematch)


#: What each event causes beyond its game. A handler runs once per batch of events that
#: asks for it, on the game as it is after the batch.
EFFECTS: dict[str, tuple[Handler, ...]] = {
    "round_started": (index_accounts, announce_start, tell_turn),
    "seat_claimed": (index_accounts, relist_full, announce_start, tell_turn),
    "discard": (tell_turn,),
    "went_out": (tell_turn,),  # the next seat's final turn
    "seat_back": (tell_turn,),
    "game_finished": (tell_finished, unlist_finished, queue_rated, analyse_rated,
                      advance_tournament, advance_evaluation),
    "rematch_started": (announce_rematch,),
}
#: The events whose handlers matter for a game without account seats.
_ANY_GAME = frozenset({"seat_claimed", "game_finished", "rematch_started"})


def owes_effects(record: GameRecord, events: Sequence[Event]) -> bool:
    """Whether ``events`` of the game ``record`` ask for any handler's work: what makes
    the commit plan the game's visit before its save (so a lost process loses none)."""
    return any(e.type in _ANY_GAME or (e.type in EFFECTS and record.state.accounts)
               for e in events)


def run_effects(stores: Stores, game_id: str, now: float,
                record: GameRecord | None = None) -> int:
    """Run the handlers of the game's events past its cursor, then move the cursor on:
    the effects run now (how many events they covered). ``record``: the game as just
    loaded or saved (else it is loaded). Only events up to the record's own are run, so
    every handler sees a game at least as new as the events it answers."""
    record = record or stores.games.load(game_id)
    done = 0
    while record.handled is not None and record.handled < record.state.event_seq:
        events = [e for e in stores.games.events(game_id, record.handled, BATCH)
                  if e.seq <= record.state.event_seq]
        if not events:
            break
        handlers: list[Handler] = []
        for event in events:
            handlers += [h for h in EFFECTS.get(event.type, ()) if h not in handlers]
        for handler in handlers:
            handler(stores, record, events, now)
        stores.games.mark_handled(game_id, events[-1].seq)
        done += len(events)
        record = replace(record, handled=events[-1].seq)
    return done
