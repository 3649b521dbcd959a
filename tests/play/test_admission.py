"""Admission (``service/play/admission.py``) on the memory stores: every path into a game
passes it, an account sits only where it agreed, and the rated pair limit holds on
every path (tournaments included)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from service import play
from service.engine.serialize import rules_from_json
from service.play.admission import (
    RATED_PAIR_LIMIT,
    Admission,
    Seat,
    Table,
    agreed_by_key,
    agreed_in_tournament,
)
from service.play.credentials import account_credential
from service.play.errors import ChallengeRefusedError, RatedPairLimitedError, TournamentClosedError
from service.play.games import deal
from service.storage import Account, Stores, Tournament

from .conftest import drain

SERVICE = Path(__file__).resolve().parents[2] / "service"


def _account(stores: Stores, handle: str, **settings: object) -> Account:
    account, _ = play.create_account(stores, handle, False)
    return play.update_settings(stores, account, **settings) if settings else account


def _tournament(stores: Stores, creator: Account, entrants: list[str], **body: object
                ) -> Tournament:
    return play.create_tournament(stores, creator, {
        "name": "t", "system": "swiss", "seats": 2, "rounds": 3, "rules": {"preset": "classic"},
        "turn_seconds": 600, "rated": False, "entrants": entrants, "starts_at": None, **body})


def test_only_the_admission_module_lets_a_game_be_stored() -> None:
    """The game store's create is called by one function (store_new_game), which only
    deal calls, and deal refuses anything admit did not make."""
    callers: dict[str, set[str]] = {}
    for path in SERVICE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef):
                continue
            for call in ast.walk(fn):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
                        and call.func.id in ("store_new_game", "deal", "create"):
                    where = f"{path.relative_to(SERVICE)}:{fn.name}"
                    callers.setdefault(call.func.id, set()).add(where)
    assert callers["store_new_game"] == {"play/games.py:deal"}
    assert callers["create"] == {"play/games.py:store_new_game"}
    assert {c for c in callers["deal"] if c.startswith("play/")} == {
        "play/games.py:create_game", "play/rematch.py:_new_game_like"}  # worlds.deal is a deck's


def test_a_game_is_dealt_only_from_what_admit_returned(stores: Stores) -> None:
    rules = rules_from_json(None)
    forged = Admission(Table(agreed_by_key(None), rules, (Seat("a"), Seat("b"))), "g", False, 0)
    with pytest.raises(TypeError, match="only from what admit"):
        deal(stores, forged, None)


def test_an_account_is_never_seated_where_it_did_not_agree(stores: Stores) -> None:
    ann, bob = _account(stores, "ann"), _account(stores, "bob")
    with pytest.raises(play.NotYourAccountError):  # bob's seat in a game ann creates
        play.create_game(stores, None, ["ann", "bob"], None, accounts=[ann, bob],
                         agreed=agreed_by_key(ann))
    t = _tournament(stores, ann, ["ann", "bob"])
    with pytest.raises(play.NotYourAccountError):  # invited, not yet accepted
        play.create_game(stores, None, ["ann", "bob"], None, accounts=[ann, bob],
                         agreed=agreed_in_tournament(t))


def test_an_account_that_refuses_invitations_is_never_seated(stores: Stores) -> None:
    ann = _account(stores, "ann")
    _account(stores, "shy", challenges_from="nobody")
    _account(stores, "botsonly", challenges_from="bots")
    for refusing in ("shy", "botsonly"):
        with pytest.raises(ChallengeRefusedError):
            _tournament(stores, ann, ["ann", refusing])
        with pytest.raises(ChallengeRefusedError):
            play.open_challenge(stores, ann, [refusing], None, 60, False, 600)
    assert stores.accounts.load("shy") is not None
    shy = stores.accounts.load("shy")
    assert shy is not None and play.my_games(stores, shy, None, None, 10) == ([], None)


def test_invited_accounts_play_only_once_they_accept(stores: Stores) -> None:
    ann, bob, cid = (_account(stores, h) for h in ("ann", "bob", "cid"))
    t = _tournament(stores, ann, ["ann", "bob", "cid"])
    assert t.entrants == ("ann",) and t.invited == ("bob", "cid")
    assert [n.body["type"] for n in stores.accounts.notes(cid.handle, 0, 10)] == \
        ["tournament_invited"]
    tid = t.tournament_id
    play.join_tournament(stores, bob, tid)  # bob accepts; cid never answers
    play.start_tournament(stores, ann, tid)
    drain(stores)
    started = play.read_tournament(stores, tid)
    assert started.entrants == ("ann", "bob") and started.invited == ()
    seated = {h for r in started.rounds for table in r.tables for h in table.players}
    assert seated == {"ann", "bob"}
    with pytest.raises(TournamentClosedError):
        play.join_tournament(stores, cid, tid)


def test_a_rated_tournament_between_two_accounts_rates_at_most_the_pair_limit_a_day(
        stores: Stores) -> None:
    """The farming of the report: two accounts of one person in a rated Swiss of 30
    rounds, one resigning every game. Its games go on, but only the first ten are rated."""
    a1, a2 = _account(stores, "farm1"), _account(stores, "farm2")
    t = _tournament(stores, a1, ["farm1", "farm2"], rounds=30, rated=True)
    tid = t.tournament_id
    play.join_tournament(stores, a2, tid)
    play.start_tournament(stores, a1, tid)
    games: list[str] = []
    for _ in range(40):
        drain(stores)  # the worker's visit: the next round's game
        current = play.read_tournament(stores, tid)
        if current.status == "finished":
            break
        game_id = current.rounds[-1].tables[0].game_id
        if game_id not in games:
            games.append(game_id)
            play.act(stores, game_id, account_credential("farm2"), {"type": "resign"})
    assert len(games) == 30
    rated = [stores.games.load(g).state.rated for g in games]
    assert rated == [True] * RATED_PAIR_LIMIT + [False] * (30 - RATED_PAIR_LIMIT)
    with pytest.raises(RatedPairLimitedError):  # and a rated challenge is refused
        play.open_challenge(stores, a1, ["farm2"], None, 60, True, 600)


def test_an_entrant_who_closed_its_account_does_not_stop_the_tournament(
        stores: Stores) -> None:
    """Its seat is dealt (it agreed when it entered) and nobody plays it; every table of
    the round is made, its own too."""
    ann, bob, cid, dee = (_account(stores, h) for h in ("ann", "bob", "cid", "dee"))
    t = _tournament(stores, ann, ["ann", "bob", "cid", "dee"], rounds=1)
    tid = t.tournament_id
    for entrant in (bob, cid, dee):
        play.join_tournament(stores, entrant, tid)
    play.close_account(stores, bob)
    play.start_tournament(stores, ann, tid)
    drain(stores)
    tables = play.read_tournament(stores, tid).rounds[0].tables
    assert len(tables) == 2
    assert all(stores.games.load(x.game_id).state.accounts for x in tables)
