"""``python -m service.workers --analysis`` as processes on a real Redis: two analysis
workers run every queued analysis of finished games (no gunicorn, no move worker), each
exactly once; one killed with SIGKILL in the middle of an analysis leaves it to the
other, which finishes it; SIGTERM ends one at once, leaving nothing it held lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service import play
from service.config import Config
from service.play.commit import commit
from service.storage import redis_stores
from tests.conftest import PATIENCE, ROOT, redis_client, redis_url_for_tests, wait_until
from tests.play.finished_games import greedy_game

GAMES = 3
#: the second worker's ANALYSIS_STALE_SECONDS: it takes the killed one's analysis over
#: this long after that worker's last report
STALE = 5.0
#: a few seconds of analysis each: a worker is in the middle of one when it is killed
RULES = {"preset": "classic", "hand_sizes": [3, 4, 5]}


@pytest.fixture
def url(redis_server: str) -> Iterator[str]:
    url = redis_url_for_tests(redis_server, 14)
    redis_client(url).flushdb()
    yield url
    redis_client(url).flushdb()


def analyser(url: str, log: Path, stale: float = 120.0) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "service.workers", "--analysis"], cwd=ROOT,
                            env={**os.environ, "REDIS_URL": url, "LOG_LEVEL": "info",
                                 "ANALYSIS_STALE_SECONDS": str(stale)},
                            stderr=log.open("wb"))


def test_two_analysis_workers_run_every_queued_analysis_once_and_a_killed_ones_is_finished(
    url: str, tmp_path: Path,
) -> None:
    stores = redis_stores(Config(redis_url=url))
    games = []
    for n in range(GAMES):
        record, _ = play.create_game(stores, RULES, ["ann", "bob"], f"an-{n}",
                                     unlisted=True)
        commit(stores, record.game_id, greedy_game)
        games.append(record.game_id)
    for g in games:
        assert play.request_analysis(stores, g, time.time(), 100, requester="r")[1]
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    first = analyser(url, logs[0])
    wait_until(lambda: any(stores.analyses.load(g).status == "running" for g in games), PATIENCE,
               "the first worker running an analysis")
    running = next(g for g in games if stores.analyses.load(g).status == "running")
    first.send_signal(signal.SIGKILL)  # dies in the middle: its entry stays pending
    first.wait(PATIENCE)
    assert stores.analyses.load(running).status == "running"
    # the second worker takes the rest at once, and the dead one's once it is stale
    second = analyser(url, logs[1], stale=STALE)
    try:
        wait_until(lambda: all(stores.analyses.load(g).status == "done" for g in games), PATIENCE,
                   "every analysis done, the killed worker's included")
        assert stores.analyses.queued() == 0
    finally:
        second.send_signal(signal.SIGTERM)
        assert second.wait(PATIENCE) == 0
    # the first may have finished one before it was seen running: each game is logged
    # done by exactly one worker, the killed one's by the second
    done = [line for log in logs for line in log.read_text().splitlines()
            if "analysed game" in line]
    # (a worker killed right after finishing one may not have logged it: every game is
    # done, above, and none was logged twice)
    logged = [g for g in games for line in done if g in line]
    assert len(logged) == len(set(logged)) and len(logged) >= len(games) - 1
    assert any(running in line for line in logs[1].read_text().splitlines()
               if "analysed game" in line)
    for g in games:
        if g != running:
            assert [s["seat"] for s in play.analysis_of(stores, g)["seats"]] == [0, 1]
    stores.close()


def test_an_analysis_worker_given_sigterm_again_and_again_stops_once_without_a_traceback(
    url: str, tmp_path: Path,
) -> None:
    """``make run`` forwards its SIGTERM and the process group gets one too: signals that
    come during the first one's handling, or during the shutdown, change nothing (once,
    the second waited for ever on a lock the first held; before that, it raised in the
    shutdown). One that comes once Python has put the default handler back kills it."""
    log = tmp_path / "worker.log"
    proc = analyser(url, log)
    wait_until(lambda: "analysis worker" in log.read_text(), PATIENCE, "the worker's first line")
    time.sleep(0.5)  # blocked on the queue now
    deadline = time.monotonic() + PATIENCE
    while proc.poll() is None:
        assert time.monotonic() < deadline, f"still running {PATIENCE:.0f} s after a SIGTERM"
        proc.send_signal(signal.SIGTERM)
        time.sleep(0.0005)
    assert proc.returncode in (0, -signal.SIGTERM)
    text = log.read_text()
    assert "analysis worker stopped" in text and "Traceback" not in text, text
