"""The analysis queue on a real redis-server serves requesters in turn
(``service/storage/redis/analyses.py``): a requester's first request joins the stream,
the rest wait behind it in a list of its own, and its head done with lets the next in at
the back; so one requester with many queued holds up another's by one entry at most, and
runs one analysis at a time (another worker stays free for others). Nothing is lost:
every request is taken once, in the order its requester asked."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from service.config import Config
from service.play import requester_of
from service.storage import QueuedAnalysis, QueueFullError, Stores, redis_stores
from service.storage.redis.analyses import QUEUE, behind_key
from tests.conftest import redis_client, redis_url_for_tests


@pytest.fixture
def stores(redis_server: str) -> Iterator[Stores]:
    url = redis_url_for_tests(redis_server, 13)
    redis_client(url).flushdb()
    stores = redis_stores(Config(redis_url=url))
    yield stores
    stores.close()
    redis_client(url).flushdb()


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


def test_the_queue_keeps_no_address(stores: Stores, redis_server: str) -> None:
    stores.analyses.request("a0", 0.0, 100, requester_of("192.0.2.1"))
    stores.analyses.request("a1", 0.0, 100, requester_of("192.0.2.1"))
    db = redis_client(redis_url_for_tests(redis_server, 13))
    stored = b"".join([*db.keys("*"), *(v for _, f in db.xrange(QUEUE) for v in f.values()),
                       *db.lrange(behind_key(requester_of("192.0.2.1")), 0, -1)])
    assert b"192.0.2.1" not in stored and requester_of("192.0.2.1").encode() in stored


def test_a_full_queue_counts_the_requests_waiting_behind_their_requesters_first(
        stores: Stores) -> None:
    for i in range(3):
        stores.analyses.request(f"a{i}", 0.0, 3, "a")
    with pytest.raises(QueueFullError):
        stores.analyses.request("b0", 0.0, 3, "b")
    first = taken(stores, 1)[0]
    stores.analyses.ack(first)
    assert stores.analyses.request("b0", 0.0, 3, "b") is None


def test_a_head_taken_twice_and_done_twice_lets_one_request_in(
        stores: Stores, redis_server: str) -> None:
    db = redis_client(redis_url_for_tests(redis_server, 13))
    for i in range(3):
        stores.analyses.request(f"a{i}", 0.0, 100, "a")
    head = taken(stores, 1)[0]
    assert head.game_id == "a0"
    # a dead worker's entry, claimed by another: nothing more of its requester's is in
    again = stores.analyses.take("w2", 0.01, 0.0)
    assert again is not None and again.entry == head.entry
    assert db.xlen(QUEUE) == 1 and db.llen(behind_key("a")) == 2  # a0 pending; a1, a2 wait
    assert stores.analyses.queued() == 3
    stores.analyses.ack(again)
    stores.analyses.ack(head)  # the dead worker's late ack: done once already
    assert db.xlen(QUEUE) == 1 and db.llen(behind_key("a")) == 1
    assert [t.game_id for t in taken(stores, 1)] == ["a1"]
