"""Parked long-polls through faults (real processes): Redis restarted under them, and a
gunicorn worker SIGKILLed under them.

A waiter must never hang past its timeout nor get a 500 (a 200 or a ``503
storage_unavailable`` are both honest answers); after a Redis restart each worker's
hub resubscribes, so waiters parked afterwards are woken by the next move; a client
whose worker died sees its connection close, asks again, and is woken by later moves.
"""

from __future__ import annotations

import os
import signal
import time
from collections import Counter

import pytest

from tests.conftest import wait_until

from .conftest import Gunicorn, RedisProcess
from .waiters import LONG_POLLS, Game, Waiter, mixed, park, spectator

WAITERS = 60
WAIT_SECONDS = 4
#: How long past its timeout a waiter may take to answer while Redis is away: the
#: service's Redis timeout is 0.5 s with one retry, and the hub re-reads on reconnect.
SLACK_SECONDS = 3.0


@pytest.fixture
def waiting_service(aof_redis: RedisProcess):
    server = Gunicorn(aof_redis.url, LONG_POLL_MAX_SECONDS="30", MAX_WAITS_PER_ADDRESS="off",
                      MAX_WAITS_PER_TOKEN="off")
    try:
        yield server
    finally:
        server.close()


def woken_by_the_next_move(base: str, game: Game, n: int) -> float:
    """Park ``n`` mixed waiters, move, and return the seconds until the last answered
    (each with the new version)."""
    game.to_a_discard()
    waiters = mixed(game, n, 10)
    threads = park(base, waiters, 20)
    time.sleep(0.5)
    assert not [w for w in waiters if w.answered_at is not None], "answered before the move"
    moved_at = time.monotonic()
    after = game.discard()
    for t in threads:
        t.join(15)
    assert [(w.kind, w.status, w.version, w.error) for w in waiters] == [
        (w.kind, 200, after, None) for w in waiters]
    return max(w.answered_at for w in waiters) - moved_at  # type: ignore[type-var]


def test_long_polls_open_across_a_redis_restart_end_in_time_and_later_ones_are_woken(
    waiting_service: Gunicorn, aof_redis: RedisProcess,
) -> None:
    base = waiting_service.base
    game = Game.create(base, "restart")
    game.to_a_discard()
    waiters = mixed(game, WAITERS, WAIT_SECONDS, LONG_POLLS)  # (streams: after the restart)
    opened_at = time.monotonic()
    threads = park(base, waiters, WAIT_SECONDS + 20)
    time.sleep(0.5)

    aof_redis.stop()  # SIGTERM; its AOF keeps the game
    time.sleep(1.0)
    aof_redis.start()
    for t in threads:
        t.join(WAIT_SECONDS + SLACK_SECONDS + 5)
    assert not any(t.is_alive() for t in threads), "a long-poll hung across the restart"
    errors = [(w.kind, w.error) for w in waiters if w.error is not None]
    assert not errors, errors[:5]
    assert {w.status for w in waiters} <= {200, 503}, sorted({w.status for w in waiters})
    slowest = max(w.answered_at for w in waiters) - opened_at  # type: ignore[type-var]
    assert slowest < WAIT_SECONDS + SLACK_SECONDS, slowest
    print(f"\nacross the restart: {Counter(w.status for w in waiters)}, the last answered "
          f"{slowest:.2f} s after opening (timeout {WAIT_SECONDS} s)")

    # both workers' hubs resubscribed: new waiters are woken by the next move, twice over
    # (the first round may find a hub still reconnecting; it must recover either way)
    for _ in range(2):
        assert woken_by_the_next_move(base, game, 40) < 5.0


def test_long_polls_on_a_killed_worker_are_closed_and_woken_after_they_ask_again(
    waiting_service: Gunicorn,
) -> None:
    base = waiting_service.base
    game = Game.create(base, "killed")
    game.to_a_discard()
    waiters = [spectator(game, 20) for _ in range(WAITERS)]
    threads = park(base, waiters, 30)
    workers = waiting_service.workers()
    wait_until(lambda: sum(map(waiting_service.clients, workers)) >= WAITERS, 10,
               "every long-poll accepted by a worker")
    victim = max(workers, key=waiting_service.clients)  # one worker may have won them all
    clients = waiting_service.clients(victim)
    os.kill(victim, signal.SIGKILL)
    for t in threads:
        t.join(0.1)
    wait_until(lambda: len([w for w in waiters if w.error is not None]) >= clients, 5,
               f"the {clients} long-polls of the killed worker cut")
    cut = [w for w in waiters if w.error is not None]
    assert len(cut) == clients, (len(cut), clients)
    assert all(w.status is None for w in cut)  # a closed connection, never an HTTP answer
    survivors = [w for w in waiters if w.error is None]
    assert not [w for w in survivors if w.answered_at is not None]

    # the master replaces the worker; the cut clients ask again with what they knew
    deadline = time.monotonic() + 20
    while len([p for p in waiting_service.workers() if p != victim]) < 2:
        assert time.monotonic() < deadline, "gunicorn did not replace the worker"
        time.sleep(0.05)
    retried: list[Waiter] = [spectator(game, 20) for _ in cut]
    threads += park(base, retried, 30)
    time.sleep(0.5)
    after = game.discard()
    for t in threads:
        t.join(15)
    assert [(w.status, w.version) for w in survivors + retried] == [
        (200, after)] * len(waiters)
    print(f"\n{len(cut)} of {WAITERS} long-polls cut by the kill, all woken after retrying")
