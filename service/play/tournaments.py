"""Tournaments: Swiss or round robin at tables of 2 to 8 seats, advanced by the move workers.

An account creates a tournament (its name, ``system``, ``seats`` per table, ``rounds``
for Swiss, its rules, ``turn_seconds``, ``rated``) for a list of accounts, or open to
join until it starts; it starts at ``starts_at`` or when its creator starts it. Every
pairing and every game is the move workers' (a schedule member ``tournament:<id>``,
:func:`visit_tournament`), never a request's: a start, and the end of each game of the
tournament (:func:`.commit.commit` plans the visit: :func:`tournament_of` reads the
tournament from the game's id), bring the visit forward, and the visit pairs the next
round when every game of the current one has its result.

Why a re-visit never makes a round twice: the round is written into the tournament (a
compare-and-set that expects the rounds so far) before its games are created, and each
game's id is the tournament's, the round's and the table's (:func:`game_id_for`), so a
visit after a crash creates only the games still missing (:class:`GameExistsError` for
the others), with the pairing already stored.

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
import time
from collections.abc import Sequence
from typing import Any

from service.engine.game import check_ends, check_players, check_rated
from service.engine.serialize import rules_from_json
from service.engine.shoe import RandomStream
from service.storage import Account, GameExistsError, Lease, Stores, UnknownGameError, folded
from service.tournaments import (
    Result,
    Round,
    history,
    pair_swiss,
    result_of,
    round_robin,
    standings,
)
from service.tournaments.ids import TOURNAMENT_MEMBER, game_id_for
from service.verify.record import instant

from .errors import (
    GameNotFinishedError,
    InvalidTournamentError,
    TooManyTournamentsError,
    TournamentClosedError,
    UnknownAccountError,
    UnknownTournamentError,
)
from .games import create_game
from .notes import tell
from .records import game_record

__all__ = ["MAX_ENTRANTS", "MAX_ROUNDS", "MAX_RUNNING", "create_tournament",
           "join_tournament", "leave_tournament", "read_tournament", "start_tournament",
           "tournament_json", "tournaments_page", "visit_tournament"]

#: The most entrants of a tournament, and the most rounds (Swiss or round robin).
MAX_ENTRANTS = 64
MAX_ROUNDS = 30
#: Open or running tournaments an account may have created at once.
MAX_RUNNING = 3
#: How long a tournament is kept (its games' records are kept as long by default).
KEPT_SECONDS = 30 * 86_400


def tournament_json(t: dict[str, Any]) -> dict[str, Any]:
    """The tournament as the API shows it, with its live standings."""
    results = [Result.from_json(r) for r in t["results"].values()]
    byes = [h for r in t["rounds"] for h in r["byes"]]
    return {
        "tournament_id": t["tournament_id"], "name": t["name"], "creator": t["creator"],
        "system": t["system"], "seats": t["seats"], "rounds": t["total_rounds"],
        "status": t["status"], "open": t["open"], "rules": t["rules"],
        "turn_seconds": t["turn_seconds"], "rated": t["rated"],
        "entrants": list(t["entrants"]), "created": instant(t["created"]),
        "starts_at": instant(t["starts_at"]), "started": instant(t["started"]),
        "finished": instant(t["finished"]),
        "played": [{"round": r["round"], "byes": r["byes"], "tables": [
            {**table, "finished": table["game_id"] in t["results"]} for table in r["tables"]]}
            for r in t["rounds"]],
        "standings": [s.to_json() for s in standings(t["entrants"], t["seats"], results, byes)],
    }


def _entrant(stores: Stores, handle: str) -> str:
    account = stores.accounts.load(handle)
    if account is None or account.closed:
        raise UnknownAccountError(f"there is no account {handle!r}")
    return account.handle


def create_tournament(stores: Stores, creator: Account, body: dict[str, Any],
                      now: float | None = None) -> dict[str, Any]:
    """A new tournament (``body`` as ``POST /v1/tournaments`` parsed it), listed open."""
    now = time.time() if now is None else now
    seats, system = body["seats"], body["system"]
    rules = rules_from_json(body["rules"])
    check_players(rules, seats)
    check_ends(rules, body["turn_seconds"])
    if body["rated"]:
        check_rated(rules, body["turn_seconds"], [None] * seats, [creator.handle] * seats)
    entrants = [_entrant(stores, h) for h in body["entrants"] or ()]
    if len({folded(h) for h in entrants}) != len(entrants):
        raise InvalidTournamentError("each entrant is named once")
    if len(entrants) > MAX_ENTRANTS:
        raise InvalidTournamentError(f"a tournament has at most {MAX_ENTRANTS} entrants")
    if system == "swiss" and not 1 <= body["rounds"] <= MAX_ROUNDS:
        raise InvalidTournamentError(f"a Swiss tournament has 1 to {MAX_ROUNDS} rounds")
    running = [t for t in (stores.tournaments.load(i)
                           for i in stores.tournaments.indexed(creator.handle, now))
               if t is not None and t["status"] != "finished"
               and folded(t["creator"]) == folded(creator.handle)]
    if len(running) >= MAX_RUNNING:
        raise TooManyTournamentsError(
            f"you have {len(running)} tournaments open or running, the most at once",
            cap=MAX_RUNNING)
    tid = secrets.token_urlsafe(9)
    t: dict[str, Any] = {
        "tournament_id": tid, "name": body["name"], "creator": creator.handle,
        "system": system, "seats": seats,
        "total_rounds": body["rounds"] if system == "swiss" else None,
        "status": "open", "open": not entrants, "rules": rules.to_dict(),
        "turn_seconds": body["turn_seconds"], "rated": body["rated"],
        "entrants": entrants, "created": now, "starts_at": body["starts_at"],
        "start_asked": False, "started": None, "finished": None,
        "schedule": None, "rounds": [], "results": {},
    }
    stores.tournaments.create(t, KEPT_SECONDS)
    for handle in {creator.handle, *entrants}:
        stores.tournaments.index(handle, tid, now + KEPT_SECONDS)
    stores.tournaments.relist("open", tid, now)
    if body["starts_at"] is not None:
        stores.schedule.plan(TOURNAMENT_MEMBER + tid, body["starts_at"])
    return t


def read_tournament(stores: Stores, tournament_id: str) -> dict[str, Any]:
    """The tournament (404 if none): anyone may read one."""
    t = stores.tournaments.load(tournament_id)
    if t is None:
        raise UnknownTournamentError("there is no tournament with this id (or it is long over)")
    return t


def _open_step(account: Account, verb: str, step: Any) -> Any:
    def checked(current: dict[str, Any]) -> dict[str, Any] | None:
        if current["status"] != "open" or current["start_asked"]:
            raise TournamentClosedError(f"this tournament has started: it can no longer be "
                                        f"{verb}")
        return step(current)  # type: ignore[no-any-return]
    return checked


def _change(stores: Stores, tournament_id: str, step: Any) -> dict[str, Any]:
    changed = stores.tournaments.change(tournament_id, step)
    if changed is None:
        raise UnknownTournamentError("there is no tournament with this id (or it is long over)")
    return changed


def join_tournament(stores: Stores, account: Account, tournament_id: str) -> dict[str, Any]:
    """Enter an open tournament (joining twice is joining once)."""
    def step(current: dict[str, Any]) -> dict[str, Any] | None:
        if not current["open"]:
            raise TournamentClosedError("this tournament is for the accounts its creator "
                                        "named")
        if folded(account.handle) in {folded(h) for h in current["entrants"]}:
            return None
        if len(current["entrants"]) >= MAX_ENTRANTS:
            raise TournamentClosedError(f"this tournament is full ({MAX_ENTRANTS})")
        current["entrants"].append(account.handle)
        return current

    t = _change(stores, tournament_id, _open_step(account, "joined", step))
    stores.tournaments.index(account.handle, tournament_id, time.time() + KEPT_SECONDS)
    return t


def leave_tournament(stores: Stores, account: Account, tournament_id: str) -> dict[str, Any]:
    """Leave a tournament before it starts."""
    def step(current: dict[str, Any]) -> dict[str, Any] | None:
        kept = [h for h in current["entrants"] if folded(h) != folded(account.handle)]
        if len(kept) == len(current["entrants"]):
            return None
        current["entrants"] = kept
        return current

    return (_change(stores, tournament_id, _open_step(account, "left", step)))


def start_tournament(stores: Stores, account: Account, tournament_id: str) -> dict[str, Any]:
    """Its creator starts an open tournament: the move workers pair its first round."""
    def step(current: dict[str, Any]) -> dict[str, Any] | None:
        if folded(current["creator"]) != folded(account.handle):
            raise TournamentClosedError("only its creator starts a tournament")
        if len(current["entrants"]) < current["seats"]:
            raise InvalidTournamentError(
                f"a tournament of {current['seats']}-seat tables needs at least "
                f"{current['seats']} entrants")
        current["start_asked"] = True
        return current

    t = _change(stores, tournament_id, _open_step(account, "started", step))
    stores.schedule.plan(TOURNAMENT_MEMBER + tournament_id, time.time())
    return t


def tournaments_page(stores: Stores, status: str, before: float | None,
                     limit: int) -> tuple[list[dict[str, Any]], float | None]:
    """A page of the tournaments listed under ``status``, newest first, and the cursor of
    the next (``None``: the last page). An entry that moved on is skipped."""
    listed = stores.tournaments.listed(status, before, limit)
    found = [t for t in (stores.tournaments.load(i) for i, _ in listed)
             if t is not None and t["status"] == status]
    cursor = listed[-1][1] if len(listed) == limit else None
    return found, cursor


def _note(t: dict[str, Any], kind: str, key: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    return (f"tn:{t['tournament_id']}:{key}",
            {"type": kind, "tournament_id": t["tournament_id"], "name": t["name"], **fields})


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
                            rated=t["rated"], secret_seed=True)
            held = stores.games.load(game_id).state.accounts
        else:
            if not fresh:
                continue
        for seat, handle in enumerate(held):
            if handle is not None:
                tell(stores, handle, [_note(t, "round_started", f"{played['round']}",
                                            round=played["round"], game_id=game_id,
                                            seat=seat, bye=False)])
    for handle in played["byes"] if fresh else ():
        tell(stores, handle, [_note(t, "round_started", f"{played['round']}",
                                    round=played["round"], game_id=None, seat=None, bye=True)])


def _start(stores: Stores, t: dict[str, Any], now: float) -> dict[str, Any] | None:
    """Start an open tournament whose time has come: running with its schedule (round
    robin), or canceled-as-finished when too few entered."""
    def step(current: dict[str, Any]) -> dict[str, Any] | None:
        if current["status"] != "open":
            return None
        current["started"] = now
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
            tell(stores, handle, [_note(started, "tournament_started", "started",
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
        tell(stores, line["handle"], [_note(done, "tournament_finished", "finished",
                                            place=line["place"], points=line["points"],
                                            standings=table)])
    return done


def visit_tournament(stores: Stores, lease: Lease, now: float) -> None:
    """A move worker's visit: start the tournament when due, keep the results of the
    games that ended, pair the next round once the current one is over (creating its
    games), finish it after the last; then release it (the next visit is planned by the
    end of a game, a start, or ``starts_at``)."""
    t = stores.tournaments.load(lease.key.removeprefix(TOURNAMENT_MEMBER))
    if t is not None and t["status"] == "open":
        due = t["start_asked"] or (t["starts_at"] is not None and t["starts_at"] <= now)
        if not due:
            stores.schedule.release(lease, t["starts_at"])
            return
        t = _start(stores, t, now)
    if t is not None and t["status"] == "running":
        t = _advance(stores, _collect(stores, t), now)
    stores.schedule.release(lease, None)
