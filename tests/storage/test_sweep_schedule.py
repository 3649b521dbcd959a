"""The sweeper's schedule in Redis (``service/storage/redis/schedule.py``) on a real Redis:
due games come out oldest first, and racing sweepers never take one game twice in a
lease; the in-memory schedule counts what is due the same way."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import redis

from service.config import Config
from service.storage import Schedule, memory_stores, redis_stores
from service.storage.redis.schedule import VISITS_KEY
from tests.conftest import redis_client, redis_url_for_tests


@pytest.fixture
def db(redis_server: str) -> Iterator[redis.Redis]:
    client: redis.Redis = redis_client(redis_url_for_tests(redis_server, 12))
    client.flushdb()
    yield client
    client.flushdb()


@pytest.fixture
def store(redis_server: str, db: redis.Redis) -> Iterator[Schedule]:
    stores = redis_stores(Config(redis_url=redis_url_for_tests(redis_server, 12)))
    yield stores.schedule
    stores.close()


def test_due_games_come_out_oldest_first_and_a_plan_replaces_the_last(
    store: Schedule, db: redis.Redis,
) -> None:
    store.plan_visit("late", 300.0)
    store.plan_visit("early", 100.0)
    store.plan_visit("moved", 50.0)
    store.plan_visit("moved", 250.0)  # replanned: its old time no longer counts
    assert store.take_visits(200.0, 10, 1000) == ["early"]  # leased until 1200
    assert store.take_visits(260.0, 10, 1000) == ["moved"]
    store.drop_visit("late")
    assert store.take_visits(10**9, 10, 30) == ["early", "moved"]  # their leases ran out
    assert db.zcard(VISITS_KEY) == 2


@pytest.fixture(params=["redis", "memory"])
def either(request: pytest.FixtureRequest) -> Schedule:
    """The Redis schedule, and the memory one that the service-layer tests stand it in for."""
    if request.param == "memory":
        return memory_stores().schedule
    return request.getfixturevalue("store")  # type: ignore[no-any-return]


def test_the_schedule_says_how_many_visits_are_due_and_since_when(either: Schedule) -> None:
    store = either
    assert store.visits_due(1000.0) == (0, None)
    for game_id, at in (("a", 100.0), ("b", 150.5), ("c", 2000.0)):
        store.plan_visit(game_id, at)
    assert store.visits_due(1000.0) == (2, 100.0)
    assert store.take_visits(1000.0, 1, 30) == ["a"]  # leased: due again at 1030
    assert store.visits_due(1000.0) == (1, 150.5)
    assert store.visits_due(99.0) == (0, 150.5)  # none due yet; the earliest is b


def test_racing_sweepers_take_every_due_game_exactly_once_within_a_lease(
    store: Schedule,
) -> None:
    for n in range(300):
        store.plan_visit(f"g{n}", 1000.0 + n)
    taken: list[list[str]] = [[] for _ in range(6)]
    start = threading.Barrier(6)

    def sweeper(mine: list[str]) -> None:
        start.wait()
        while batch := store.take_visits(2000.0, 7, 60):
            mine.extend(batch)

    threads = [threading.Thread(target=sweeper, args=(t,)) for t in taken]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    everything = [g for batch in taken for g in batch]
    assert sorted(everything) == sorted(f"g{n}" for n in range(300))  # none twice, none lost
    assert sum(1 for batch in taken if batch) > 1  # they did race
    assert store.take_visits(2059.0, 10, 60) == []
    assert len(store.take_visits(2060.0, 500, 60)) == 300  # a dead sweeper's games come back
