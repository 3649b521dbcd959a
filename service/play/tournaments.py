"""Tournaments: Swiss or round robin at tables of 2 to 8 seats, as their creator and
entrants ask for them (:mod:`.tournament_rounds` advances them on the move workers).

An account creates a tournament (its name, ``system``, ``seats`` per table, ``rounds``
for Swiss, its rules, ``turn_seconds``, ``rated``), inviting the accounts it names (each
takes invitations from it, as for a challenge: :func:`.admission.may_invite`; each plays
once it accepts, by joining) or open to any account that joins until it starts; it
starts at ``starts_at`` (within a year) or when its creator starts it.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from service.bots import BOTS
from service.core.instants import instant
from service.engine.game import check_ends, check_players, check_rated
from service.engine.serialize import rules_from_json
from service.storage import Account, Stores, Tournament, TournamentVisit, folded, member_of
from service.tournaments import Standing, standings

from .admission import may_invite
from .errors import (
    InvalidTournamentError,
    TooManyTournamentsError,
    TournamentClosedError,
    UnknownAccountError,
    UnknownTournamentError,
)
from .notes import tell

__all__ = [
    "MAX_ENTRANTS",
    "MAX_ROUNDS",
    "MAX_RUNNING",
    "create_tournament",
    "join_tournament",
    "leave_tournament",
    "note",
    "read_tournament",
    "standings_of",
    "start_tournament",
    "tournament_json",
    "tournaments_page",
]

log = logging.getLogger("three_thirteen.tournaments")

#: The most entrants of a tournament, and the most rounds (Swiss or round robin).
MAX_ENTRANTS = 64
MAX_ROUNDS = 30
#: Open or running tournaments an account may have created at once.
MAX_RUNNING = 3
#: How long a tournament is kept (its games' records are kept as long by default).
KEPT_SECONDS = 30 * 86_400
#: How far ahead a tournament may be set to start.
MAX_LEAD_SECONDS = 365 * 86_400


def tournament_json(t: Tournament) -> dict[str, object]:
    """The tournament as the API shows it, with its live standings."""
    return {
        "tournament_id": t.tournament_id, "name": t.name, "creator": t.creator,
        "system": t.system, "seats": t.seats, "rounds": t.total_rounds,
        "status": t.status, "open": t.open, "rules": t.rules,
        "turn_seconds": t.turn_seconds, "rated": t.rated,
        "entrants": list(t.entrants), "invited": list(t.invited),
        "created": instant(t.created),
        "starts_at": instant(t.starts_at), "started": instant(t.started),
        "finished": instant(t.finished),
        "played": [{"round": r.round, "byes": list(r.byes), "tables": [
            {**table.to_json(), "finished": table.game_id in t.results}
            for table in r.tables]} for r in t.rounds],
        "standings": [s.to_json() for s in standings_of(t)],
    }


def standings_of(t: Tournament) -> list[Standing]:
    """The tournament's standings from the results it kept."""
    return standings(t.entrants, t.seats, list(t.results.values()), t.byes)


def _invited(stores: Stores, creator: Account, handle: str) -> str:
    """A named entrant as registered: an account that takes invitations from the creator
    (:func:`.admission.may_invite`); the reference bots play no tournaments."""
    if folded(handle) in BOTS:
        raise UnknownAccountError(f"there is no account {handle!r} (the reference bots play "
                                  "challenges and the ladder, not tournaments)")
    if folded(handle) == folded(creator.handle):
        return creator.handle
    return may_invite(stores, creator, handle)


def _check_start(starts_at: float | None, now: float) -> None:
    if starts_at is not None and not now <= starts_at <= now + MAX_LEAD_SECONDS:
        raise InvalidTournamentError(
            "starts_at is a time from now to a year ahead (Unix seconds), or null: when its "
            "creator starts it")


def create_tournament(stores: Stores, creator: Account, body: Mapping[str, Any],
                      now: float | None = None) -> Tournament:
    """A new tournament (``body`` as ``POST /v1/tournaments`` parsed it), listed open. The
    accounts it names are *invited*: each hears ``tournament_invited`` and plays only once
    it accepts (``join``); the creator, if named, has entered. Without names it is open
    to any account that joins."""
    now = time.time() if now is None else now
    seats, system = body["seats"], body["system"]
    rules = rules_from_json(body["rules"])
    check_players(rules, seats)
    check_ends(rules, body["turn_seconds"])
    if body["rated"]:
        check_rated(rules, body["turn_seconds"], [None] * seats, [creator.handle] * seats)
    _check_start(body["starts_at"], now)
    named = [_invited(stores, creator, h) for h in body["entrants"] or ()]
    if len({folded(h) for h in named}) != len(named):
        raise InvalidTournamentError("each entrant is named once")
    if len(named) > MAX_ENTRANTS:
        raise InvalidTournamentError(f"a tournament has at most {MAX_ENTRANTS} entrants")
    if system == "swiss" and not 1 <= body["rounds"] <= MAX_ROUNDS:
        raise InvalidTournamentError(f"a Swiss tournament has 1 to {MAX_ROUNDS} rounds")
    running = [t for t in (stores.tournaments.load(i)
                           for i in stores.tournaments.indexed(creator.handle, now))
               if t is not None and t.status != "finished"
               and folded(t.creator) == folded(creator.handle)]
    if len(running) >= MAX_RUNNING:
        raise TooManyTournamentsError(
            f"you have {len(running)} tournaments open or running, the most at once",
            cap=MAX_RUNNING)
    tid = secrets.token_urlsafe(9)
    t = Tournament(
        tournament_id=tid, name=body["name"], creator=creator.handle,
        system=system, seats=seats,
        total_rounds=body["rounds"] if system == "swiss" else None,
        status="open", open=not named, rules=rules.to_dict(),
        turn_seconds=body["turn_seconds"], rated=body["rated"],
        entrants=tuple(h for h in named if folded(h) == folded(creator.handle)),
        invited=tuple(h for h in named if folded(h) != folded(creator.handle)),
        created=now, starts_at=body["starts_at"],
    )
    stores.tournaments.create(t, KEPT_SECONDS)
    for handle in {creator.handle, *named}:
        stores.tournaments.index(handle, tid, now + KEPT_SECONDS)
    stores.tournaments.relist("open", tid, now)
    if t.starts_at is not None:
        stores.schedule.plan(member_of(TournamentVisit(tid)), t.starts_at)
    for handle in t.invited:
        tell(stores, handle, [note(t, "tournament_invited", "invited",
                                    creator=creator.handle, system=system, seats=seats,
                                    rated=t.rated, starts_at=instant(t.starts_at))])
    return t


def read_tournament(stores: Stores, tournament_id: str) -> Tournament:
    """The tournament (404 if none): anyone may read one."""
    t = stores.tournaments.load(tournament_id)
    if t is None:
        raise UnknownTournamentError("there is no tournament with this id (or it is long over)")
    return t


_Step = Callable[[Tournament], Tournament | None]


def _open_step(verb: str, step: _Step) -> _Step:
    def checked(current: Tournament) -> Tournament | None:
        if current.status != "open" or current.start_asked:
            raise TournamentClosedError(f"this tournament has started: it can no longer be "
                                        f"{verb}")
        return step(current)
    return checked


def _change(stores: Stores, tournament_id: str, step: _Step) -> Tournament:
    changed = stores.tournaments.change(tournament_id, step)
    if changed is None:
        raise UnknownTournamentError("there is no tournament with this id (or it is long over)")
    return changed


def join_tournament(stores: Stores, account: Account, tournament_id: str) -> Tournament:
    """Enter an open tournament, or accept an invitation to one (joining twice is joining
    once)."""
    def step(current: Tournament) -> Tournament | None:
        if folded(account.handle) in {folded(h) for h in current.entrants}:
            return None
        invited = [h for h in current.invited if folded(h) == folded(account.handle)]
        if not current.open and not invited:
            raise TournamentClosedError("this tournament is for the accounts its creator "
                                        "invited")
        if len(current.entrants) >= MAX_ENTRANTS:
            raise TournamentClosedError(f"this tournament is full ({MAX_ENTRANTS})")
        return dataclasses.replace(
            current, entrants=(*current.entrants, invited[0] if invited else account.handle),
            invited=tuple(h for h in current.invited if h not in invited))

    t = _change(stores, tournament_id, _open_step("joined", step))
    stores.tournaments.index(account.handle, tournament_id, time.time() + KEPT_SECONDS)
    return t


def leave_tournament(stores: Stores, account: Account, tournament_id: str) -> Tournament:
    """Leave a tournament before it starts, or decline an invitation to it."""
    def step(current: Tournament) -> Tournament | None:
        mine = folded(account.handle)
        kept = tuple(h for h in current.entrants if folded(h) != mine)
        invited = tuple(h for h in current.invited if folded(h) != mine)
        if len(kept) == len(current.entrants) and len(invited) == len(current.invited):
            return None
        return dataclasses.replace(current, entrants=kept, invited=invited)

    return _change(stores, tournament_id, _open_step("left", step))


def start_tournament(stores: Stores, account: Account, tournament_id: str) -> Tournament:
    """Its creator starts an open tournament: the move workers pair its first round."""
    def step(current: Tournament) -> Tournament | None:
        if folded(current.creator) != folded(account.handle):
            raise TournamentClosedError("only its creator starts a tournament")
        if len(current.entrants) < current.seats:
            raise InvalidTournamentError(
                f"a tournament of {current.seats}-seat tables needs at least "
                f"{current.seats} entrants")
        return dataclasses.replace(current, start_asked=True)

    t = _change(stores, tournament_id, _open_step("started", step))
    stores.schedule.plan(member_of(TournamentVisit(tournament_id)), time.time())
    return t


def tournaments_page(stores: Stores, status: str, before: float | None,
                     limit: int) -> tuple[list[dict[str, object]], float | None]:
    """A page of the tournaments listed under ``status``, newest first, as the API shows
    them, and the cursor of the next (``None``: the last page). An entry that moved on is
    skipped, and so is one that cannot be shown (logged): one bad document never takes
    the list down for everyone."""
    listed = stores.tournaments.listed(status, before, limit)
    found = []
    for tid, _ in listed:
        try:
            t = stores.tournaments.load(tid)
            if t is None or t.status != status:
                continue
            found.append(tournament_json(t))
        except (KeyError, TypeError, ValueError, OverflowError, OSError):
            log.exception("tournament %s cannot be shown: left out of the list", tid)
    cursor = listed[-1][1] if len(listed) == limit else None
    return found, cursor


def note(t: Tournament, kind: str, key: str, **fields: object) -> tuple[str, dict[str, object]]:
    """A note about ``t`` for an entrant's stream (``key``: what makes it once)."""
    return (f"tn:{t.tournament_id}:{key}",
            {"type": kind, "tournament_id": t.tournament_id, "name": t.name, **fields})
