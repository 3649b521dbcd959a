"""The move workers' schedule (``service/storage/schedule.py``), on a real Redis and in
memory, held to the same promises: a plan only brings a visit forward and wakes one
waiting worker when it does; the earliest due game is taken under a lease, never by two
workers at once; a release puts a visit off or drops it only while nobody planned the
game meanwhile; the schedule says how far behind the workers are."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import redis

from service.config import Config
from service.storage import HEAVY, LIGHT, Schedule, memory_stores, redis_stores
from service.storage.redis.schedule import DUE_KEY, WAKE_KEY, WAKES_KEPT
from tests.conftest import PATIENCE, redis_client, redis_url_for_tests


@pytest.fixture
def db(redis_server: str) -> Iterator[redis.Redis]:
    client: redis.Redis = redis_client(redis_url_for_tests(redis_server, 12))
    client.flushdb()
    yield client
    client.flushdb()


@pytest.fixture
def on_redis(redis_server: str, db: redis.Redis) -> Iterator[Schedule]:
    stores = redis_stores(Config(redis_url=redis_url_for_tests(redis_server, 12)))
    yield stores.schedule
    stores.close()


@pytest.fixture(params=["redis", "memory"])
def schedule(request: pytest.FixtureRequest) -> Schedule:
    """The Redis schedule, and the memory one the service-layer tests stand it in for."""
    if request.param == "memory":
        return memory_stores().schedule
    return request.getfixturevalue("on_redis")  # type: ignore[no-any-return]


def test_a_plan_only_brings_a_visit_forward(schedule: Schedule) -> None:
    assert schedule.plan("g", 300.0) is True  # new
    assert schedule.plan("g", 400.0) is False  # later: the earlier one stands
    assert schedule.plan("g", 300.0) is False
    assert schedule.plan("g", 100.0) is True  # sooner
    assert schedule.visits_due(150.0) == (1, 100.0)


def test_due_games_are_taken_earliest_first_each_under_a_lease(schedule: Schedule) -> None:
    for game_id, at in (("late", 300.0), ("early", 100.0), ("mid", 200.0)):
        schedule.plan(game_id, at)
    first = schedule.take(250.0, 1000)
    second = schedule.take(250.0, 1000)
    assert (first and first.key, second and second.key) == ("early", "mid")
    assert first is not None and (first.until, first.due) == (1250.0, 100.0)
    assert schedule.take(250.0, 1000) is None  # "late" is not due; the others are leased
    late = schedule.take(1250.0, 10)
    again = schedule.take(1250.0, 10)  # a lease ran out: its worker died
    assert late is not None and late.key == "late"
    assert again is not None and again.key == "early" and again.due == 1250.0


def test_a_release_plans_the_next_visit_or_drops_it_unless_planned_again_meanwhile(
        schedule: Schedule) -> None:
    schedule.plan("a", 100.0)
    schedule.plan("b", 100.0)
    lease_a, lease_b = schedule.take(100.0, 60), schedule.take(100.0, 60)
    assert lease_a is not None and lease_b is not None
    assert schedule.release(lease_a, 500.0) is True
    assert schedule.plan(lease_b.key, 120.0) is True  # a move made due while it looked
    assert schedule.release(lease_b, None) is False  # the plan stands
    assert schedule.visits_due(130.0) == (1, 120.0)
    taken = schedule.take(130.0, 60)
    assert taken is not None and schedule.release(taken, None) is True
    assert schedule.visits_due(10**9) == (1, 500.0)


def test_racing_workers_take_every_due_game_exactly_once_within_a_lease(
        schedule: Schedule) -> None:
    for n in range(300):
        schedule.plan(f"g{n}", 1000.0 + n)
    taken: list[list[str]] = [[] for _ in range(6)]

    def worker(mine: list[str]) -> None:
        while (lease := schedule.take(2000.0, 60)) is not None:
            mine.append(lease.key)

    threads = [threading.Thread(target=worker, args=(t,)) for t in taken]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    everything = [g for mine in taken for g in mine]
    assert sorted(everything) == sorted(f"g{n}" for n in range(300))  # each exactly once


def test_a_plan_that_brings_a_visit_forward_wakes_one_waiting_worker_at_once(
        schedule: Schedule) -> None:
    woken: list[float] = []

    def wait() -> None:
        start = time.monotonic()
        if schedule.wait(10.0):
            woken.append(time.monotonic() - start)

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.2)
    assert schedule.plan("g", 1.0) is True
    waiter.join(PATIENCE)
    assert len(woken) == 1 and woken[0] < 3.0
    assert schedule.plan("g", 5.0) is False  # no change: nobody woken
    assert schedule.wait(0.2) is False


def test_wake_ups_nobody_takes_are_kept_to_a_bound(on_redis: Schedule, db: redis.Redis) -> None:
    for n in range(WAKES_KEPT + 20):
        on_redis.plan(f"g{n}", float(n))
    assert db.llen(WAKE_KEY) == WAKES_KEPT and db.zcard(DUE_KEY) == WAKES_KEPT + 20


def test_only_so_many_wake_ups_wait_for_workers(schedule: Schedule) -> None:
    for n in range(WAKES_KEPT + 20):
        schedule.plan(f"g{n}", float(n))
    woken = 0
    while schedule.wait(0.01):
        woken += 1
    assert woken == WAKES_KEPT


def test_times_are_kept_to_the_millisecond(schedule: Schedule) -> None:
    assert schedule.plan("g", 100.0004) is True
    assert schedule.plan("g", 100.0001) is False  # the same millisecond: no sooner
    assert schedule.visits_due(100.0) == (1, 100.0)
    lease = schedule.take(100.0004, 10.0003)
    assert lease is not None and (lease.due, lease.until) == (100.0, 110.001)
    assert schedule.release(lease, 200.0)


def test_of_visits_due_together_the_first_lane_asked_for_is_taken_first_then_by_key(
        schedule: Schedule) -> None:
    schedule.plan("b-light", 100.0)
    schedule.plan("a-heavy", 100.0, HEAVY)
    schedule.plan("a-light", 100.0)
    taken = [schedule.take(100.0, 1000, (LIGHT, HEAVY)) for _ in range(3)]
    assert [(t.key, t.lane) for t in taken if t is not None] == [
        ("a-light", LIGHT), ("b-light", LIGHT), ("a-heavy", HEAVY)]
    schedule.plan("c-light", 200.0)
    schedule.plan("c-heavy", 200.0, HEAVY)
    first = schedule.take(200.0, 60, (HEAVY, LIGHT))
    assert first is not None and first.key == "c-heavy"


def test_a_release_wakes_a_waiting_worker_only_when_asked_and_only_with_a_next_visit(
        schedule: Schedule) -> None:
    while schedule.wait(0.001):  # the wake-ups of earlier plans: taken
        pass
    for game_id in ("a", "b", "c"):
        schedule.plan(game_id, 100.0)
        schedule.wait(0.001)
    plain, waking, dropped = (schedule.take(100.0, 60) for _ in range(3))
    assert plain is not None and waking is not None and dropped is not None
    assert schedule.release(plain, 200.0) is True and schedule.wait(0.05) is False
    assert schedule.release(waking, 200.0, wake=True) is True and schedule.wait(0.05) is True
    assert schedule.release(dropped, None, wake=True) is True and schedule.wait(0.05) is False


def test_each_lane_is_taken_only_by_the_workers_that_serve_it(schedule: Schedule) -> None:
    """A heavy visit (a game with a searching bot) is never taken from the light lane
    alone, so a light worker is never busy with one; a worker of both lanes takes the
    earliest of either, and a release keeps the visit on its lane."""
    schedule.plan("heavy-game", 100.0, HEAVY)
    schedule.plan("light-game", 200.0)
    assert schedule.take(300.0, 10.0, (LIGHT,)).key == "light-game"  # type: ignore[union-attr]
    assert schedule.take(300.0, 10.0, (LIGHT,)) is None
    lease = schedule.take(300.0, 10.0, (HEAVY,))
    assert lease is not None and (lease.key, lease.lane, lease.due) == ("heavy-game", HEAVY, 100.0)
    assert schedule.release(lease, 305.0)
    assert schedule.visits_due(400.0, (LIGHT,))[0] == 1  # light-game's lease ended at 310
    assert schedule.visits_due(400.0, (HEAVY,)) == (1, 305.0)
    both = schedule.take(400.0, 10.0)
    assert both is not None and both.key == "heavy-game"  # the earliest of both lanes


def test_a_plan_wakes_only_a_worker_of_its_lane(schedule: Schedule) -> None:
    schedule.plan("h", 1.0, HEAVY)
    assert schedule.wait(0.05, (LIGHT,)) is False  # the heavy plan's wake-up is not light's
    assert schedule.wait(0.05, (HEAVY,)) is True
