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

from tests.conftest import PATIENCE, wait_until

from .conftest import Gunicorn, RedisProcess
from .waiters import LONG_POLLS, Game, Waiter, mixed, park, spectator

WAITERS = 60
WAIT_SECONDS = 4
#: How long past its timeout a waiter may take to answer while Redis is away: the
#: service's Redis timeout is 0.5 s with one retry, and the hub re-reads on reconnect (a
#: second or two on a quiet machine; the rest is for a busy one). A hung one is not
#: answered at all: its read times out (``WAIT_SECONDS + 40``).
SLACK_SECONDS = 15.0
#: The timeout of the waiters that a move is to wake, far above the bound on their
#: answer (``WOKEN_WITHIN``): a waiter that timed out instead is not taken for a woken one.
LONG_WAIT = 120
WOKEN_WITHIN = 60


@pytest.fixture
def waiting_service(aof_redis: RedisProcess):
    server = Gunicorn(aof_redis.url, LONG_POLL_MAX_SECONDS=str(LONG_WAIT),
                      MAX_WAITS_PER_ADDRESS="off",
                      MAX_WAITS_PER_TOKEN="off")
    try:
        yield server
    finally:
        server.close()


def woken_by_the_next_move(base: str, game: Game, n: int) -> float:
    """Park ``n`` mixed waiters, move, and return the seconds until the last answered
    (each with the new version)."""
    game.to_a_discard()
    waiters = mixed(game, n, LONG_WAIT)
    threads = park(base, waiters, LONG_WAIT + 30)
    time.sleep(0.5)
    assert not [w for w in waiters if w.answered_at is not None], "answered before the move"
    moved_at = time.monotonic()
    after = game.discard()
    for t in threads:
        t.join(PATIENCE)
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
    threads = park(base, waiters, WAIT_SECONDS + 40)
    time.sleep(0.5)

    aof_redis.stop()  # SIGTERM; its AOF keeps the game
    time.sleep(1.0)
    aof_redis.start()
    for t in threads:
        t.join(WAIT_SECONDS + 40 + 5)
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
        assert woken_by_the_next_move(base, game, 40) < WOKEN_WITHIN


def test_long_polls_on_a_killed_worker_are_closed_and_woken_after_they_ask_again(
    waiting_service: Gunicorn,
) -> None:
    base = waiting_service.base
    game = Game.create(base, "killed")
    game.to_a_discard()
    waiters = [spectator(game, LONG_WAIT) for _ in range(WAITERS)]
    threads = park(base, waiters, LONG_WAIT + 30)
    workers = waiting_service.workers()
    ports = {w.port for w in waiters if w.port is not None}

    def held(pid: int) -> int:  # the long-polls of this test only, not another connection
        return waiting_service.clients(pid, ports)

    wait_until(lambda: sum(map(held, workers)) >= WAITERS, PATIENCE,
               "every long-poll accepted by a worker")
    victim = max(workers, key=held)  # one worker may have won them all
    clients = held(victim)
    os.kill(victim, signal.SIGKILL)
    for t in threads:
        t.join(0.1)
    wait_until(lambda: len([w for w in waiters if w.error is not None]) >= clients, PATIENCE,
               f"the {clients} long-polls of the killed worker cut")
    cut = [w for w in waiters if w.error is not None]
    assert len(cut) == clients, (len(cut), clients)
    assert all(w.status is None for w in cut)  # a closed connection, never an HTTP answer
    survivors = [w for w in waiters if w.error is None]
    assert not [w for w in survivors if w.answered_at is not None]

    # the master replaces the worker; the cut clients ask again with what they knew
    deadline = time.monotonic() + PATIENCE
    while len([p for p in waiting_service.workers() if p != victim]) < 2:
        assert time.monotonic() < deadline, "gunicorn did not replace the worker"
        time.sleep(0.05)
    retried: list[Waiter] = [spectator(game, LONG_WAIT) for _ in cut]
    threads += park(base, retried, LONG_WAIT + 30)
    time.sleep(0.5)
    after = game.discard()
    for t in threads:
        t.join(PATIENCE)
    assert [(w.status, w.version) for w in survivors + retried] == [
        (200, after)] * len(waiters)
    print(f"\n{len(cut)} of {WAITERS} long-polls cut by the kill, all woken after retrying")
