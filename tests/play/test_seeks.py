"""Matchmaking (``service/play/seeks.py``) on the in-memory stores: seekers of the same
rules meet in one game, one seat each, however they race; other rules never meet them;
a waiting seeker is woken by the one that completes its game; seeks expire or are
removed; a match whose game was not created is created by the next seeker to look."""

from __future__ import annotations

import hashlib
import threading
import time
from collections import Counter
from typing import Any

import pytest

from service.core.errors import InvalidRulesError
from service.engine import Event, GameState
from service.play import (
    MAX_TURN_SECONDS,
    SEEK_TURN_SECONDS,
    AuthError,
    cancel_seek,
    create_account,
    lobby_page,
    open_seek,
    seat_of,
    seek_status,
    wait_for_match,
)
from service.play.errors import InvalidSeekError, SeekMatchedError, UnknownSeekError
from service.play.games import hash_token
from service.play.seeks import START_GRACE_SECONDS, _parse
from service.storage import StorageUnavailableError, Stores
from service.storage.memory import MemoryGameStore, Shared
from tests.conftest import PATIENCE

from .conftest import drain, with_games

TTL = 60.0


def test_seekers_of_the_same_rules_meet_in_one_new_game_one_seat_each(stores: Stores) -> None:
    first = open_seek(stores, "classic", 3, "ann", TTL)
    second = open_seek(stores, {"preset": "classic"}, 3, "bob", TTL)
    assert (first.status, second.status) == ("waiting", "waiting")
    assert first.token and first.token != second.token
    third = open_seek(stores, "classic", 3, "cy", TTL)
    assert third.status == "matched" and third.game_id is not None
    seeks = [seek_status(stores, s.seek_id, hash_token(s.token), s.token)
             for s in (first, second)] + [third]
    assert {s.game_id for s in seeks} == {third.game_id}
    game = stores.games.load(third.game_id)
    assert [game.state.names[s.seat] for s in seeks] == ["ann", "bob", "cy"]
    assert sorted(s.seat for s in seeks) == [0, 1, 2] and not game.state.seeded_by_creator
    assert [seat_of(game, hash_token(s.token)) for s in seeks] == [s.seat for s in seeks]  # its own seat
    listed = lobby_page(stores, "in_progress").games
    assert [g["game_id"] for g in listed] == [third.game_id]  # to watch, never to join


def test_seekers_of_other_rules_or_player_counts_are_never_matched_together(
        stores: Stores) -> None:
    a = open_seek(stores, "classic", 2, "a", TTL)
    b = open_seek(stores, "bga", 2, "b", TTL)
    c = open_seek(stores, {"preset": "classic", "jokers": 2}, 2, "c", TTL)
    d = open_seek(stores, "classic", 3, "d", TTL)
    assert {s.status for s in (a, b, c, d)} == {"waiting"}
    e = open_seek(stores, {"preset": "classic", "jokers": 0}, 2, "e", TTL)  # a's rules, spelled out
    assert e.status == "matched" and seek_status(stores, a.seek_id, hash_token(a.token)).game_id == e.game_id
    assert {seek_status(stores, s.seek_id, hash_token(s.token)).status for s in (b, c, d)} == {"waiting"}


def test_racing_seekers_end_in_whole_games_each_seeker_in_exactly_one_seat(
        stores: Stores) -> None:
    results: dict[int, Any] = {}
    start = threading.Barrier(12)

    def seeker(n: int) -> None:
        start.wait()
        seek = open_seek(stores, "family", 4, f"s{n}", TTL)
        results[n] = wait_for_match(stores, seek.seek_id, hash_token(seek.token), 10)

    threads = [threading.Thread(target=seeker, args=(n,)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(PATIENCE)
    assert len(results) == 12 and {s.status for s in results.values()} == {"matched"}
    games = Counter(s.game_id for s in results.values())
    assert len(games) == 3 and set(games.values()) == {4}
    for game_id in games:
        assert sorted(s.seat for s in results.values() if s.game_id == game_id) == [0, 1, 2, 3]


def test_a_waiting_seeker_is_woken_by_the_seeker_that_completes_its_game(
        stores: Stores) -> None:
    waiting = open_seek(stores, "classic", 2, "ann", TTL)
    woken: list[Any] = []
    waiter = threading.Thread(target=lambda: woken.append(
        wait_for_match(stores, waiting.seek_id, hash_token(waiting.token), 10)))
    waiter.start()
    assert wait_for_match(stores, waiting.seek_id, hash_token(waiting.token), 0.05).status == "waiting"  # no news: waits
    other = open_seek(stores, "classic", 2, "bob", TTL)
    # ann's wait holds her seek: bob's arrival wakes it, it finds ann still there and the
    # match is made then (bob is answered before that: waiting)
    waiter.join(PATIENCE)
    bob = seek_status(stores, other.seek_id, hash_token(other.token))
    assert woken[0].status == "matched" and woken[0].game_id == bob.game_id
    assert {woken[0].seat, bob.seat} == {0, 1}


def test_an_expired_seek_is_unknown_and_never_matched(stores: Stores) -> None:
    old = open_seek(stores, "classic", 2, "old", 0.001)
    time.sleep(0.01)
    with pytest.raises(UnknownSeekError):
        seek_status(stores, old.seek_id, hash_token(old.token))
    assert open_seek(stores, "classic", 2, "new", TTL).status == "waiting"  # not with old


def test_a_removed_seek_is_gone_and_a_matched_one_cannot_be_removed(stores: Stores) -> None:
    a = open_seek(stores, "classic", 2, "a", TTL)
    cancel_seek(stores, a.seek_id, hash_token(a.token))
    with pytest.raises(UnknownSeekError):
        seek_status(stores, a.seek_id, hash_token(a.token))
    with pytest.raises(UnknownSeekError):
        cancel_seek(stores, a.seek_id, hash_token(a.token))
    assert open_seek(stores, "classic", 2, "b", TTL).status == "waiting"
    matched = open_seek(stores, "classic", 2, "c", TTL)
    with pytest.raises(SeekMatchedError):
        cancel_seek(stores, matched.seek_id, hash_token(matched.token))
    with pytest.raises(UnknownSeekError):
        seek_status(stores, "not-a-seek-id", hash_token("any"))


class DiesCreating(MemoryGameStore):
    """A game store whose next creation fails, as if the matching worker died there."""

    def __init__(self, shared: Shared) -> None:
        super().__init__(shared)
        self.fail = True

    def create(self, game_id: str, state: GameState, token_hashes: Any,
               events: list[Event], handled: int = 0) -> None:
        if self.fail:
            self.fail = False
            raise StorageUnavailableError("the worker died")
        super().create(game_id, state, token_hashes, events, handled)


def test_a_match_whose_game_was_never_created_is_created_by_a_move_worker_not_a_read() -> None:
    stores = with_games(DiesCreating)
    waiting = open_seek(stores, "classic", 2, "ann", TTL)
    with pytest.raises(StorageUnavailableError):
        open_seek(stores, "classic", 2, "bob", TTL)  # matched, then its game not created
    # a read writes nothing: the seek waits (for the worker) rather than make the game
    assert seek_status(stores, waiting.seek_id, hash_token(waiting.token)).status == "waiting"
    assert stores.games.load_many([g for g, _ in stores.lobby.listed("in_progress", None, 9)]
                                  ) == [None]  # listed first, but not made
    drain(stores, clock=lambda: time.time() + START_GRACE_SECONDS + 1)
    seek = seek_status(stores, waiting.seek_id, hash_token(waiting.token))
    assert seek.status == "matched" and seek.game_id is not None
    assert stores.games.load(seek.game_id).state.names[seek.seat] == "ann"


def test_a_seek_is_read_and_cancelled_only_with_its_own_random_token(stores: Stores) -> None:
    """The seek id travels in URL paths and logs; the token, a random secret stored only
    as its hash, is what reads the seek, cancels it and plays its seat."""
    a = open_seek(stores, "classic", 3, "ann", TTL)
    b = open_seek(stores, "classic", 3, "bob", TTL)
    assert a.token is not None and hashlib.sha256(a.seek_id.encode()).hexdigest() not in (
        a.token, hash_token(a.token))
    for wrong in (None, b.token, "guess"):
        with pytest.raises(AuthError):
            seek_status(stores, a.seek_id, None if wrong is None else hash_token(wrong))
        with pytest.raises(AuthError):
            cancel_seek(stores, a.seek_id, None if wrong is None else hash_token(wrong))
    stored = repr(stores.seeks.get(*_parse(a.seek_id)))
    assert a.token not in stored and hash_token(a.token) in stored  # only its hash


def test_seekers_of_one_table_meet_however_they_spell_its_rules(stores: Stores) -> None:
    """``decks: "auto"`` and the number it comes to for this many players make one shoe,
    so one pool; the game is dealt with that number."""
    auto = open_seek(stores, {"preset": "classic"}, 2, "ann", TTL)
    spelled = open_seek(stores, {"preset": "classic", "decks": 2}, 2, "bob", TTL)
    assert spelled.status == "matched" and auto.seek_id.split(".")[0] == spelled.seek_id.split(".")[0]
    assert stores.games.load(spelled.game_id).state.rules.decks == 2


def test_seekers_of_one_clock_meet_in_a_game_with_that_clock_and_other_clocks_never(
        stores: Stores) -> None:
    fast = open_seek(stores, "classic", 2, "fast", TTL, turn_seconds=30)
    slow = open_seek(stores, "classic", 2, "slow", TTL, turn_seconds=86_400)
    assert (fast.status, slow.status) == ("waiting", "waiting")
    default = open_seek(stores, "classic", 2, "dee", TTL)  # SEEK_TURN_SECONDS
    assert default.status == "waiting" and default.turn_seconds == SEEK_TURN_SECONDS
    also_slow = open_seek(stores, "classic", 2, "sloe", TTL, turn_seconds=86_400)
    assert also_slow.status == "matched"
    game = stores.games.load(also_slow.game_id).state
    assert game.turn_seconds == 86_400 and set(game.names) == {"slow", "sloe"}


def test_a_seeker_who_asked_for_no_clock_gets_the_others_clock_and_none_only_with_all(
        stores: Stores) -> None:
    # oldest first (a millisecond apart): 60, none, 3600, none: the 60 and the two who
    # asked for none fill first
    a, b, c, d = (time.sleep(0.002) or open_seek(stores, "classic", 3, name, TTL,
                                                 turn_seconds=clock)
                  for name, clock in (("a", 60), ("b", None), ("c", 3600), ("d", None)))
    assert d.status == "matched" and status_of(stores, c) == "waiting"
    game = stores.games.load(d.game_id).state
    assert game.turn_seconds == 60 and game.names == ("a", "b", "d")
    assert [seek_status(stores, s.seek_id, hash_token(s.token)).seat for s in (a, b)] == [0, 1]
    nones = [open_seek(stores, "classic", 2, n, TTL, turn_seconds=None) for n in ("x", "y")]
    assert nones[1].status == "matched"
    assert stores.games.load(nones[1].game_id).state.turn_seconds is None


def status_of(stores: Stores, seek: Any) -> str:
    return seek_status(stores, seek.seek_id, hash_token(seek.token)).status


def test_rated_seeks_are_accounts_with_a_clock_and_meet_rated_seeks_only(
        stores: Stores) -> None:
    ann, bob, cy = (create_account(stores, h, False)[0] for h in ("ann", "bob", "cy"))
    with pytest.raises(AuthError):
        open_seek(stores, "classic", 2, "anon", TTL, rated=True)
    with pytest.raises(InvalidSeekError):
        open_seek(stores, "classic", 2, "", TTL, ann, rated=True, turn_seconds=None)
    rated = open_seek(stores, "classic", 2, "", TTL, ann, rated=True)
    casual = open_seek(stores, "classic", 2, "", TTL, bob)
    assert (rated.status, casual.status, rated.rated) == ("waiting", "waiting", True)
    other = open_seek(stores, "classic", 2, "", TTL, cy, rated=True)
    assert other.status == "matched" and other.rated
    game = stores.games.load(other.game_id).state
    assert set(game.accounts) == {"ann", "cy"} and game.turn_seconds == SEEK_TURN_SECONDS


def test_a_clock_out_of_range_or_with_no_turn_limit_is_refused(stores: Stores) -> None:
    for clock in (0, MAX_TURN_SECONDS + 1):
        with pytest.raises(InvalidSeekError):
            open_seek(stores, "classic", 2, "a", TTL, turn_seconds=clock)
    with pytest.raises(InvalidRulesError):
        open_seek(stores, {"preset": "classic", "turn_limit": None}, 2, "a", TTL)
    assert open_seek(stores, {"preset": "classic", "turn_limit": None}, 2, "a", TTL,
                     turn_seconds=None).status == "waiting"
