"""The seek board's promises (``service/storage/seeks.py``) kept alike by the Redis board
on a real Redis and by the in-memory one the fast matchmaking tests stand it in for:
matching the oldest seekers in seat order, expiry, removal, results kept for a while,
and waking the pool's waiters on a match."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from service.config import Config
from service.storage import SeekBoard, memory_stores, redis_stores
from tests.conftest import PATIENCE, redis_client, redis_url_for_tests

KEPT = 100  # seconds a match's results are kept
NOW = 1_000_000.0
RULES = b'{"preset":"classic"}'


@pytest.fixture(params=["redis", "memory"])
def board(request: pytest.FixtureRequest) -> Iterator[SeekBoard]:
    config = Config(open_game_ttl_seconds=KEPT)
    if request.param == "memory":
        yield memory_stores(config).seeks
        return
    url = redis_url_for_tests(request.getfixturevalue("redis_server"), 10)
    client = redis_client(url)
    client.flushdb()
    stores = redis_stores(Config(redis_url=url, open_game_ttl_seconds=KEPT))
    yield stores.seeks
    stores.close()
    client.flushdb()


def _add(board: SeekBoard, key: str, expires: float, now: float = NOW, players: int = 2,
         game_id: str = "g1", pool: str = "pool") -> list[str]:
    """Add a seek to ``pool`` of ``players`` (a pool's name ends with its player count)."""
    seek: dict[str, Any] = {"name": f"n-{key}", "th": f"h-{key}"}
    return board.add(f"{pool}.{players}", key, seek, expires, players, game_id, RULES,
                     now).matched


def _get(board: SeekBoard, pool: str, key: str) -> tuple[dict[str, Any] | None, float | None]:
    """A seek as stored and its expiry (``None``: matched, or gone)."""
    entry = board.get(pool, key)
    return entry.record, entry.expires


def test_the_oldest_seekers_are_matched_in_seat_order_with_one_record(board: SeekBoard) -> None:
    assert _add(board, "b", NOW + 60, players=3) == []
    assert _add(board, "a", NOW + 50, players=3) == []  # expires first: the oldest
    assert _get(board, "pool.3", "a") == ({"name": "n-a", "th": "h-a", "ag": 2}, NOW + 50)  # 2nd arrival
    assert _add(board, "c", NOW + 70, players=3, game_id="g1") == ["a", "b", "c"]
    seek, expires = _get(board, "pool.3", "b")
    assert seek == {"name": "n-b", "th": "h-b", "ag": 1, "game": "g1", "seat": 1} and expires is None
    assert board.match_record("pool.3", "g1") == {
        "rules": {"preset": "classic"}, "names": ["n-a", "n-b", "n-c"],
        "ths": ["h-a", "h-b", "h-c"], "turn_seconds": None, "rated": False}
    assert board.match_record("other", "g1") is None and _get(board, "other", "a") == (None, None)


def test_an_expired_seeker_is_dropped_by_the_next_add_and_never_matched(
        board: SeekBoard) -> None:
    _add(board, "old", NOW + 10)
    assert _add(board, "new", NOW + 70, now=NOW + 10) == []  # "old" expired at that instant
    assert _get(board, "pool.2", "old") == (None, None)
    assert _add(board, "next", NOW + 80, now=NOW + 11) == ["new", "next"]


def test_a_match_is_kept_for_its_seekers_then_dropped(board: SeekBoard) -> None:
    _add(board, "a", NOW + 60)
    assert _add(board, "b", NOW + 60) == ["a", "b"]
    _add(board, "c", NOW + 200, now=NOW + KEPT - 1)
    assert board.match_record("pool.2", "g1") is not None and _get(board, "pool.2", "a")[0]
    _add(board, "d", NOW + 300, now=NOW + KEPT, game_id="g2")
    assert board.match_record("pool.2", "g1") is None and _get(board, "pool.2", "a") == (None, None)


def test_a_waiting_seeker_is_removed_once_and_a_matched_one_not_at_all(
        board: SeekBoard) -> None:
    _add(board, "a", NOW + 60)
    assert board.cancel("pool.2", "a") == 1
    assert _get(board, "pool.2", "a") == (None, None) and board.cancel("pool.2", "a") == 0
    _add(board, "b", NOW + 60)
    _add(board, "c", NOW + 60)
    assert board.cancel("pool.2", "b") == 2
    assert _get(board, "pool.2", "b")[0] is not None


def test_a_match_wakes_the_pools_waiters(board: SeekBoard) -> None:
    _add(board, "a", NOW + 60, pool="woken")
    with board.watch("woken.2") as watch:
        assert not watch.wait(0.05)
        adder = threading.Timer(0.05, lambda: _add(board, "b", NOW + 60, pool="woken"))
        adder.start()
        assert watch.wait(PATIENCE)
        adder.join()
