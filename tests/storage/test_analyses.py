"""The analysis store's promises (``service/storage/analyses.py``), on a real Redis and in
memory. The queue serves requesters in turn: a requester's first request joins the
queue, the rest wait behind it, and its head done with lets the next in at the back; so
one requester with many queued holds up another's by one entry at most, and runs one
analysis at a time (another worker stays free for others). Nothing is lost: every
request is taken once, in the order its requester asked, and an entry whose worker died
is taken by another. A game's state goes queued, running (by one live worker at a
time), done with its result; every change wakes the game's watchers."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
import redis

from service.play import requester_of
from service.storage import AnalysisState, QueuedAnalysis, QueueFullError, Stores
from service.storage.analyses import QUOTA_WINDOW_SECONDS
from service.storage.redis.analyses import QUEUE, behind_key
from tests.conftest import PATIENCE


def taken(stores: Stores, count: int) -> list[QueuedAnalysis]:
    out = []
    for _ in range(count):
        t = stores.analyses.take("w", 0.01, 60.0)
        assert t is not None
        out.append(t)
    return out


def test_a_requester_with_many_queued_does_not_hold_up_anothers(stores: Stores) -> None:
    a, b = requester_of("192.0.2.1"), requester_of("198.51.100.7")
    for i in range(5):
        assert stores.analyses.request(f"a{i}", 0.0, 100, a) is None
    assert stores.analyses.request("b0", 0.0, 100, b) is None
    assert stores.analyses.queued() == 6
    first_two = taken(stores, 2)
    assert sorted(t.game_id for t in first_two) == ["a0", "b0"]
    # a's next waits until a0 is done: one analysis of a requester runs at a time
    assert stores.analyses.take("w", 0.01, 60.0) is None
    everything = list(first_two)
    for t in first_two:
        stores.analyses.ack(t)
    while (t := stores.analyses.take("w", 0.01, 60.0)) is not None:
        everything.append(t)
        stores.analyses.ack(t)
    assert [t.game_id for t in everything if t.requester == a] == [f"a{i}" for i in range(5)]
    assert [t.game_id for t in everything if t.requester == b] == ["b0"]
    assert stores.analyses.queued() == 0


def test_the_queue_keeps_no_address(on_redis: Stores, contract_db: redis.Redis) -> None:
    on_redis.analyses.request("a0", 0.0, 100, requester_of("192.0.2.1"))
    on_redis.analyses.request("a1", 0.0, 100, requester_of("192.0.2.1"))
    db = contract_db
    stored = b"".join([*db.keys("*"), *(v for _, f in db.xrange(QUEUE) for v in f.values()),
                       *db.lrange(behind_key(requester_of("192.0.2.1")), 0, -1)])
    assert b"192.0.2.1" not in stored and requester_of("192.0.2.1").encode() in stored


def test_a_full_queue_counts_the_requests_waiting_behind_their_requesters_first(
        stores: Stores) -> None:
    for i in range(3):
        stores.analyses.request(f"a{i}", 0.0, 3, "a")
    with pytest.raises(QueueFullError):
        stores.analyses.request("b0", 0.0, 3, "b")
    assert stores.analyses.load("b0") is None  # refused: nothing kept of it
    first = taken(stores, 1)[0]
    stores.analyses.ack(first)
    assert stores.analyses.request("b0", 0.0, 3, "b") is None


def test_a_head_taken_twice_and_done_twice_lets_one_request_in(stores: Stores) -> None:
    for i in range(3):
        stores.analyses.request(f"a{i}", 0.0, 100, "a")
    head = taken(stores, 1)[0]
    assert head.game_id == "a0"
    # a dead worker's entry, claimed by another: nothing more of its requester's is in
    again = stores.analyses.take("w2", 0.01, 0.0)
    assert again is not None and again.entry == head.entry
    assert stores.analyses.take("w3", 0.01, 60.0) is None
    assert stores.analyses.queued() == 3
    stores.analyses.ack(again)
    stores.analyses.ack(head)  # the dead worker's late ack: done once already
    assert stores.analyses.queued() == 2
    assert [t.game_id for t in taken(stores, 1)] == ["a1"]
    assert stores.analyses.take("w3", 0.01, 60.0) is None


def test_a_take_waits_for_a_request(stores: Stores) -> None:
    got: list[QueuedAnalysis | None] = []
    taker = threading.Thread(target=lambda: got.append(stores.analyses.take("w", 30.0, 60.0)))
    taker.start()
    stores.analyses.request("g1", 0.0, 100, "a")
    taker.join(PATIENCE)
    assert not taker.is_alive() and got[0] is not None and got[0].game_id == "g1"


def test_a_request_answers_the_state_a_game_has_already(stores: Stores) -> None:
    analyses = stores.analyses
    assert analyses.load("g1") is None
    assert analyses.request("g1", 100.0, 10, "a") is None
    assert analyses.load("g1") == AnalysisState("queued", 0.0)
    assert analyses.request("g1", 101.0, 10, "b") == AnalysisState("queued", 0.0)
    assert analyses.queued() == 1
    analyses.start("g1", "w1", 102.0, 60.0)
    analyses.progress("g1", 0.123456, 103.0)
    assert analyses.request("g1", 104.0, 10, "a") == AnalysisState("running", 0.1235)
    analyses.finish("g1", b"\x00result")
    assert analyses.request("g1", 105.0, 10, "a") == AnalysisState("done", 1.0, b"\x00result")


def test_an_analysis_runs_by_one_live_worker_at_a_time_and_never_once_done(
        stores: Stores) -> None:
    analyses = stores.analyses
    analyses.request("g1", 100.0, 10, "a")
    assert analyses.start("g1", "w1", 100.0, 60.0) is True
    assert analyses.load("g1") == AnalysisState("running", 0.0)
    assert analyses.start("g1", "w2", 110.0, 60.0) is False  # w1 was heard from lately
    analyses.progress("g1", 0.5, 150.0)
    assert analyses.start("g1", "w2", 200.0, 60.0) is False  # its beat: 50 s ago
    assert analyses.start("g1", "w2", 210.0, 60.0) is True  # w1 silent 60 s: it died
    assert analyses.load("g1") == AnalysisState("running", 0.0)
    assert analyses.start("g1", "w2", 211.0, 60.0) is True  # its own: again
    analyses.finish("g1", b"r")
    assert analyses.start("g1", "w3", 10_000.0, 60.0) is False
    assert analyses.load("g1") == AnalysisState("done", 1.0, b"r")


def test_a_dropped_analysis_is_forgotten_and_may_be_asked_for_again(stores: Stores) -> None:
    analyses = stores.analyses
    analyses.request("g1", 100.0, 10, "a")
    analyses.start("g1", "w1", 100.0, 60.0)
    analyses.drop("g1")
    assert analyses.load("g1") is None
    analyses.progress("g1", 0.5, 101.0)  # a late beat keeps nothing
    analyses.finish("g1", b"late")
    assert analyses.load("g1") is None
    assert analyses.request("g1", 102.0, 10, "a") is None
    assert analyses.load("g1") == AnalysisState("queued", 0.0)


def test_each_change_of_an_analysis_wakes_its_games_watchers(stores: Stores) -> None:
    analyses = stores.analyses
    analyses.request("g1", 100.0, 10, "a")
    changes = [lambda: analyses.start("g1", "w1", 100.0, 60.0),
               lambda: analyses.progress("g1", 0.5, 101.0),
               lambda: analyses.finish("g1", b"r")]
    for change in changes:
        with stores.games.watch("g1") as watch, stores.games.watch("g2") as other:
            change()
            assert watch.wait(PATIENCE) and not other.wait(0.05)


def test_an_accounts_automatic_analyses_are_counted_once_a_game_up_to_its_quota_a_day(
        make_stores: Callable[..., Stores]) -> None:
    """Each game counts once however often it is charged; the one past ``auto_per_day``
    in the window is refused and not counted; a refund frees its place; a game counted a
    day before no longer counts. Every backend keeps the same count, by the handle in any
    case."""
    stores = make_stores(analysis_auto_per_day=2)
    a = stores.analyses
    t = 1_800_000_000.0
    assert a.auto_per_day == 2
    assert a.charge("ann", "g1", t) and a.charge("Ann", "g1", t + 1)
    assert a.charge("ann", "g2", t + 2)
    assert not a.charge("ann", "g3", t + 3)
    assert a.charged("ann", t + 3) == 2 and a.charged("bob", t + 3) == 0
    assert a.charge("bob", "g3", t + 3)  # another account's quota is its own
    a.refund("ann", "g2")
    assert a.charged("ANN", t + 4) == 1
    assert a.charge("ann", "g3", t + 5) and not a.charge("ann", "g4", t + 6)
    day = float(QUOTA_WINDOW_SECONDS)
    assert a.charged("ann", t + day) == 1  # g1 (counted at t) is a day old: out
    assert a.charge("ann", "g4", t + day)
    assert not a.charge("ann", "g5", t + day)
