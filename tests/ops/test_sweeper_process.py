"""``python -m service.sweep`` as a process on a real Redis: two sweepers at once finish
clocked games that nobody plays or watches (no gunicorn at all), every game's record
verifies (no move made twice), and SIGTERM ends a sweeper cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from service.play import create_game, game_record
from service.storage import RedisGameStore
from service.verify.check import verify
from tests.conftest import ROOT, redis_client, redis_url_for_tests, wait_until

GAMES = 6


@pytest.fixture
def url(redis_server: str) -> Iterator[str]:
    url = redis_url_for_tests(redis_server, 13)
    redis_client(url).flushdb()
    yield url
    redis_client(url).flushdb()


def sweeper(url: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "service.sweep", "--interval", "0.2"], cwd=ROOT,
        env={**os.environ, "REDIS_URL": url, "LOG_LEVEL": "warning"},
        stderr=subprocess.PIPE)


def test_two_sweepers_finish_clocked_games_nobody_plays_each_move_made_once(url: str) -> None:
    store = RedisGameStore(url, ttl_seconds=3600, reply_ttl_seconds=60, timeout_seconds=2)
    games = [create_game(store, {"preset": "classic", "hand_sizes": [3]}, ["ann", "bob"],
                         f"swept-{n}", turn_seconds=1)[0].game_id for n in range(GAMES)]
    sweepers = [sweeper(url), sweeper(url)]
    try:
        wait_until(lambda: all(store.load(g).state.finished for g in games), 60,
                   "every clocked game finished by the sweepers")
    finally:
        for proc in sweepers:
            proc.send_signal(signal.SIGTERM)
        errors = [proc.communicate(timeout=10)[1].decode() for proc in sweepers]
    assert [proc.returncode for proc in sweepers] == [0, 0], errors
    assert not any("ERROR" in e or "Traceback" in e for e in errors), errors
    for game_id in games:
        record, _ = game_record(store, game_id)
        assert verify(record) == [], game_id
        assert {p["kind"] for p in record["players"]} == {"away"}  # nobody ever played
    assert store.client.zcard("ttt:{sweep}:visits") == 0  # finished games leave the schedule


def test_a_sweeper_on_an_idle_schedule_stops_at_once_on_sigterm(url: str) -> None:
    proc = sweeper(url)
    time.sleep(1.0)
    started = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(5) == 0
    assert time.monotonic() - started < 1.5
