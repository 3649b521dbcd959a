"""The rating store's pair counts and its games set aside (``service/storage/ratings.py``),
on a real Redis and in memory, held to the same promises: a pair's rated games of the
window are counted once each up to the limit, atomically; a game set aside leaves the
queue (the next is the head) and comes back at its end on a retry."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from service.config import Config
from service.storage import RatingStore, memory_stores, redis_stores
from tests.conftest import redis_client, redis_url_for_tests

DAY = 86_400.0
DB = 9


@pytest.fixture
def db(redis_server: str) -> Iterator[redis.Redis]:
    client: redis.Redis = redis_client(redis_url_for_tests(redis_server, DB))
    client.flushdb()
    yield client
    client.flushdb()


@pytest.fixture(params=["redis", "memory"])
def ratings(request: pytest.FixtureRequest) -> Iterator[RatingStore]:
    if request.param == "memory":
        yield memory_stores().ratings
        return
    request.getfixturevalue("db")
    stores = redis_stores(Config(redis_url=redis_url_for_tests(
        request.getfixturevalue("redis_server"), DB)))
    yield stores.ratings
    stores.close()


def test_a_pairs_rated_games_are_counted_once_each_up_to_the_limit(ratings: RatingStore
                                                                   ) -> None:
    now = 1_000_000.0
    for n in range(3):
        assert ratings.admit_pair("classic:a|b", f"g{n}", now + n, DAY, 3) is None
    assert ratings.admit_pair("classic:a|b", "g1", now + 5, DAY, 3) is None  # again: once
    assert ratings.admit_pair("classic:a|b", "g3", now + 5, DAY, 3) == 3
    assert ratings.pair_count("classic:a|b", now + 5, DAY) == 3
    assert ratings.admit_pair("classic:a|c", "g3", now + 5, DAY, 3) is None  # another pair
    ratings.forget_pair("classic:a|b", "g2")
    assert ratings.pair_count("classic:a|b", now + 5, DAY) == 2
    # a day later the window has moved on
    assert ratings.pair_count("classic:a|b", now + DAY + 2, DAY) == 0
    assert ratings.admit_pair("classic:a|b", "g4", now + DAY + 2, DAY, 3) is None


def test_a_game_set_aside_leaves_the_queue_and_a_retry_puts_it_at_the_end(
        ratings: RatingStore) -> None:
    for game_id in ("g1", "g2", "g3"):
        assert ratings.enqueue(game_id, 1.0)
    ratings.set_aside("g1", "KeyError: 'places'", 2.0)
    assert ratings.head() == "g2" and ratings.queued() == 2
    assert ratings.aside() == {"g1": {"why": "KeyError: 'places'", "at": 2.0}}
    assert ratings.retry("g1") and not ratings.retry("g1")
    assert ratings.aside() == {}
    ratings.done("g2", 3.0)
    ratings.done("g3", 3.0)
    assert ratings.head() == "g1"
