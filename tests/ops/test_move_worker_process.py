"""``python -m service.workers`` as a process on a real Redis: two move workers at once
finish clocked games that nobody plays or watches and bot games (no gunicorn at all),
every game's record verifies (no move made twice), a worker prunes the lobby's stale
entries, and SIGTERM ends an idle worker at once."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import Config
from service.play import create_game, game_record
from service.storage import redis_stores
from service.verify.check import verify
from tests.conftest import (
    PATIENCE,
    ROOT,
    free_port,
    redis_client,
    redis_url_for_tests,
    scraped,
    wait_until,
)

GAMES = 6


@pytest.fixture
def url(redis_server: str) -> Iterator[str]:
    url = redis_url_for_tests(redis_server, 13)
    redis_client(url).flushdb()
    yield url
    redis_client(url).flushdb()


#: The service's own CPU priorities (its defaults; the tests' processes run at 0:
#: tests/conftest.py says why).
DEPLOYED_NICE = {"WORKER_NICE": str(Config().worker_nice),
                 "ANALYSIS_NICE": str(Config().analysis_nice)}


def mover(url: str, log: Path, metrics_port: int = 0,
          **environ: str) -> subprocess.Popen[bytes]:
    """A move worker with the environment of the image: its PROMETHEUS_MULTIPROC_DIR is a
    folder only gunicorn creates, which the worker must not need."""
    return subprocess.Popen(
        [sys.executable, "-m", "service.workers", "--metrics-port", str(metrics_port)],
        cwd=ROOT,
        env={**os.environ, "REDIS_URL": url, "LOG_LEVEL": "info",
             "PROMETHEUS_MULTIPROC_DIR": str(log.parent / "not-created"), **environ},
        stderr=log.open("wb"))


def metric(port: int, name: str, **labels: str) -> float:
    return scraped(f"http://127.0.0.1:{port}/metrics", name, **labels)


def started(log: Path) -> bool:
    return "move worker started" in log.read_text()


def test_two_move_workers_finish_clocked_and_bot_games_nobody_plays_each_move_made_once(
    url: str, tmp_path: Path,
) -> None:
    stores = redis_stores(Config(redis_url=url))
    short = {"preset": "classic", "hand_sizes": [3]}
    games = [create_game(stores, short, ["ann", "bob"], f"clocked-{n}",
                         turn_seconds=1)[0].game_id for n in range(GAMES)]
    games += [create_game(stores, short, [None, None], f"bots-{n}",
                          bots=["strong", "greedy"])[0].game_id for n in range(GAMES)]
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    ports = [free_port(), free_port()]
    movers = [mover(url, log, metrics_port=port) for log, port in zip(logs, ports, strict=True)]
    try:
        wait_until(lambda: all(stores.games.load(g).state.finished for g in games), PATIENCE,
                   "every game finished by the move workers")
        # every move of every game was a worker's, and their /metrics count each once
        actions = sum(len(game_record(stores, g).body["actions"]) for g in games)
        wait_until(lambda: sum(metric(p, "ttt_worker_moves_total") for p in ports) == actions,
                   PATIENCE, f"the workers' metrics counting {actions} moves")
        assert all(metric(p, "ttt_worker_moves_total") > 0 for p in ports)  # both worked
        assert [metric(p, "ttt_worker_failures_total") for p in ports] == [0, 0]
        wait_until(lambda: [metric(p, "ttt_worker_due_games") for p in ports] == [0, 0], PATIENCE,
                   "no game due")
    finally:
        for proc in movers:
            proc.send_signal(signal.SIGTERM)
            proc.wait(PATIENCE)
    errors = [log.read_text() for log in logs]
    assert [proc.returncode for proc in movers] == [0, 0], errors
    assert not any("ERROR" in e or "Traceback" in e for e in errors), errors
    for game_id in games:
        record = game_record(stores, game_id).body
        assert verify(record) == [], game_id
    assert redis_client(url).zcard("ttt:{moves}:due") == 0  # finished games leave the schedule


def test_a_move_workers_metrics_show_a_backlog_as_games_due_seconds_overdue_and_lateness(
    url: str, tmp_path: Path,
) -> None:
    schedule = redis_stores(Config(redis_url=url)).schedule
    for n in range(5):  # games that expired long ago: each visit only drops its entry
        schedule.plan(f"gone-{n}", time.time() - 100)
    port = free_port()
    proc = mover(url, tmp_path / "worker.log", metrics_port=port)
    try:
        wait_until(lambda: metric(port, "ttt_worker_visits_total") == 5, PATIENCE, "the visits")
        assert metric(port, "ttt_worker_due_games") == 5  # read before the first take
        assert 100 <= metric(port, "ttt_worker_overdue_seconds") < 160
        assert metric(port, "ttt_worker_lateness_seconds_bucket", le="30.0") == 0
        assert metric(port, "ttt_worker_lateness_seconds_bucket", le="+Inf") == 5
        assert schedule.visits_due(time.time()) == (0, None)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(PATIENCE)


def test_a_move_worker_prunes_the_lobbys_stale_entries(url: str, tmp_path: Path) -> None:
    lobby = redis_stores(Config(redis_url=url)).lobby
    lobby.list_game("expired-long-ago", "in_progress", time.time() - 7200)
    lobby.list_game("being-created", "open", time.time())  # spared: it may be on its way
    proc = mover(url, tmp_path / "worker.log")
    try:
        wait_until(lambda: not lobby.listed("in_progress", None, 10), PATIENCE, "the prune")
        assert [g for g, _ in lobby.listed("open", None, 10)] == ["being-created"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(PATIENCE)
    assert "pruned 1 stale lobby entries" in (tmp_path / "worker.log").read_text()


def test_a_move_worker_whose_metrics_port_is_taken_says_so_and_exits_2(
    url: str, tmp_path: Path,
) -> None:
    with socket.socket() as taken:
        taken.bind(("", 0))
        taken.listen()
        log = tmp_path / "worker.log"
        proc = mover(url, log, metrics_port=taken.getsockname()[1])
        assert proc.wait(PATIENCE) == 2
    assert "cannot serve metrics on port" in log.read_text()
    assert "Traceback" not in log.read_text()


def test_an_idle_move_worker_stops_at_once_on_sigterm(url: str, tmp_path: Path) -> None:
    """Its idle wait lasts an hour here: a worker that waited it out would not stop within
    PATIENCE, so stopping at all shows the signal ended the wait (no clock is read)."""
    log = tmp_path / "worker.log"
    proc = mover(url, log, WORKER_IDLE_SECONDS="3600")
    wait_until(lambda: started(log), PATIENCE, "the worker's first line")
    time.sleep(0.5)  # blocked on the schedule now (for the hour, but for a plan or a signal)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(PATIENCE) == 0
    assert "move worker stopped" in log.read_text()


def test_a_move_worker_runs_at_a_lower_cpu_priority_than_the_web_workers(
        url: str, tmp_path: Path) -> None:
    log = tmp_path / "worker.log"
    proc = mover(url, log, **DEPLOYED_NICE)
    try:
        wait_until(lambda: started(log), PATIENCE, "the worker's first line")
        assert os.getpriority(os.PRIO_PROCESS, proc.pid) == os.getpriority(
            os.PRIO_PROCESS, 0) + Config().worker_nice
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(PATIENCE)


def test_the_heavy_lanes_thread_runs_at_the_analyses_lower_priority(
        url: str, tmp_path: Path) -> None:
    """Linux keeps a nice value per thread: the worker's main thread (the light lane) at
    WORKER_NICE, its heavy lane's thread at ANALYSIS_NICE, so the OS gives a light move
    the CPU before a strong or expert decision (bench-abuse)."""
    log = tmp_path / "worker.log"
    proc = mover(url, log, **DEPLOYED_NICE)
    try:
        wait_until(lambda: started(log), PATIENCE, "the worker's first line")
        base = os.getpriority(os.PRIO_PROCESS, 0)

        def nices() -> set[int]:
            return {os.getpriority(os.PRIO_PROCESS, int(tid))
                    for tid in os.listdir(f"/proc/{proc.pid}/task")}

        config = Config.from_env(DEPLOYED_NICE)
        heavy = min(19, base + config.analysis_nice)
        wait_until(lambda: heavy in nices(), PATIENCE, "a thread at the analyses' priority")
        assert os.getpriority(os.PRIO_PROCESS, proc.pid) == base + config.worker_nice
        assert nices() == {base + config.worker_nice, heavy}
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(PATIENCE)
