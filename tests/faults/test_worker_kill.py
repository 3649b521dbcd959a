"""SIGKILL a gunicorn worker in the middle of actions: every game is left before or after
an action, never between (its stored state, version and event log are the replay of
exactly the actions its player saw applied), and the service keeps answering."""

from __future__ import annotations

import os
import random
import signal
import threading
import time

from tests.conftest import PATIENCE

from .conftest import Gunicorn, RedisProcess
from .driver import Player, check_stored_game, join_all, play_all

GAMES = 8
KILLS = 6


def test_sigkill_worker_during_actions(service: Gunicorn, aof_redis: RedisProcess) -> None:
    stop = threading.Event()
    players = [Player(service.base, f"kill-{i}", stop, max_actions=10_000) for i in range(GAMES)]
    threads = play_all(players)
    deadline = time.monotonic() + PATIENCE
    while not all(len(p.actions) >= 3 for p in players):
        assert time.monotonic() < deadline, "the games did not start"
        assert not any(p.error for p in players), [p.error for p in players]
        time.sleep(0.02)

    rng = random.Random(13)
    killed = []
    for _ in range(KILLS):
        workers = service.workers()
        assert workers, "gunicorn has no worker"
        pid = rng.choice(workers)
        os.kill(pid, signal.SIGKILL)
        killed.append(pid)
        time.sleep(rng.uniform(0.2, 0.6))
        # the master replaces the worker
        deadline = time.monotonic() + PATIENCE
        while len([w for w in service.workers() if w not in killed]) < 2:
            assert time.monotonic() < deadline, "gunicorn did not replace the worker"
            time.sleep(0.05)

    counts = {p.game_id: len(p.actions) for p in players}
    deadline = time.monotonic() + PATIENCE
    while not all(len(p.actions) >= counts[p.game_id] + 5 or p.error for p in players):
        assert time.monotonic() < deadline, "the games did not continue after the kills"
        time.sleep(0.05)
    stop.set()
    join_all(threads, players, 30)

    replies = [r for p in players for r in p.replies]
    dropped = [r for r in replies if r.status == 0]
    assert all(r.status in (0, 200, 201) for r in replies), sorted({r.status for r in replies})
    # the kills did land mid-request (else this test would show nothing)
    assert dropped, "no request was cut by a kill"
    client = aof_redis.client()
    for p in players:
        check_stored_game(client, p)
