"""Each account's webhook queue (``service/storage/webhooks.py``), on a real Redis and in
memory, held to the same promises: an event is queued once however often it is pushed;
the head is the delivery due first; only ``done`` removes one and ``retry`` puts it off
with its attempts counted; past the cap the oldest are dropped; times are kept to the
millisecond; and, on Redis, every key
of a queue carries its account's hash tag (one shard, one script), and an emptied
queue leaves no key behind. The accounts with a delivery due are a schedule of their
own, on keys apart from the move workers'."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import redis

from service.config import Config
from service.storage import Delivery, Stores, WebhookQueue, memory_stores, redis_stores
from tests.conftest import redis_client, redis_url_for_tests

CAP = 3


@pytest.fixture
def db(redis_server: str) -> Iterator[redis.Redis]:
    client: redis.Redis = redis_client(redis_url_for_tests(redis_server, 11))
    client.flushdb()
    yield client
    client.flushdb()


@pytest.fixture
def on_redis(redis_server: str, db: redis.Redis) -> Iterator[Stores]:
    stores = redis_stores(Config(redis_url=redis_url_for_tests(redis_server, 11),
                                 webhook_queue_max=CAP))
    yield stores
    stores.close()


@pytest.fixture(params=["redis", "memory"])
def queue(request: pytest.FixtureRequest) -> WebhookQueue:
    """The Redis queue, and the memory one the service-layer tests stand it in for."""
    if request.param == "memory":
        return memory_stores(Config(webhook_queue_max=CAP)).webhooks
    return request.getfixturevalue("on_redis").webhooks  # type: ignore[no-any-return]


def event(n: int, queued: float = 100.0, due: float | None = None) -> Delivery:
    body = f'{{"type":"your_turn","n":{n},"pipe":"a|b"}}'
    return Delivery(f"msg_{n}", body, 0, queued, queued if due is None else due)


def test_an_event_is_queued_once_however_often_it_is_pushed(queue: WebhookQueue) -> None:
    assert queue.push("Ann", [event(1), event(2)]) == (2, 0)
    assert queue.push("ann", [event(1), event(3)]) == (1, 0)  # handles in any case
    assert queue.push("ANN", [event(2, due=1.0)]) == (0, 0)  # waiting already: unchanged
    assert queue.head("ann") == event(1)


def test_the_head_is_the_delivery_due_first_with_its_body_kept_as_it_was(
        queue: WebhookQueue) -> None:
    queue.push("ann", [event(1, due=300.0), event(2, due=200.0), event(3, due=250.0)])
    head = queue.head("ann")
    assert head == event(2, due=200.0)
    assert head is not None and head.payload.endswith('"pipe":"a|b"}')
    assert queue.head("bob") is None  # another account's queue is its own


def test_retry_counts_the_attempt_and_puts_it_off_and_done_removes_it(
        queue: WebhookQueue) -> None:
    queue.push("ann", [event(1, queued=100.0), event(2, queued=101.0)])
    assert queue.retry("ann", "msg_1", 1, 150.0) == 101.0  # msg_2 is now due first
    assert queue.head("ann") == event(2, queued=101.0)
    assert queue.done("ann", "msg_2") == 150.0
    head = queue.head("ann")
    assert head is not None and (head.event_id, head.attempts, head.due) == ("msg_1", 1, 150.0)
    assert head.payload == event(1).payload and head.queued == 100.0
    assert queue.done("ann", "msg_1") is None
    assert queue.head("ann") is None


def test_a_retry_of_an_event_no_longer_queued_leaves_it_gone(queue: WebhookQueue) -> None:
    queue.push("ann", [event(1)])
    assert queue.done("ann", "msg_1") is None
    assert queue.retry("ann", "msg_1", 2, 500.0) is None
    assert queue.head("ann") is None


def test_past_the_cap_the_oldest_queued_are_dropped(queue: WebhookQueue) -> None:
    queue.push("ann", [event(1, queued=100.0), event(2, queued=101.0)])
    queue.retry("ann", "msg_1", 1, 900.0)  # put off: still the oldest queued
    assert queue.push("ann", [event(3, queued=102.0), event(4, queued=103.0),
                              event(5, queued=104.0)]) == (3, 2)
    kept = []
    while (head := queue.head("ann")) is not None:
        kept.append(head.event_id)
        queue.done("ann", head.event_id)
    assert kept == ["msg_3", "msg_4", "msg_5"]


def test_times_are_kept_to_the_millisecond_and_ties_go_by_event_id(
        queue: WebhookQueue) -> None:
    queue.push("ann", [Delivery("msg_b", "{}", 0, 100.0004, 200.0001),
                       Delivery("msg_a", "{}", 0, 100.0001, 200.0004),
                       Delivery("msg_c", "{}", 0, 99.9996, 200.0006)])
    assert queue.head("ann") == Delivery("msg_a", "{}", 0, 100.0, 200.0)
    assert queue.retry("ann", "msg_a", 1, 300.0004) == 200.0
    assert queue.done("ann", "msg_b") == 200.001
    assert queue.push("ann", [Delivery("msg_d", "{}", 0, 100.0002, 1.0)]) == (1, 0)
    assert queue.push("ann", [Delivery("msg_e", "{}", 0, 101.0, 1.0)]) == (1, 1)
    kept = []  # the oldest queued of that millisecond went: "msg_a" (by id)
    while (head := queue.head("ann")) is not None:
        kept.append((head.event_id, head.due))
        queue.done("ann", head.event_id)
    assert kept == [("msg_d", 1.0), ("msg_e", 1.0), ("msg_c", 200.001)]


def test_clear_drops_every_waiting_event(queue: WebhookQueue) -> None:
    queue.push("ann", [event(1), event(2)])
    queue.push("bob", [event(1)])
    assert queue.clear("Ann") == 2
    assert queue.head("ann") is None and queue.head("bob") == event(1)
    assert queue.clear("ann") == 0


def test_a_queues_keys_share_its_accounts_hash_tag_and_an_empty_one_leaves_none(
        on_redis: Stores, db: redis.Redis) -> None:
    queue = on_redis.webhooks
    queue.push("Ann", [event(1), event(2)])
    assert sorted(k.decode() for k in db.keys("*")) == [
        "ttt:{acct:ann}:hooks", "ttt:{acct:ann}:hooks:due", "ttt:{acct:ann}:hooks:order"]
    queue.done("ann", "msg_1")
    queue.done("ann", "msg_2")
    assert db.keys("*") == []


def test_the_accounts_with_a_delivery_due_are_a_schedule_apart_from_the_moves(
        on_redis: Stores, db: redis.Redis) -> None:
    assert on_redis.webhook_schedule.plan("ann", 100.0) is True
    assert on_redis.schedule.visits_due(1000.0) == (0, None)
    lease = on_redis.webhook_schedule.take(100.0, 30.0)
    assert lease is not None and lease.key == "ann"
    assert db.zscore("ttt:{hooks}:due", "ann") == 130_000
    assert db.llen("ttt:{hooks}:wake") == 1 and db.exists("ttt:{moves}:due") == 0


def test_a_hold_lets_one_attempt_at_a_time_until_it_is_released(queue: WebhookQueue) -> None:
    now = time.time()  # Redis counts a hold's time itself
    assert queue.hold("Ann", "a", now, now + 20) is None
    busy = queue.hold("ann", "b", now, now + 25)
    assert busy is not None and abs(busy - (now + 20)) < 0.5  # a's, until its lease ends
    assert queue.hold("bob", "b", now, now + 25) is None  # another account's is its own
    queue.unhold("ann", "b")  # not b's to remove
    assert queue.hold("ann", "c", now, now + 30) is not None
    queue.unhold("ann", "a")
    assert queue.hold("ann", "c", now, now + 30) is None


def test_a_hold_runs_out_with_its_lease_on_redis(on_redis: Stores, db: redis.Redis) -> None:
    queue = on_redis.webhooks
    now = time.time()
    assert queue.hold("ann", "dead", now, now + 0.2) is None  # its worker died
    assert db.exists("ttt:{acct:ann}:hooks:hold") == 1
    assert queue.hold("ann", "next", now, now + 10) is not None
    time.sleep(0.3)
    assert queue.hold("ann", "next", time.time(), time.time() + 10) is None
    queue.unhold("ann", "next")
    assert db.keys("*") == []
