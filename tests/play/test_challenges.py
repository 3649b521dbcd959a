"""Challenges in the service layer, on the in-memory stores: who may challenge whom, the
answers and what each side hears, expiry by the move workers, the game an acceptance
starts, and the limits."""

from __future__ import annotations

import threading
import time

import pytest

from service.play import (
    LoadLimit,
    accept_challenge,
    cancel_challenge,
    create_account,
    decline_challenge,
    my_challenges,
    open_challenge,
    read_challenge,
    update_settings,
)
from service.play.challenges import MAX_OPEN_CHALLENGES
from service.play.errors import (
    ChallengeClosedError,
    ChallengeRefusedError,
    InvalidChallengeError,
    TooManyBotGamesError,
    TooManyChallengesError,
    UnknownAccountError,
    UnknownChallengeError,
)
from service.storage import Account, Challenge, Stores
from tests.play.conftest import drain


def account(stores: Stores, handle: str, bot: bool = False) -> Account:
    return create_account(stores, handle, bot)[0]


def heard(stores: Stores, handle: str) -> list[str]:
    return [n.body["type"] for n in stores.accounts.notes(handle, 0, 100)]


def test_a_challenge_accepted_by_everyone_starts_one_game_with_the_challenger_first(
        stores: Stores) -> None:
    ann, bob, cid = account(stores, "ann"), account(stores, "bob"), account(stores, "cid")
    made = open_challenge(stores, ann, ["cid", "bob"], None, 60, False, 600)
    assert made.status == "pending" and made.game_id is None
    assert heard(stores, "bob") == heard(stores, "cid") == ["challenge"]
    half = accept_challenge(stores, bob, made.challenge_id)
    assert half.status == "pending" and half.accepted == ("bob",)
    done = accept_challenge(stores, cid, made.challenge_id)
    assert done.status == "accepted" and done.accepted == ("cid", "bob")
    game = stores.games.load(done.game_id).state
    assert game.names == ("ann", "cid", "bob")
    assert game.accounts == ("ann", "cid", "bob") and game.turn_seconds == 60
    for handle in ("ann", "bob", "cid"):
        assert "game_started" in heard(stores, handle)
    assert my_challenges(stores, ann) == []


def test_a_challenge_to_reference_bots_only_starts_its_game_at_once(stores: Stores) -> None:
    ann = account(stores, "ann")
    made = open_challenge(stores, ann, ["strong", "Greedy"], None, 60, False, 600)
    assert made.status == "accepted" and made.accepted == ("strong", "greedy")
    state = stores.games.load(made.game_id).state
    assert state.bots == (None, "strong", "greedy")


def test_accepting_twice_is_accepting_once_and_racing_acceptances_start_one_game(
        stores: Stores) -> None:
    ann = account(stores, "ann")
    others = [account(stores, f"p{i}") for i in range(3)]
    made = open_challenge(stores, ann, [a.handle for a in others], None, 60, False, 600)
    accept_challenge(stores, others[0], made.challenge_id)
    assert accept_challenge(stores, others[0], made.challenge_id).accepted == ("p0",)
    results = []
    threads = [threading.Thread(target=lambda a=a: results.append(
        accept_challenge(stores, a, made.challenge_id))) for a in others[1:]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {r.game_id for r in results if r.status == "accepted"} != set()
    final = read_challenge(stores, ann, made.challenge_id)
    assert final.status == "accepted"
    assert [g for g, _ in stores.accounts.games("ann", "active", None, 10)] == [final.game_id]


def test_a_decline_ends_the_challenge_and_the_others_hear_it(stores: Stores) -> None:
    ann, bob, cid = account(stores, "ann"), account(stores, "bob"), account(stores, "cid")
    made = open_challenge(stores, ann, ["bob", "cid"], None, 60, False, 600)
    out = decline_challenge(stores, bob, made.challenge_id)
    assert out.status == "declined" and out.declined_by == "bob"
    assert heard(stores, "ann") == ["challenge_declined"]
    assert heard(stores, "cid") == ["challenge", "challenge_declined"]
    assert heard(stores, "bob") == ["challenge"]
    with pytest.raises(ChallengeClosedError):
        accept_challenge(stores, cid, made.challenge_id)


def test_a_cancel_is_the_challengers_and_the_challenged_hear_it(stores: Stores) -> None:
    ann, bob = account(stores, "ann"), account(stores, "bob")
    made = open_challenge(stores, ann, ["bob"], None, 60, False, 600)
    with pytest.raises(UnknownChallengeError):
        cancel_challenge(stores, bob, made.challenge_id)
    with pytest.raises(UnknownChallengeError):
        accept_challenge(stores, ann, made.challenge_id)
    assert cancel_challenge(stores, ann, made.challenge_id).status == "canceled"
    notes = stores.accounts.notes("bob", 0, 10)
    assert [n.body["type"] for n in notes] == ["challenge", "challenge_canceled"]
    assert notes[1].body["reason"] == "canceled"


def test_an_unanswered_challenge_expires_by_a_move_worker_and_both_sides_hear_it(
        stores: Stores) -> None:
    ann, bob = account(stores, "ann"), account(stores, "bob")
    now = time.time()
    made = open_challenge(stores, ann, ["bob"], None, 60, False, 30, now=now)
    drain(stores, clock=lambda: now + 10)
    assert read_challenge(stores, bob, made.challenge_id).status == "pending"
    drain(stores, clock=lambda: now + 31)
    assert read_challenge(stores, bob, made.challenge_id).status == "expired"
    for handle in ("ann", "bob"):
        last = stores.accounts.notes(handle, 0, 10)[-1].body
        assert last["type"] == "challenge_canceled" and last["reason"] == "expired"


def test_a_game_whose_accepting_request_died_is_started_by_a_move_worker(
        stores: Stores, monkeypatch: pytest.MonkeyPatch) -> None:
    from service.play import challenges
    ann, bob = account(stores, "ann"), account(stores, "bob")
    made = open_challenge(stores, ann, ["bob"], None, 60, False, 600)
    monkeypatch.setattr(challenges, "_start", lambda *a, **k: None)  # the request dies
    done = accept_challenge(stores, bob, made.challenge_id)
    monkeypatch.undo()
    drain(stores, clock=lambda: time.time() + challenges.START_GRACE_SECONDS + 1)
    assert stores.games.load(done.game_id).state.accounts == ("ann", "bob")


def test_a_challenge_reads_accepted_only_once_its_game_exists(
        stores: Stores, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between the last acceptance and the game's creation (a busy or dead request) the
    challenger once read ``accepted`` with a game id the service answered 404 for."""
    from service.play import challenges
    ann, bob = account(stores, "ann"), account(stores, "bob")
    made = open_challenge(stores, ann, ["bob"], None, 60, False, 600)
    monkeypatch.setattr(challenges, "_start", lambda *a, **k: None)  # not made yet
    accept_challenge(stores, bob, made.challenge_id)
    monkeypatch.undo()
    early = read_challenge(stores, ann, made.challenge_id)
    assert (early.status, early.game_id, early.accepted) == ("pending", None, ("bob",))
    drain(stores, clock=lambda: time.time() + challenges.START_GRACE_SECONDS + 1)
    late = read_challenge(stores, ann, made.challenge_id)
    assert late.status == "accepted" and late.game_id is not None
    assert stores.games.load(late.game_id).state.accounts == ("ann", "bob")


def test_a_challenge_to_bots_only_is_stored_after_its_game_is_made(
        stores: Stores, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nobody knows it before the answer, so its game comes first: a request that dies
    between the two leaves no accepted challenge without a game (nothing would start
    it)."""
    from service.play import challenges
    ann = account(stores, "ann")
    started: list[Challenge] = []

    def dies(_: Stores, challenge: Challenge, load: object) -> None:
        started.append(challenge)
        raise RuntimeError("the request died")

    monkeypatch.setattr(challenges, "_start", dies)
    with pytest.raises(RuntimeError):
        open_challenge(stores, ann, ["strong"], None, 60, False, 600)
    assert started[0].status == "accepted"
    assert stores.challenges.load(started[0].challenge_id) is None


def test_who_may_be_challenged(stores: Stores) -> None:
    ann, robo = account(stores, "ann"), account(stores, "robo", bot=True)
    bob = account(stores, "bob")
    with pytest.raises(InvalidChallengeError):
        open_challenge(stores, ann, ["Ann"], None, 60, False, 600)
    with pytest.raises(UnknownAccountError):
        open_challenge(stores, ann, ["nobody"], None, 60, False, 600)
    update_settings(stores, bob, challenges_from="bots")
    with pytest.raises(ChallengeRefusedError):
        open_challenge(stores, ann, ["bob"], None, 60, False, 600)
    assert open_challenge(stores, robo, ["bob"], None, 60, False, 600).status == "pending"
    update_settings(stores, bob, challenges_from="nobody")
    with pytest.raises(ChallengeRefusedError):
        open_challenge(stores, robo, ["bob"], None, 60, False, 600)


def test_a_challenge_is_none_of_an_outsiders_business(stores: Stores) -> None:
    ann, eve = account(stores, "ann"), account(stores, "eve")
    account(stores, "bob")
    made = open_challenge(stores, ann, ["bob"], None, 60, False, 600)
    for answer in (read_challenge, accept_challenge, decline_challenge, cancel_challenge):
        with pytest.raises(UnknownChallengeError):
            answer(stores, eve, made.challenge_id)


def test_an_account_holds_a_bounded_number_of_pending_challenges(stores: Stores) -> None:
    ann = account(stores, "ann")
    account(stores, "bob")
    for _ in range(MAX_OPEN_CHALLENGES):
        open_challenge(stores, ann, ["bob"], None, 60, False, 600)
    with pytest.raises(TooManyChallengesError):
        open_challenge(stores, ann, ["bob"], None, 60, False, 600)
    first = my_challenges(stores, ann)[0]
    cancel_challenge(stores, ann, first.challenge_id)
    assert open_challenge(stores, ann, ["bob"], None, 60, False, 600).status == "pending"


def test_an_acceptance_the_bot_cap_refuses_leaves_the_challenge_pending_and_no_game(
        stores: Stores) -> None:
    """The last acceptance's game would pass its address's cap: the accept is refused and
    taken back, so no worker starts the game later without the cap (it did)."""
    ann, bob = account(stores, "ann"), account(stores, "bob")
    made = open_challenge(stores, ann, ["bob", "expert"], None, 60, False, 600)
    with pytest.raises(TooManyBotGamesError):
        accept_challenge(stores, bob, made.challenge_id, LoadLimit("bob", cap=1.0))
    back = read_challenge(stores, bob, made.challenge_id)
    assert back.status == "pending" and back.game_id is None
    assert back.accepted == ("expert",)
    drain(stores, clock=lambda: time.time() + 10)  # the worker's visit starts nothing
    assert read_challenge(stores, bob, made.challenge_id).status == "pending"
    done = accept_challenge(stores, bob, made.challenge_id, LoadLimit("bob", cap=160.0))
    assert stores.games.load(done.game_id).state.accounts == ("ann", "bob", None)
