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
import secrets
from collections.abc import Sequence
from typing import Any

from service.engine.shoe import RandomStream
from service.storage import GameExistsError, Lease, Stores, UnknownGameError
from service.tournaments import (
    Result,
    Round,
    history,
    pair_swiss,
    result_of,
    round_robin,
    standings,
)
from service.tournaments.ids import game_id_for

from .admission import agreed_in_tournament
from .errors import GameNotFinishedError
from .games import create_game
from .notes import tell
from .records import game_record
from .tournaments import MAX_ROUNDS, note, tournament_json

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


def _pair(t: dict[str, Any]) -> Round:
    """The next round's pairing, from the results so far (or the stored schedule)."""
    number = len(t["rounds"])
    if t["system"] == "round_robin":
        plan = t["schedule"][number]
        return Round(tuple(tuple(x) for x in plan["tables"]), tuple(plan["byes"]))
    results = [Result.from_json(r) for r in t["results"].values()]
    byes = [h for r in t["rounds"] for h in r["byes"]]
    order = [s.handle for s in standings(t["entrants"], t["seats"], results, byes)]
    if not results:  # the first round: entry order
        order = list(t["entrants"])
    return pair_swiss(order, t["seats"], history(results, byes),
                      t["total_rounds"] - number - 1)


def _create_games(stores: Stores, t: dict[str, Any], played: dict[str, Any],
                  fresh: bool) -> None:
    """Create the games of a stored round that do not exist yet (all of a ``fresh``
    round; after a crash, those it left unmade), and tell their entrants."""
    for table in played["tables"]:
        game_id = table["game_id"]
        if game_id in t["results"]:
            continue
        try:
            held = stores.games.load(game_id).state.accounts
        except UnknownGameError:
            seed = secrets.token_hex(16)
            seats = _seating(table["players"], seed)
            with contextlib.suppress(GameExistsError):  # a racing visit made it
                create_game(stores, t["rules"], seats, seed, turn_seconds=t["turn_seconds"],
                            game_id=game_id, accounts=[stores.accounts.load(h) for h in seats],
                            rated=t["rated"], secret_seed=True, agreed=agreed_in_tournament(t))
            held = stores.games.load(game_id).state.accounts
        else:
            if not fresh:
                continue
        for seat, handle in enumerate(held):
            if handle is not None:
                tell(stores, handle, [note(t, "round_started", f"{played['round']}",
                                            round=played["round"], game_id=game_id,
                                            seat=seat, bye=False)])
    for handle in played["byes"] if fresh else ():
        tell(stores, handle, [note(t, "round_started", f"{played['round']}",
                                    round=played["round"], game_id=None, seat=None, bye=True)])


def _start(stores: Stores, t: dict[str, Any], now: float) -> dict[str, Any] | None:
    """Start an open tournament whose time has come: running with its schedule (round
    robin), or canceled-as-finished when too few entered."""
    def step(current: dict[str, Any]) -> dict[str, Any] | None:
        if current["status"] != "open":
            return None
        current["started"] = now
        current["invited"] = []  # who did not answer in time does not play
        if len(current["entrants"]) < current["seats"]:
            current.update(status="finished", finished=now)
            return current
        current["status"] = "running"
        if current["system"] == "round_robin":
            schedule = round_robin(current["entrants"], current["seats"], MAX_ROUNDS)
            current["schedule"] = [{"tables": [list(x) for x in r.tables],
                                    "byes": list(r.byes)} for r in schedule]
            current["total_rounds"] = len(schedule)
        return current

    started = stores.tournaments.change(t["tournament_id"], step)
    if started is None:
        return None
    stores.tournaments.relist(started["status"], t["tournament_id"], now, unlist="open")
    if started["status"] == "running":
        for handle in started["entrants"]:
            tell(stores, handle, [note(started, "tournament_started", "started",
                                        rounds=started["total_rounds"],
                                        entrants=list(started["entrants"]))])
    return started


def _collect(stores: Stores, t: dict[str, Any]) -> dict[str, Any]:
    """Keep the results of the current round's games that finished since the last visit."""
    if not t["rounds"]:
        return t
    found: dict[str, Any] = {}
    for table in t["rounds"][-1]["tables"]:
        if table["game_id"] in t["results"]:
            continue
        with contextlib.suppress(GameNotFinishedError, UnknownGameError):
            record, _ = game_record(stores, table["game_id"])
            found[table["game_id"]] = result_of(record).to_json()
    if not found:
        return t

    def step(current: dict[str, Any]) -> dict[str, Any]:
        current["results"].update(found)
        return current

    return stores.tournaments.change(t["tournament_id"], step) or t


def _advance(stores: Stores, t: dict[str, Any], now: float) -> dict[str, Any]:
    """Pair and store the next round when the current one is over (or finish)."""
    last = t["rounds"][-1] if t["rounds"] else None
    if last is not None and any(x["game_id"] not in t["results"] for x in last["tables"]):
        _create_games(stores, t, last, fresh=False)  # after a crash: games it left unmade
        return t
    number = len(t["rounds"])
    if number >= t["total_rounds"]:
        return _finish(stores, t, now)
    pairing = _pair(t)
    played = {"round": number + 1, "byes": list(pairing.byes), "tables": [
        {"game_id": game_id_for(t["tournament_id"], number + 1, i), "players": list(table)}
        for i, table in enumerate(pairing.tables)]}

    def step(current: dict[str, Any]) -> dict[str, Any] | None:
        if len(current["rounds"]) != number:
            return None  # paired already (another visit): keep that one
        current["rounds"].append(played)
        return current

    stored = stores.tournaments.change(t["tournament_id"], step) or t
    _create_games(stores, stored, stored["rounds"][number], fresh=True)
    return stored


def _finish(stores: Stores, t: dict[str, Any], now: float) -> dict[str, Any]:
    def step(current: dict[str, Any]) -> dict[str, Any] | None:
        if current["status"] != "running":
            return None
        current.update(status="finished", finished=now)
        return current

    done = stores.tournaments.change(t["tournament_id"], step) or t
    stores.tournaments.relist("finished", t["tournament_id"], now, unlist="running")
    table = tournament_json(done)["standings"]
    for line in table:
        tell(stores, line["handle"], [note(done, "tournament_finished", "finished",
                                            place=line["place"], points=line["points"],
                                            standings=table)])
    return done


def visit_tournament(stores: Stores, lease: Lease, tournament_id: str, now: float) -> None:
    """A move worker's visit: start the tournament when due, keep the results of the
    games that ended, pair the next round once the current one is over (creating its
    games), finish it after the last; then release it (the next visit is planned by the
    end of a game, a start, or ``starts_at``)."""
    t = stores.tournaments.load(tournament_id)
    if t is not None and t["status"] == "open":
        due = t["start_asked"] or (t["starts_at"] is not None and t["starts_at"] <= now)
        if not due:
            stores.schedule.release(lease, t["starts_at"])
            return
        t = _start(stores, t, now)
    if t is not None and t["status"] == "running":
        t = _advance(stores, _collect(stores, t), now)
    stores.schedule.release(lease, None)
