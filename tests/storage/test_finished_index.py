"""An account's finished index as an export pages through it
(:meth:`~service.storage.AccountStore.finished_page`), on a real Redis and in memory, held
to the same promise: the games in ``(ended ms, game id)`` order (or its reverse), strictly
after the cursor, within the bounds, however many games share the cursor's millisecond."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from service.config import Config
from service.storage import Account, AccountStore, memory_stores, redis_stores
from tests.conftest import redis_client, redis_url_for_tests


@pytest.fixture
def on_redis(redis_server: str) -> Iterator[AccountStore]:
    url = redis_url_for_tests(redis_server, 10)
    redis_client(url).flushdb()
    stores = redis_stores(Config(redis_url=url))
    yield stores.accounts
    stores.close()
    redis_client(url).flushdb()


def _filled(store: AccountStore, games: list[tuple[str, int]]) -> AccountStore:
    store.create(Account("ann", False, "h", 0.0))
    for game_id, ended in games:
        store.finish_game("ann", game_id, ended / 1000)
    return store


def _walk(store: AccountStore, count: int, newest_first: bool, low: int | None,
          high: int | None) -> list[tuple[str, int]]:
    """The whole index a page of ``count`` at a time, each page resumed after the last."""
    out: list[tuple[str, int]] = []
    while True:
        after = None if not out else (out[-1][1], out[-1][0])
        page = store.finished_page("ann", after, count, newest_first=newest_first,
                                   low=low, high=high)
        out += page
        if len(page) < count:
            return out


def test_paging_the_finished_index_gives_each_game_once_in_order_on_redis_as_in_memory(
        on_redis: AccountStore) -> None:
    rng = random.Random(5)
    alphabet = "ABCabc019_-"
    # 60 games over 6 milliseconds: ties of about ten, ids of mixed case and symbols
    games = [("".join(rng.choices(alphabet, k=8)), 1_700_000_000_000 + rng.randrange(6))
             for _ in range(60)]
    ordered = sorted(games, key=lambda g: (g[1], g[0]))
    redis_store = _filled(on_redis, games)
    memory_store = _filled(memory_stores().accounts, games)
    for store in (redis_store, memory_store):
        assert store.finished_time("ann", ordered[0][0]) == ordered[0][1]
        assert store.finished_time("ann", "none") is None
        for newest_first in (False, True):
            whole = ordered[::-1] if newest_first else ordered
            for count in (1, 3, 7, 100):
                assert _walk(store, count, newest_first, None, None) == whole
            low, high = ordered[0][1] + 1, ordered[0][1] + 3
            assert _walk(store, 4, newest_first, low, high) == [
                g for g in whole if low <= g[1] <= high]
            for k in (0, 9, 30, 59):  # a cursor anywhere, ties of its millisecond around it
                after = (whole[k][1], whole[k][0])
                assert store.finished_page("ann", after, 100,
                                           newest_first=newest_first) == whole[k + 1:]


def test_a_game_that_finishes_takes_out_the_entries_a_record_lifetime_older_on_redis_as_in_memory(
        on_redis: AccountStore) -> None:
    kept = Config().record_ttl_seconds * 1000
    start = 1_700_000_000_000
    for store in (on_redis, memory_stores().accounts):
        # the first ended exactly a lifetime before the last, the second a millisecond less
        _filled(store, [("first", start), ("second", start + 1), ("last", start + kept)])
        assert store.finished_time("ann", "first") == start
        _filled(store, [("later", start + kept + 1)])
        assert store.finished_time("ann", "first") is None
        page = store.finished_page("ann", None, 10, newest_first=False)
        assert [g for g, _ in page] == ["second", "last", "later"]
