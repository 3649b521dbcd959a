"""The seek board's promises (``service/storage/seeks.py``) kept alike by the Redis board
on a real Redis and by the in-memory one the fast matchmaking tests stand it in for:
matching the oldest seekers in seat order, of one clock (with those that asked for
none), expiry, removal, results kept for a while, waking the pool's waiters on a match;
a group held until every hold has seen its newest arrival, a released or lapsed hold;
an account's seeks listed until they expire, to the millisecond."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from service.config import Config
from service.storage import (
    Hold,
    Matching,
    MatchRecord,
    SeekBoard,
    SeekRecord,
    memory_stores,
    redis_stores,
)
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
    seek = SeekRecord(f"n-{key}", f"h-{key}", None, False)
    return board.add(f"{pool}.{players}", key, seek, expires, players, game_id, RULES,
                     now).matched


def _get(board: SeekBoard, pool: str, key: str) -> tuple[SeekRecord | None, float | None]:
    """A seek as stored and its expiry (``None``: matched, or gone)."""
    entry = board.get(pool, key)
    return entry.record, entry.expires


def test_the_oldest_seekers_are_matched_in_seat_order_with_one_record(board: SeekBoard) -> None:
    assert _add(board, "b", NOW + 60, players=3) == []
    assert _add(board, "a", NOW + 50, players=3) == []  # expires first: the oldest
    assert _get(board, "pool.3", "a") == (SeekRecord("n-a", "h-a", None, False, arrival=2),
                                          NOW + 50)  # the 2nd arrival
    assert _add(board, "c", NOW + 70, players=3, game_id="g1") == ["a", "b", "c"]
    seek, expires = _get(board, "pool.3", "b")
    assert seek == SeekRecord("n-b", "h-b", None, False, arrival=1, game="g1", seat=1)
    assert expires is None
    assert board.match_record("pool.3", "g1") == MatchRecord(
        {"preset": "classic"}, ("n-a", "n-b", "n-c"), ("h-a", "h-b", "h-c"), None, False)
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


def _seek(board: SeekBoard, key: str, t: int | None, expires: float = NOW + 60,
          rated: bool = False, hold: Hold | None = None, pool: str = "clock.2",
          game_id: str = "g1", now: float = NOW) -> Matching:
    seek = SeekRecord(f"n-{key}", f"h-{key}", t, rated)
    return board.add(pool, key, seek, expires, int(pool.rsplit(".", 1)[1]), game_id, RULES,
                     now, hold)


def test_a_group_is_of_one_clock_with_those_that_asked_for_none(board: SeekBoard) -> None:
    assert _seek(board, "a", 30, NOW + 10).matched == []
    assert _seek(board, "b", 60, NOW + 20).matched == []  # another clock: no game with a
    assert _seek(board, "c", None, NOW + 30, game_id="g1").matched == ["a", "c"]
    assert board.match_record("clock.2", "g1") == MatchRecord(
        {"preset": "classic"}, ("n-a", "n-c"), ("h-a", "h-c"), 30, False)
    assert _seek(board, "d", None, NOW + 40, rated=True).matched == ["b", "d"]
    assert board.match_record("clock.2", "g1") is not None
    assert _seek(board, "e", None, NOW + 50, game_id="g3").matched == []
    assert _seek(board, "f", None, NOW + 60, game_id="g3", rated=True).matched == ["e", "f"]
    assert board.match_record("clock.2", "g3") == MatchRecord(
        {"preset": "classic"}, ("n-e", "n-f"), ("h-e", "h-f"), None,
        False)  # the first seat's seek says


def test_a_group_waits_until_every_hold_has_seen_its_newest_arrival(board: SeekBoard) -> None:
    stream = Hold("s.Ann.x1", NOW + 30)
    assert _seek(board, "a", None, hold=stream) == Matching()  # seen: its own arrival
    assert board.get("clock.2", "a").record == SeekRecord(
        "n-a", "h-a", None, False, arrival=1, holds={"s.Ann.x1": (round((NOW + 30) * 1000), 1)})
    with board.watch("clock.2") as watch:
        waiting = _seek(board, "b", None, hold=Hold("p.poll1", NOW + 30))
        assert waiting == Matching([], ["Ann"])  # the stream must look at its connection
        assert watch.wait(PATIENCE)  # the pool's waiters are told a group waits
    assert board.hold("clock.2", "a", Hold("s.Ann.x1", NOW + 40), "g1", NOW + 1) == Matching(
        [], ["Ann"])  # renewed, but seen kept: still 1
    assert board.hold("clock.2", "a", Hold("s.Ann.x1", NOW + 40, seen=2), "g1",
                      NOW + 2) == Matching(["a", "b"])
    assert board.hold("clock.2", "a", Hold("s.Ann.x1", NOW + 40, seen=2), "g2",
                      NOW + 3) is None  # matched: not waiting
    assert board.get("clock.2", "b").record == SeekRecord(
        "n-b", "h-b", None, False, arrival=2, holds={"p.poll1": (round((NOW + 30) * 1000), 2)},
        game="g1", seat=1)


def test_a_released_hold_no_longer_holds_its_group(board: SeekBoard) -> None:
    _seek(board, "a", None, hold=Hold("p.poll1", NOW + 30))
    assert _seek(board, "b", None).matched == []
    assert board.release("clock.2", "a", "p.other", "g1", NOW + 1).matched == []  # not its
    assert board.release("clock.2", "a", "p.poll1", "g1", NOW + 1).matched == ["a", "b"]


def test_a_hold_that_lapsed_ends_its_seek(board: SeekBoard) -> None:
    _seek(board, "a", None, hold=Hold("p.poll1", NOW + 5))  # its worker died
    assert _seek(board, "b", None, now=NOW + 6).matched == []
    assert board.hold("clock.2", "a", Hold("p.poll1", NOW + 30), "g1", NOW + 7) is None
    assert board.get("clock.2", "a").record is None
    assert board.get("clock.2", "b").arrivals == 2
    assert _seek(board, "c", None, now=NOW + 8).matched == ["b", "c"]


def test_an_accounts_seeks_are_listed_until_they_expire_oldest_first_in_any_case(
        board: SeekBoard) -> None:
    board.index("Ann", "late", NOW + 300)
    board.index("ann", "soon", NOW + 100)
    board.index("ann", "b-tie", NOW + 200.0001)
    board.index("ANN", "a-tie", NOW + 200.0004)  # the same millisecond: by id
    board.index("bob", "his", NOW + 100)
    assert board.indexed("aNN", NOW) == ["soon", "a-tie", "b-tie", "late"]
    assert board.indexed("ann", NOW + 200.0002) == ["late"]  # expired: skipped, not dropped
    assert board.indexed("ann", NOW) == ["soon", "a-tie", "b-tie", "late"]
    board.unindex("ANN", "soon")
    assert board.indexed("ann", NOW) == ["a-tie", "b-tie", "late"]
    assert board.indexed("bob", NOW) == ["his"]
