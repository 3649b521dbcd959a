"""300 parked waiters on one game of the real server (gunicorn, gevent, 2 workers;
long-polls and streams mixed):
the rest of the service stays prompt, and the next move wakes every one of them with
the new version; one wait past ``MAX_WAITS_PER_ADDRESS`` is ``429 too_many_waits``."""

from __future__ import annotations

import time
from collections import Counter

import requests

from tests.conftest import PATIENCE, wait_until

from .conftest import Gunicorn
from .waiters import LONG_POLLS, Game, mixed, park, timed_get

WAITERS = 300
#: How long a parked request may wait (the move comes long before): the service's cap.
WAIT_SECONDS = 30
#: The bound on "prompt" below: half the waits' timeout, so a request held until the waits
#: time out fails it, and a busy machine's slow but unheld one does not.
PROMPT_SECONDS = WAIT_SECONDS / 2


def test_300_parked_waiters_leave_the_service_prompt_and_the_next_move_wakes_them_all(
    open_service: Gunicorn,
) -> None:
    base = open_service.base
    game, other = Game.create(base, "parked"), Game.create(base, "other")
    game.to_a_discard()
    waiters = mixed(game, WAITERS, WAIT_SECONDS)
    threads = park(base, waiters, WAIT_SECONDS + 10)
    time.sleep(1.0)  # let the last requests reach their worker's hub

    slowest = 0.0
    for _ in range(5):  # the other game's view and the probe, on both workers
        for url in (f"{base}/v1/games/{other.game_id}", f"{base}/healthz"):
            status, seconds = timed_get(url)
            assert status == 200
            slowest = max(slowest, seconds)
    assert slowest < PROMPT_SECONDS, f"a request took {slowest:.2f} s with {WAITERS} waiters parked"
    early = [w for w in waiters if w.answered_at is not None]
    assert not early, [(w.kind, w.status, w.error) for w in early[:5]]

    before = game.version
    moved_at = time.monotonic()
    after = game.discard()
    assert after == before + 1
    for t in threads:
        t.join(PATIENCE)
    assert not any(t.is_alive() for t in threads), "a waiter was not woken"
    errors = [(w.kind, w.error) for w in waiters if w.error is not None]
    assert not errors, errors[:5]
    assert Counter((w.kind, w.status, w.version) for w in waiters) == Counter(
        (w.kind, 200, after) for w in waiters)
    last = max(w.answered_at for w in waiters) - moved_at  # type: ignore[type-var]
    assert last < PROMPT_SECONDS, f"the last waiter was answered {last:.2f} s after the move"
    print(f"\n{WAITERS} waiters: slowest other request {slowest * 1000:.0f} ms, "
          f"all woken within {last * 1000:.0f} ms of the move")


def test_one_wait_past_the_address_limit_is_429_too_many_waits(plain_redis: str) -> None:
    server = Gunicorn(plain_redis, LONG_POLL_MAX_SECONDS="30", MAX_WAITS_PER_ADDRESS="3",
                      MAX_WAITS_PER_TOKEN="off", WEB_CONCURRENCY="1")
    try:
        game = Game.create(server.base, "limited")
        game.to_a_discard()
        waiters = mixed(game, 3, 20, LONG_POLLS)  # ended by the discard below
        threads = park(server.base, waiters, 30)
        wait_until(lambda: sum(map(server.clients, server.workers())) >= 3, PATIENCE,
                   "the three waits accepted by the worker")
        time.sleep(1.5)  # sent and accepted; now parked in the worker
        refused = requests.get(f"{server.base}/v1/games/{game.game_id}?wait_version="
                               f"{game.version}&timeout=5", timeout=10)
        assert refused.status_code == 429
        assert refused.json()["code"] == "too_many_waits"
        assert refused.headers["Retry-After"] == "1"
        assert requests.get(f"{server.base}/v1/games/{game.game_id}", timeout=5).ok
        assert not [w for w in waiters if w.answered_at is not None]
        game.discard()
        for t in threads:
            t.join(PATIENCE)
        assert [w.status for w in waiters] == [200, 200, 200]
    finally:
        server.close()
