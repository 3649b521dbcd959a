"""The rating store's promises (``service/storage/ratings.py``), on a real Redis and in
memory: a game is queued once (not again while queued or lately applied), the head is
the earliest queued, a worker's wait is woken by a queued game (one wake-up kept for it,
taken once); the first computation stands; a game is applied to an account once, its
history oldest first; the boards rank highest first (ties in reverse handle order, as
Redis orders a sorted set's ties backwards); a pair's rated games of the window are
counted once each up to the limit, atomically; a game set aside leaves the queue (the
next is the head) and comes back at its end on a retry."""

from __future__ import annotations

import threading
import time

from service.ratings import Rating
from service.storage import (
    HistoryPoint,
    RatedSeat,
    RatingResult,
    SetAside,
    StoredRating,
    Stores,
)
from tests.conftest import PATIENCE

DAY = 86_400.0


def result(rating: float) -> RatingResult:
    """A computation of a two-seat game whose winner ends at ``rating``."""
    before = Rating(1500.0, 350.0, 0.06)
    return RatingResult("classic", 1000.5, (
        RatedSeat("ann", False, False, 1, 0, before, Rating(rating, 290.0, 0.06)),
        RatedSeat("greedy", True, True, 2, 0, before, before)))


def point(game_id: str, rating: float) -> HistoryPoint:
    return HistoryPoint(game_id, "2025-01-01T00:00:00.000Z", rating, 80.0, 1, 2, ("bob",))


def test_a_game_is_queued_once_and_the_head_is_the_earliest_queued(stores: Stores) -> None:
    ratings = stores.ratings
    assert ratings.head() is None and ratings.queued() == 0
    assert ratings.enqueue("g2", 1.0) and ratings.enqueue("g1", 2.0)
    assert not ratings.enqueue("g2", 3.0)  # queued already
    assert (ratings.head(), ratings.queued()) == ("g2", 2)
    ratings.done("g2", 1000.0)
    assert (ratings.head(), ratings.queued()) == ("g1", 1)
    assert not ratings.enqueue("g2", 1001.0)  # applied within the day
    ratings.done("g1", 1000.0 + DAY + 1)  # a day on: g2's day is over
    assert ratings.enqueue("g2", 1000.0 + DAY + 2) and ratings.head() == "g2"


def test_the_first_computation_stands_until_the_game_is_done(stores: Stores) -> None:
    ratings = stores.ratings
    ratings.enqueue("g1", 1.0)
    assert ratings.compute_once("g1", result(1520.5)) == result(1520.5)
    assert ratings.compute_once("g1", result(1.0)) == ratings.computed("g1") == result(1520.5)
    ratings.done("g1", 2.0)
    assert ratings.computed("g1") is None


def test_a_game_set_aside_leaves_the_queue_keeps_its_computation_and_a_retry_puts_it_at_the_end(
        stores: Stores) -> None:
    ratings = stores.ratings
    for game_id in ("g1", "g2", "g3"):
        assert ratings.enqueue(game_id, 1.0)
    ratings.compute_once("g1", result(1600.0))
    ratings.set_aside("g1", "KeyError: 'places'", 2.0)
    assert ratings.head() == "g2" and ratings.queued() == 2
    assert ratings.aside() == {"g1": SetAside("KeyError: 'places'", 2.0)}
    assert ratings.computed("g1") == result(1600.0)
    assert ratings.retry("g1") and not ratings.retry("g1")
    assert ratings.aside() == {}
    ratings.done("g2", 3.0)
    ratings.done("g3", 3.0)
    assert ratings.head() == "g1"


def test_a_queued_game_wakes_a_waiting_worker(stores: Stores) -> None:
    ratings = stores.ratings
    woken = threading.Event()

    def wait() -> None:
        ratings.wait(30.0)
        woken.set()

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.2)  # parked
    assert not woken.is_set()
    ratings.enqueue("g1", 1.0)
    assert woken.wait(PATIENCE)
    waiter.join()


def test_a_wake_up_nobody_took_is_kept_once_and_a_queue_that_is_not_empty_does_not_wake(
        stores: Stores) -> None:
    """Games queued while no worker waits leave one wake-up: the next wait returns at once,
    the one after it waits its time out, however many games are queued (a worker whose
    head cannot be rated then does not spin on it)."""
    ratings = stores.ratings
    for game_id in ("g1", "g2", "g3"):
        ratings.enqueue(game_id, 1.0)
    started = time.monotonic()
    ratings.wait(30.0)
    assert time.monotonic() - started < 20  # the kept wake-up, not the time out
    started = time.monotonic()
    ratings.wait(0.3)
    assert time.monotonic() - started >= 0.25 and ratings.queued() == 3


def test_a_game_is_applied_to_an_account_once_and_its_history_kept_oldest_first(
        stores: Stores) -> None:
    ratings = stores.ratings
    assert ratings.ratings("ann") == {} and ratings.history("ann", "classic", 0, 10) == []
    def stored(rating: float, games: int) -> StoredRating:
        return StoredRating(Rating(rating, 80.0, 0.06), games, 1000.25)

    for n in range(4):
        assert ratings.apply("Ann", "classic", f"g{n}", stored(1500.0 + n, n + 1),
                             point(f"g{n}", 1500.0 + n))
    assert not ratings.apply("ANN", "classic", "g1", stored(0.0, 9), point("again", 0.0))
    assert ratings.apply("ann", "short", "g9", stored(1400.0, 1), point("g9", 1400.0))
    assert ratings.ratings("aNN") == {"classic": stored(1503.0, 4),
                                      "short": stored(1400.0, 1)}
    points = [p.game_id for p in ratings.history("ann", "classic", 0, 10)]
    assert points == ["g0", "g1", "g2", "g3"]
    assert ratings.history("ann", "classic", 1, 2) == [point("g1", 1501.0),
                                                       point("g2", 1502.0)]
    assert [p.game_id for p in ratings.latest("ann", "classic", 2)] == ["g2", "g3"]
    assert [p.game_id for p in ratings.latest("ann", "classic", 9)] == points
    assert ratings.ratings("bob") == {}


def test_a_board_ranks_highest_first_with_ties_in_reverse_handle_order(stores: Stores) -> None:
    ratings = stores.ratings
    for handle, rating in (("cy", 1500.0), ("ann", 1600.0), ("bob", 1500.0), ("dee", 1400.0),
                           ("Eve", 1500.0)):
        ratings.rank("classic", False, handle, rating)
    ratings.rank("classic", True, "botty", 1700.0)
    assert ratings.board("classic", False, 0, 10) == ["ann", "cy", "bob", "Eve", "dee"]
    assert ratings.board("classic", False, 1, 2) == ["cy", "bob"]
    ratings.rank("classic", False, "dee", 1650.0)  # moved
    ratings.rank("classic", False, "cy", None)  # taken off
    assert ratings.board("classic", False, 0, 10) == ["dee", "ann", "bob", "Eve"]
    assert ratings.board("classic", True, 0, 10) == ["botty"]
    assert ratings.board("short", False, 0, 10) == []


def test_a_pairs_rated_games_are_counted_once_each_up_to_the_limit(stores: Stores) -> None:
    ratings = stores.ratings
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


def test_racing_admissions_of_a_pair_count_no_more_than_the_limit(stores: Stores) -> None:
    ratings = stores.ratings
    admitted: list[str] = []

    def admit(n: int) -> None:
        for m in range(10):
            if ratings.admit_pair("classic:a|b", f"g{n}.{m}", 1000.0, DAY, 7) is None:
                admitted.append(f"g{n}.{m}")

    threads = [threading.Thread(target=admit, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(admitted) == 7 and ratings.pair_count("classic:a|b", 1000.0, DAY) == 7
