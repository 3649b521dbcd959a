"""Pushed streams through faults (real processes): Redis restarted under open streams,
and a gunicorn worker SIGKILLed under them.

A stream must never hang nor be cut by an error: across a Redis restart each open
stream either carries on (its worker's hub resubscribes and wakes it to re-read) or ends
with an ``end`` message and a retry hint, and its client resumes; either way the next
move reaches it. A stream whose worker is killed is cut; its client reconnects with
``Last-Event-ID`` and, over all its connections, receives the game's event log exactly:
nothing lost, nothing repeated, in order (checked against the log in Redis).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator

import pytest
import requests

from tests.conftest import PATIENCE

from .conftest import Gunicorn, RedisProcess
from .driver import Player, join_all, play_all
from .followers import Follower, close_all, follow, logged_events, newest_seq, until
from .waiters import Game

FOLLOWERS = 45
#: Heartbeats every second: a live stream is never silent for long, so a follower's read
#: timeout (many heartbeats: a busy machine delays some) tells a hung stream from an idle one.
HEARTBEAT_SECONDS = 1
READ_TIMEOUT = 30.0


@pytest.fixture
def streaming_service(aof_redis: RedisProcess) -> Iterator[Gunicorn]:
    server = Gunicorn(aof_redis.url, MAX_WAITS_PER_ADDRESS="off", MAX_WAITS_PER_TOKEN="off",
                      RATE_LIMIT="off", RATE_LIMIT_PER_ADDRESS="off",
                      STREAM_HEARTBEAT_SECONDS=str(HEARTBEAT_SECONDS))
    try:
        yield server
    finally:
        server.close()


def seat_of(i: int) -> int | None:
    """Followers in turn: a spectator, seat 0, seat 1."""
    return (None, 0, 1)[i % 3]


def followers_of(base: str, game_id: str, tokens: list[str], n: int) -> list[Follower]:
    return [Follower(base, game_id, None if seat_of(i) is None else tokens[seat_of(i)],
                     read_timeout=READ_TIMEOUT) for i in range(n)]


def check_logs(followers: list[Follower], redis_client, game_id: str) -> None:
    """Every follower received the whole log, as its seat may see it, each event once."""
    logs = {seat: logged_events(redis_client, game_id, seat) for seat in (None, 0, 1)}
    for i, f in enumerate(followers):
        log = logs[seat_of(i)]
        assert [e["seq"] for e in f.events] == [e["seq"] for e in log], (
            f"follower {i}: lost or repeated events (drops {f.drops}, ends {f.ends})")
        assert f.events == log, f"follower {i}: events differ from the log"


def move_when_answered(game: Game, base: str) -> tuple[int, float]:
    """The mover's discard, once the service answers reads again (after a restart a
    first request may still meet the reconnecting pool: a 503 is retried); the new
    version and when the move was sent."""
    deadline = time.monotonic() + PATIENCE
    while requests.get(f"{base}/v1/games/{game.game_id}", timeout=5).status_code != 200:
        assert time.monotonic() < deadline, "the service did not recover after the restart"
        time.sleep(0.1)
    moved_at = time.monotonic()
    return game.discard(), moved_at


def test_streams_open_across_a_redis_restart_recover_or_end_and_later_ones_are_woken(
    streaming_service: Gunicorn, aof_redis: RedisProcess,
) -> None:
    base = streaming_service.base
    game = Game.create(base, "stream-restart")
    game.to_a_discard()
    before = followers_of(base, game.game_id, game.tokens, FOLLOWERS)
    threads = follow(before)
    until(before, lambda f: f.last_version == game.version, PATIENCE, "at the current view")

    aof_redis.stop()  # SIGTERM; its AOF keeps the game
    time.sleep(1.0)
    aof_redis.start()
    after, moved_at = move_when_answered(game, base)
    until(before, lambda f: f.last_version == after, PATIENCE,
          "woken by the move after the restart")
    slowest = max(next(t for t, v in f.versions if v == after) for f in before) - moved_at
    # no stream hung (its read would have timed out) nor was cut by an error (a 500
    # mid-stream closes the connection without an end message): each carried on, or
    # ended with a retry hint and was resumed
    assert not [f.drops for f in before if f.drops], [f.drops for f in before if f.drops][:3]
    assert {s for f in before for s in f.statuses} <= {200, 503}
    assert {reason for f in before for _, reason in f.ends} <= {"unavailable"}
    ended = sum(1 for f in before if f.ends)
    print(f"\nacross the restart: {FOLLOWERS - ended} streams carried on, {ended} ended "
          f"and resumed; all had the next move {slowest:.2f} s after it")

    # streams opened after the restart are woken by the next move, on both workers
    later = followers_of(base, game.game_id, game.tokens, FOLLOWERS)
    threads += follow(later)
    until(later, lambda f: f.last_version == after, PATIENCE, "at the current view")
    game.to_a_discard()
    newest, moved_at = move_when_answered(game, base)
    until(before + later, lambda f: f.last_version == newest, PATIENCE, "woken by the next move")
    slowest = max(next(t for t, v in f.versions if v == newest) for f in later) - moved_at
    assert slowest < 60, slowest  # woken by the move: else at the stream's end, an hour on
    close_all(before + later, threads)
    client = aof_redis.client()
    check_logs(before, client, game.game_id)
    check_logs(later, client, game.game_id)


def test_streams_on_a_killed_worker_resume_from_their_last_event_id_losing_nothing(
    streaming_service: Gunicorn, aof_redis: RedisProcess,
) -> None:
    base = streaming_service.base
    stop = threading.Event()
    player = Player(base, "stream-kill", stop, max_actions=10_000)
    player_threads = play_all([player])
    deadline = time.monotonic() + PATIENCE
    while len(player.actions) < 3:
        assert time.monotonic() < deadline and player.error is None, player.error
        time.sleep(0.02)
    followers = followers_of(base, player.game_id, player.tokens, FOLLOWERS)
    threads = follow(followers)  # from the first event, while the game is played

    killed = []
    for _ in range(2):
        time.sleep(0.5)
        victim = streaming_service.workers()[0]
        os.kill(victim, signal.SIGKILL)
        killed.append(victim)
        deadline = time.monotonic() + PATIENCE
        while len([p for p in streaming_service.workers() if p not in killed]) < 2:
            assert time.monotonic() < deadline, "gunicorn did not replace the worker"
            time.sleep(0.05)
    played = len(player.actions)
    deadline = time.monotonic() + PATIENCE
    while len(player.actions) < played + 10 and player.error is None:
        assert time.monotonic() < deadline, "the game did not continue after the kills"
        time.sleep(0.05)
    stop.set()
    join_all(player_threads, [player], 30)

    client = aof_redis.client()
    newest = newest_seq(client, player.game_id)
    until(followers, lambda f: f.last_seq == newest, PATIENCE, "at the newest event")
    close_all(followers, threads)
    cut = [f for f in followers if f.drops]
    assert cut, "no stream was on a killed worker (connections not spread?)"
    assert {s for f in followers for s in f.statuses} <= {200}, Counter(
        s for f in followers for s in f.statuses)
    check_logs(followers, client, player.game_id)
    print(f"\n{len(cut)} of {FOLLOWERS} streams cut by {len(killed)} kills, "
          f"{sum(len(f.drops) for f in cut)} reconnections; every follower has the "
          f"{newest} events exactly once")
