"""The move worker's loop (``service/workers/moves.py``) on the in-memory stores: it makes
every move due, one game at a time; it waits on the schedule rather than polling and is
woken by a plan; it stops when told; it prunes the lobby at most once an interval."""

from __future__ import annotations

import threading
import time

from service.play import create_game
from service.storage import memory_stores
from service.workers.moves import LobbyPruning, MoveWorker
from tests.conftest import PATIENCE

SHORT = {"preset": "classic", "hand_sizes": [3]}


def test_a_worker_drains_every_move_due_and_then_finds_none() -> None:
    stores = memory_stores()
    games = [create_game(stores, SHORT, [None, None], f"d{n}", bots=["greedy", "random"])[0]
             for n in range(3)]
    worker = MoveWorker(stores)
    made = worker.drain()
    assert made == sum(stores.games.load(g.game_id).state.version for g in games)
    assert all(stores.games.load(g.game_id).state.finished for g in games)
    assert worker.work() is False and worker.metrics.moves_made == made


def test_an_idle_worker_waits_until_a_plan_wakes_it_then_plays_at_once() -> None:
    stores = memory_stores()
    worker = MoveWorker(stores, idle_seconds=30.0)
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop.is_set,), daemon=True)
    thread.start()
    time.sleep(0.2)  # idle, blocked on the schedule for up to 30 s
    record, _ = create_game(stores, SHORT, [None, None], "wake", bots=["greedy", "greedy"])
    deadline = time.monotonic() + PATIENCE
    while not stores.games.load(record.game_id).state.finished:
        assert time.monotonic() < deadline, "the plan did not wake the worker"
        time.sleep(0.01)
    stop.set()
    stores.schedule.plan("wake-to-stop", time.time() + 3600)  # a plan wakes a waiter
    thread.join(PATIENCE)
    assert not thread.is_alive()


def test_a_worker_sleeps_until_the_earliest_deadline_and_no_longer() -> None:
    stores = memory_stores()
    record, _ = create_game(stores, SHORT, ["ann", "bob"], "deadline", turn_seconds=1)
    worker = MoveWorker(stores, idle_seconds=300.0)
    while stores.schedule.wait(0):  # the wake-up the creation's plan left: taken
        pass
    started = time.monotonic()
    worker.idle()  # nothing due: sleeps until the turn's deadline
    assert 0.5 < time.monotonic() - started < 60  # its turn's 1 s, not the idle 300 s
    assert worker.work() is True  # the time-out
    assert stores.games.load(record.game_id).state.turn_timed_out


def test_a_worker_sleeps_past_the_visit_kept_early_to_the_millisecond() -> None:
    """A deadline at 1001.0004 is kept as 1001.000: a worker sleeping only until then
    would take the game before its turn's deadline, find it not due, and put it off."""
    stores = memory_stores()
    stores.schedule.plan("g", 1001.0004)
    waits: list[float] = []

    def wait(timeout: float, lanes: object = None) -> bool:  # records how long, wakes at once
        waits.append(timeout)
        return False

    stores.schedule.wait = wait  # type: ignore[method-assign]
    MoveWorker(stores, clock=lambda: 1000.0, idle_seconds=300.0).idle()
    assert waits and 1.0004 <= waits[0] < 1.01


def test_an_idle_worker_told_to_stop_just_before_its_wait_does_not_wait() -> None:
    """A stop signal between the worker's last look and its wait: the signal did not cut
    the wait short (``waiting`` was not set yet), so the wait reads the flag itself."""
    stores = memory_stores()
    worker = MoveWorker(stores, idle_seconds=300.0)
    while stores.schedule.wait(0):
        pass
    started = time.monotonic()
    worker.idle(lambda: True)
    assert time.monotonic() - started < 60 and worker.waiting is False  # not the idle 300 s


def test_the_lobby_is_pruned_at_most_once_an_interval_a_page_at_a_time() -> None:
    stores = memory_stores()
    for n in range(5):  # entries whose games never existed, listed long ago
        stores.lobby.list_game(f"gone{n}", "open", time.time() - 7200)
    pruning = LobbyPruning(every=60.0, page=2)
    now = time.time()
    assert pruning.run(stores, now) == 2
    assert pruning.run(stores, now + 30) == 0  # not yet
    assert pruning.run(stores, now + 61) == 2  # the next page
    assert pruning.run(stores, now + 122) == 1
    assert stores.lobby.listed("open", None, 10) == []
