"""The sweeper (``service/play/sweep.py``) on the in-memory stores, on a clock the test
moves: games nobody reads are played at each deadline to their end, bot games nobody
drives finish, games that never need it are never scheduled, and the lobby's stale
entries are pruned a page at a time."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from service.play import act, create_game
from service.play.sweep import (
    LEASE_SECONDS,
    REVISIT_SECONDS,
    LobbyPruning,
    next_visit,
    play_due_apart,
    sweep,
)
from service.storage import Stores, memory_stores
from service.storage.memory import MemoryGameStore, Shared

from .conftest import with_games

SHORT = {"preset": "classic", "hand_sizes": [3, 4]}


class Clock:
    """Time as the test sets it."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def sweep_until_finished(stores: Stores, game_id: str, clock: Clock,
                         step: float) -> int:
    """Sweep, move the clock ``step`` on, again, until the game is over; the passes."""
    for passes in range(1, 500):
        sweep(stores, clock=clock)
        if stores.games.load(game_id).state.finished:
            return passes
        clock.now += step
    raise AssertionError("the game never finished")


def test_a_clocked_game_nobody_plays_is_played_at_each_deadline_to_its_end() -> None:
    stores, clock = memory_stores(), Clock(1_000_000.0)
    record, _ = create_game(stores, SHORT, ["ann", "bob"], "sweep", turn_seconds=60,
                            now=clock.now)
    assert stores.schedule.take_visits(clock.now + 59, 10, 0) == []  # not before the first deadline
    passes = sweep_until_finished(stores, record.game_id, clock, 61)
    state = stores.games.load(record.game_id).state
    assert state.seat_kinds == ("away", "away")  # both timed out turn after turn
    assert passes >= 4  # a pass at each deadline, not one that played the whole game
    assert stores.schedule.take_visits(clock.now + 10**6, 10, 0) == []  # off the schedule once over


def test_only_the_turns_whose_clock_ran_out_are_played_for_a_seat() -> None:
    stores, clock = memory_stores(), Clock(1_000_000.0)
    record, tokens = create_game(stores, SHORT, ["ann", "bob"], "sweep", turn_seconds=60,
                                 now=clock.now)
    clock.now += 30
    sweep(stores, clock=clock)  # nothing due yet
    assert stores.games.load(record.game_id).state.version == 0
    clock.now += 31
    sweep(stores, clock=clock)
    state = stores.games.load(record.game_id).state
    assert state.current_seat == 1 and state.seat_kinds[0] == "human"  # one time-out
    act(stores, record.game_id, tokens[1], {"type": "draw", "source": "stock"})
    assert stores.games.load(record.game_id).state.current_seat == 1


def test_a_game_of_bots_nobody_drives_is_finished_by_the_sweeper() -> None:
    stores, clock = memory_stores(), Clock(1_000_000.0)
    # created as the API creates it, but no request plays the bots (their worker died)
    record, _ = create_game(stores, SHORT, [None, None, None], "bots",
                            bots=["greedy", "strong", "random"], now=clock.now)
    assert stores.games.load(record.game_id).state.version == 0
    sweep(stores, clock=clock)
    assert stores.games.load(record.game_id).state.version == 0  # not due before its revisit
    clock.now += REVISIT_SECONDS
    assert sweep(stores, clock=clock)[0] == 1
    assert stores.games.load(record.game_id).state.finished


def test_a_game_waiting_for_a_human_without_a_clock_is_never_scheduled() -> None:
    stores = memory_stores()
    create_game(stores, SHORT, ["ann", "bob"], "plain")
    create_game(stores, SHORT, ["ann", None], "open", turn_seconds=60)  # starts once claimed
    # the human is on turn: whoever comes back to it plays the bot's turns that follow
    record, _ = create_game(stores, SHORT, ["ann", None], "bot", bots=[None, "greedy"])
    assert record.state.current_seat == 0
    assert stores.schedule.take_visits(10**12, 10, 0) == []


def test_a_game_of_a_human_and_a_bot_leaves_the_schedule_once_the_human_is_on_turn() -> None:
    stores, clock = memory_stores(), Clock(1_000_000.0)
    record, _ = create_game(stores, SHORT, [None, "ann"], "bot first", bots=["greedy", None],
                            now=clock.now)
    assert record.state.current_seat == 0  # the bot starts: scheduled, in case no one plays it
    clock.now += REVISIT_SECONDS
    assert sweep(stores, clock=clock) == (1, 2)  # the bot's draw and discard
    assert stores.games.load(record.game_id).state.current_seat == 1
    assert stores.schedule.take_visits(10**12, 10, 0) == []


def test_a_taken_game_is_not_handed_to_a_second_sweeper_until_its_lease_ends() -> None:
    stores = memory_stores()
    for n in range(5):
        stores.schedule.plan_visit(f"g{n}", 100.0 + n)
    first = stores.schedule.take_visits(200.0, 3, LEASE_SECONDS)
    second = stores.schedule.take_visits(200.0, 10, LEASE_SECONDS)
    assert first == ["g0", "g1", "g2"] and second == ["g3", "g4"]
    assert stores.schedule.take_visits(200.0 + LEASE_SECONDS - 1, 10, LEASE_SECONDS) == []
    assert sorted(stores.schedule.take_visits(200.0 + LEASE_SECONDS, 10, LEASE_SECONDS)) == [
        f"g{n}" for n in range(5)]


def test_a_game_that_expired_is_dropped_from_the_schedule() -> None:
    stores = memory_stores()
    stores.schedule.plan_visit("gone", 1.0)
    assert sweep(stores, clock=lambda: 2.0) == (1, 0)
    assert stores.schedule.take_visits(10**12, 10, 0) == []


def test_a_time_out_applied_by_someone_else_keeps_the_game_on_the_schedule() -> None:
    # between a time-out's save and the stand-in's moves, a game's seat is a human on
    # turn with the clock stopped: a sweeper that lost that race must look again soon
    stores = memory_stores()
    record, _ = create_game(stores, SHORT, ["ann", "bob"], "race", turn_seconds=20, now=0.0)
    timing_out = replace(record.state, turn_deadline=None)
    assert next_visit(timing_out, [], 100.0) == 120.0
    assert next_visit(record.state, [], 10.0) == 20.0  # within its time: its deadline
    bots, _ = create_game(stores, SHORT, [None, None], "b", bots=["greedy", "random"], now=0.0)
    assert next_visit(bots.state, [], 100.0) == 100.0 + REVISIT_SECONDS


def test_bot_moves_played_apart_are_guarded_by_the_schedule_until_they_are_done() -> None:
    stores = memory_stores()
    record, _ = create_game(stores, SHORT, [None, None], "apart", bots=["greedy", "random"])
    stores.schedule.drop_visit(record.game_id)
    play_due_apart(stores, record.game_id)
    deadline = time.monotonic() + 20
    while not stores.games.load(record.game_id).state.finished:
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.01)
    # the visit drops the finished game just after its last save
    while stores.schedule.take_visits(10**12, 10, 0):
        assert time.monotonic() < deadline, "the finished game stayed on the schedule"
        time.sleep(0.01)


class DiesAfter(MemoryGameStore):
    """A game store whose saves fail after ``saves`` of them, as if the worker died."""

    def __init__(self, shared: Shared, saves: int) -> None:
        super().__init__(shared)
        self.left = saves
        self.died = threading.Event()

    def save(self, *args: object, **kwargs: object) -> object:
        if self.left == 0:
            self.died.set()
            raise RuntimeError("the worker died")
        self.left -= 1
        return super().save(*args, **kwargs)  # type: ignore[arg-type]


def test_bots_whose_driver_died_midway_are_taken_over_by_the_sweeper() -> None:
    stores = with_games(lambda shared: DiesAfter(shared, saves=3))
    record, _ = create_game(stores, SHORT, [None, None], "dies", bots=["greedy", "random"])
    stores.schedule.drop_visit(record.game_id)
    before = time.time()
    play_due_apart(stores, record.game_id)
    assert stores.games.died.wait(20), "the bots did not start"
    assert stores.games.load(record.game_id).state.version == 3  # nothing else will play this game
    assert stores.schedule.take_visits(before + REVISIT_SECONDS - 1, 10, 0) == []
    stores.games.left = -1  # a healthy store again (another worker)
    clock = Clock(time.time() + REVISIT_SECONDS + 1)
    assert sweep(stores, clock=clock)[0] == 1
    assert stores.games.load(record.game_id).state.finished


def test_a_pass_prunes_a_page_of_each_listing_at_most_once_an_interval_going_on_each_time(
) -> None:
    stores, clock = memory_stores(), Clock(1_000_000.0)
    for n in range(5):
        stores.lobby.list_game(f"gone-{n}", "open", clock.now - 3600 - n)
        stores.lobby.list_game(f"over-{n}", "in_progress", clock.now - 3600 - n)

    def left() -> list[int]:
        return [len(stores.lobby.listed(listing, None, 10)) for listing in ("open", "in_progress")]

    pruning = LobbyPruning(every=10, page=2)
    sweep(stores, clock=clock, pruning=pruning)
    assert left() == [3, 3]
    clock.now += 9
    sweep(stores, clock=clock, pruning=pruning)
    assert left() == [3, 3]  # not yet: at most once every 10 s
    for expected in ([1, 1], [0, 0]):
        clock.now += 10
        sweep(stores, clock=clock, pruning=pruning)
        assert left() == expected
    assert pruning.cursors == {"open": None, "in_progress": None}  # round again next time
