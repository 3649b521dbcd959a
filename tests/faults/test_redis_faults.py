"""Redis stopped, paused and restarted under a stream of actions (real processes).

While Redis is down every request gets ``503 storage_unavailable`` problem+json with
``Retry-After``, quickly (socket timeouts), never a 500; after Redis restarts from its
AOF the service is ready again (its pools retry at most 2 s apart) and the games go on; at
the end every stored game is the exact replay of the actions its player saw applied.

The bounds here are far from what they tell apart (a request held by a paused Redis for
the whole pause; a service that never recovers), never near the quick case: on a busy
machine every request is slower, and a test that fails for that tells nothing.
"""

from __future__ import annotations

import threading
import time

import requests

from tests.conftest import PATIENCE

from .conftest import Gunicorn, RedisProcess
from .driver import PROBLEM, Player, Reply, check_stored_game, join_all, play_all

GAMES = 6
#: The service's Redis timeout is 0.5 s with one retry (~1 s per call); the first request
#: to meet a hung Redis may also wait on the rate limiter's calls before it falls back to
#: memory: well under 2 s in all on a quiet machine, and under this on a busy one; a
#: request held for the whole pause (PAUSE_SECONDS) would not be.
BOUND_SECONDS = 7.0
#: How long Redis is paused (SIGSTOP): well past BOUND_SECONDS.
PAUSE_SECONDS = 12.0


def _start(service: Gunicorn) -> tuple[list[Player], list[threading.Thread], threading.Event]:
    stop = threading.Event()
    players = [Player(service.base, f"fault-{i}", stop) for i in range(GAMES)]
    threads = play_all(players)
    deadline = time.monotonic() + PATIENCE
    while not all(len(p.actions) >= 5 for p in players):
        assert time.monotonic() < deadline, "the games did not start"
        assert not any(p.error for p in players), [p.error for p in players]
        time.sleep(0.02)
    return players, threads, stop


def _replies(players: list[Player]) -> list[Reply]:
    return [r for p in players for r in p.replies]


def _assert_unavailable(reply: Reply) -> None:
    assert reply.status == 503, reply
    assert reply.content_type.startswith(PROBLEM), reply
    assert reply.code == "storage_unavailable", reply
    assert reply.retry_after is not None and int(reply.retry_after) >= 1, reply


def _ready_within(service: Gunicorn, seconds: float) -> float:
    """Seconds until /readyz answers 200 (each worker is asked several times)."""
    start = time.monotonic()
    while True:
        ok = 0
        for _ in range(6):  # keep-alive off: the answers come from both workers
            r = requests.get(f"{service.base}/readyz", timeout=5, headers={"Connection": "close"})
            ok += r.status_code == 200
            if r.status_code != 200:
                _assert_unavailable(Reply(0, 0, "GET", r.status_code,
                                          r.headers.get("Content-Type", ""),
                                          r.headers.get("Retry-After"), r.json().get("code")))
        if ok == 6:
            return time.monotonic() - start
        assert time.monotonic() - start < seconds, f"not ready {seconds} s after the restart"
        time.sleep(0.02)


def test_redis_down_then_restarted_from_aof(service: Gunicorn, aof_redis: RedisProcess) -> None:
    players, threads, stop = _start(service)
    before = {p.game_id: len(p.actions) for p in players}

    aof_redis.stop()  # SIGTERM: Redis fsyncs its AOF and exits; it holds every write
    down_at = time.monotonic()
    time.sleep(1.5)
    r = requests.get(f"{service.base}/readyz", timeout=5)
    assert r.status_code == 503 and r.headers["Retry-After"]
    stalled = {p.game_id: len(p.actions) for p in players}
    up_at = time.monotonic()
    aof_redis.start()
    _ready_within(service, 30.0)  # a few of the pools' 2 s retries, not a hang
    ready_at = time.monotonic()

    # the games go on after the restart
    deadline = time.monotonic() + PATIENCE
    while not all(len(p.actions) >= stalled[p.game_id] + 10 or p.error for p in players):
        assert time.monotonic() < deadline, "the games did not continue after the restart"
        time.sleep(0.05)
    time.sleep(max(0.0, ready_at + 1.5 - time.monotonic()))
    stop.set()
    join_all(threads, players, 30)

    replies = _replies(players)
    assert all(r.status in (200, 201, 503) for r in replies), sorted({r.status for r in replies})
    assert all(r.end - r.start < BOUND_SECONDS for r in replies), max(r.end - r.start for r in replies)
    during = [r for r in replies if r.start > down_at + 0.05 and r.end < up_at]
    assert len(during) > 20, "no request met the outage"
    for r in during:
        _assert_unavailable(r)
    for r in replies:
        if r.status == 503:
            _assert_unavailable(r)
    late = [r for r in replies if r.start > ready_at + 0.5]
    assert late and all(r.status in (200, 201) for r in late), "503 after recovery"
    assert all(stalled[g] >= before[g] for g in before)

    client = aof_redis.client()
    for p in players:
        check_stored_game(client, p)


def test_redis_paused_answers_503_in_bounded_time(
    service: Gunicorn, aof_redis: RedisProcess
) -> None:
    """A hung Redis (SIGSTOP: connections open, no answers): socket timeouts turn every
    request into a 503 within the bound; writes queued in the paused Redis that run after
    SIGCONT are found by the players' idempotent retries, never applied twice."""
    players, threads, stop = _start(service)
    aof_redis.pause()
    paused_at = time.monotonic()
    time.sleep(PAUSE_SECONDS)
    resumed_at = time.monotonic()
    aof_redis.resume()
    deadline = time.monotonic() + PATIENCE
    counts = {p.game_id: len(p.actions) for p in players}
    while not all(len(p.actions) >= counts[p.game_id] + 10 or p.error for p in players):
        assert time.monotonic() < deadline, "the games did not continue after the pause"
        time.sleep(0.05)
    stop.set()
    join_all(threads, players, 30)

    replies = _replies(players)
    assert all(r.status in (200, 201, 503) for r in replies), sorted({r.status for r in replies})
    assert all(r.end - r.start < BOUND_SECONDS for r in replies), max(r.end - r.start for r in replies)
    during = [r for r in replies if r.start > paused_at + 0.05 and r.end < resumed_at]
    assert during, ("no request met the pause", sorted(
        (round(r.start - paused_at, 2), round(r.end - r.start, 2), r.status) for r in replies
        if r.end > paused_at)[:20])
    for r in during:
        _assert_unavailable(r)
    client = aof_redis.client()
    for p in players:
        check_stored_game(client, p)
