"""A tournament's rounds, made by the move workers: its start, each round's pairing and
games, the results kept from the games' records, its end (:func:`visit_tournament`).

Every pairing and every game is the move workers' (a :class:`~service.storage.TournamentVisit` job),
never a request's: a start, and the end of each game of the tournament
(the game's effects plan the visit, :func:`.effects.advance_tournament`, reading the
tournament from the game's id), bring the visit forward, and the visit pairs the next round when every
game of the current one has its result.

Why a re-visit never makes a round twice: the round is written into the tournament (a
compare-and-set that expects the rounds so far) before its games are created, and each
game's id is the tournament's, the round's and the table's (:func:`game_id_for`), so a
visit after a crash creates only the games still missing (:class:`GameExistsError` for
the others), with the pairing already stored. Each game is admitted like any other
(:mod:`.admission`): its seats are the tournament's entrants, who agreed by entering.

Who moves first in a game is the deal's (the seat left of the first dealer, a function
of the seed), so the service draws the game's secret seed itself and seats the table
round from that seat in the pairing's turn order (:func:`_seating`): the player the
pairing gave the first seat is the one who moves first. The pairing and the standings
are :mod:`service.tournaments`'s (pure); the results are read from the games' records
(:func:`service.tournaments.result_of`), so the standings shown are those anyone
rebuilds from the records. Each entrant hears ``tournament_started``, ``round_started``
(its game and seat, or its bye) and ``tournament_finished`` (its place) on its stream.
"""

from __future__ import annotations

import contextlib
import dataclasses
import secrets
from collections.abc import Sequence

from service.engine.shoe import RandomStream
from service.storage import (
    GameExistsError,
    Lease,
    PlayedRound,
    Stores,
    Tournament,
    TournamentTable,
    UnknownGameError,
)
from service.tournaments import Result, Round, history, pair_swiss, result_of, round_robin
from service.tournaments.ids import game_id_for

from .admission import agreed_in_tournament
from .errors import GameNotFinishedError
from .games import create_game
from .notes import tell
from .records import game_record
from .tournaments import MAX_ROUNDS, note, standings_of

__all__ = ["visit_tournament"]


def _seating(table: Sequence[str], seed: str) -> list[str]:
    """The table's players by seat, so that the pairing's first (``table[0]``) sits where
    the deal of ``seed`` makes the first move: left of the first dealer
    (:func:`service.engine.new_game`), the others after it in turn order."""
    n = len(table)
    first = (RandomStream(seed, "first-dealer").below(n) + 1) % n
    seats = [""] * n
    for i, handle in enumerate(table):
        seats[(first + i) % n] = handle
    return seats


def _pair(t: Tournament) -> Round:
    """The next round's pairing, from the results so far (or the stored schedule)."""
    number = len(t.rounds)
    if t.system == "round_robin":
        assert t.schedule is not None, "a running round robin is scheduled"
        return t.schedule[number]
    results = list(t.results.values())
    order = [s.handle for s in standings_of(t)]
    if not results:  # the first round: entry order
        order = list(t.entrants)
    assert t.total_rounds is not None, "a Swiss tournament has its rounds"
    return pair_swiss(order, t.seats, history(results, t.byes),
                      t.total_rounds - number - 1)


def _create_games(stores: Stores, t: Tournament, played: PlayedRound, fresh: bool) -> None:
    """Create the games of a stored round that do not exist yet (all of a ``fresh``
    round; after a crash, those it left unmade), and tell their entrants."""
    for table in played.tables:
        game_id = table.game_id
        if game_id in t.results:
            continue
        try:
            held = stores.games.load(game_id).state.accounts
        except UnknownGameError:
            seed = secrets.token_hex(16)
            seats = _seating(table.players, seed)
            with contextlib.suppress(GameExistsError):  # a racing visit made it
                create_game(stores, t.rules, seats, seed, turn_seconds=t.turn_seconds,
                            game_id=game_id, accounts=[stores.accounts.load(h) for h in seats],
                            rated=t.rated, secret_seed=True, agreed=agreed_in_tournament(t))
            held = stores.games.load(game_id).state.accounts
        else:
            if not fresh:
                continue
        for seat, handle in enumerate(held):
            if handle is not None:
                tell(stores, handle, [note(t, "round_started", f"{played.round}",
                                            round=played.round, game_id=game_id,
                                            seat=seat, bye=False)])
    for handle in played.byes if fresh else ():
        tell(stores, handle, [note(t, "round_started", f"{played.round}",
                                    round=played.round, game_id=None, seat=None, bye=True)])


def _start(stores: Stores, t: Tournament, now: float) -> Tournament | None:
    """Start an open tournament whose time has come: running with its schedule (round
    robin), or canceled-as-finished when too few entered."""
    def step(current: Tournament) -> Tournament | None:
        if current.status != "open":
            return None
        # who did not answer in time does not play
        begun = dataclasses.replace(current, started=now, invited=())
        if len(current.entrants) < current.seats:
            return dataclasses.replace(begun, status="finished", finished=now)
        if current.system == "round_robin":
            schedule = tuple(round_robin(current.entrants, current.seats, MAX_ROUNDS))
            return dataclasses.replace(begun, status="running", schedule=schedule,
                                       total_rounds=len(schedule))
        return dataclasses.replace(begun, status="running")

    started = stores.tournaments.change(t.tournament_id, step)
    if started is None:
        return None
    stores.tournaments.relist(started.status, t.tournament_id, now, unlist="open")
    if started.status == "running":
        for handle in started.entrants:
            tell(stores, handle, [note(started, "tournament_started", "started",
                                        rounds=started.total_rounds,
                                        entrants=list(started.entrants))])
    return started


def _collect(stores: Stores, t: Tournament) -> Tournament:
    """Keep the results of the current round's games that finished since the last visit."""
    if not t.rounds:
        return t
    found: dict[str, Result] = {}
    for table in t.rounds[-1].tables:
        if table.game_id in t.results:
            continue
        with contextlib.suppress(GameNotFinishedError, UnknownGameError):
            found[table.game_id] = result_of(game_record(stores, table.game_id).body)
    if not found:
        return t

    def step(current: Tournament) -> Tournament:
        return dataclasses.replace(current, results={**current.results, **found})

    return stores.tournaments.change(t.tournament_id, step) or t


def _advance(stores: Stores, t: Tournament, now: float) -> Tournament:
    """Pair and store the next round when the current one is over (or finish)."""
    last = t.rounds[-1] if t.rounds else None
    if last is not None and any(x.game_id not in t.results for x in last.tables):
        _create_games(stores, t, last, fresh=False)  # after a crash: games it left unmade
        return t
    number = len(t.rounds)
    assert t.total_rounds is not None, "a running tournament has its rounds"
    if number >= t.total_rounds:
        return _finish(stores, t, now)
    pairing = _pair(t)
    played = PlayedRound(number + 1, tuple(pairing.byes), tuple(
        TournamentTable(game_id_for(t.tournament_id, number + 1, i), tuple(table))
        for i, table in enumerate(pairing.tables)))

    def step(current: Tournament) -> Tournament | None:
        if len(current.rounds) != number:
            return None  # paired already (another visit): keep that one
        return dataclasses.replace(current, rounds=(*current.rounds, played))

    stored = stores.tournaments.change(t.tournament_id, step) or t
    _create_games(stores, stored, stored.rounds[number], fresh=True)
    return stored


def _finish(stores: Stores, t: Tournament, now: float) -> Tournament:
    def step(current: Tournament) -> Tournament | None:
        if current.status != "running":
            return None
        return dataclasses.replace(current, status="finished", finished=now)

    done = stores.tournaments.change(t.tournament_id, step) or t
    stores.tournaments.relist("finished", t.tournament_id, now, unlist="running")
    table = standings_of(done)
    shown = [line.to_json() for line in table]
    for line in table:
        tell(stores, line.handle, [note(done, "tournament_finished", "finished",
                                         place=line.place, points=line.points,
                                         standings=shown)])
    return done


def visit_tournament(stores: Stores, lease: Lease, tournament_id: str, now: float) -> None:
    """A move worker's visit: start the tournament when due, keep the results of the
    games that ended, pair the next round once the current one is over (creating its
    games), finish it after the last; then release it (the next visit is planned by the
    end of a game, a start, or ``starts_at``)."""
    t = stores.tournaments.load(tournament_id)
    if t is not None and t.status == "open":
        due = t.start_asked or (t.starts_at is not None and t.starts_at <= now)
        if not due:
            stores.schedule.release(lease, t.starts_at)
            return
        t = _start(stores, t, now)
    if t is not None and t.status == "running":
        t = _advance(stores, _collect(stores, t), now)
    stores.schedule.release(lease, None)
