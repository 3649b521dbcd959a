"""``python -m service.sweep`` as a process on a real Redis: two sweepers at once finish
clocked games that nobody plays or watches (no gunicorn at all), every game's record
verifies (no move made twice), a pass prunes the lobby's stale entries, and SIGTERM ends
a sweeper cleanly."""

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


def sweeper(url: str, log: Path, interval: float = 0.2,
            metrics_port: int = 0) -> subprocess.Popen[bytes]:
    """A sweeper with the environment of the image: its PROMETHEUS_MULTIPROC_DIR is a
    folder only gunicorn creates, which the sweeper must not need."""
    return subprocess.Popen(
        [sys.executable, "-m", "service.sweep", "--interval", str(interval),
         "--metrics-port", str(metrics_port)], cwd=ROOT,
        env={**os.environ, "REDIS_URL": url, "LOG_LEVEL": "info",
             "PROMETHEUS_MULTIPROC_DIR": str(log.parent / "not-created")},
        stderr=log.open("wb"))


def metric(port: int, name: str) -> float:
    return scraped(f"http://127.0.0.1:{port}/metrics", name)


def started(log: Path) -> bool:
    return "sweeper started" in log.read_text()


def test_two_sweepers_finish_clocked_games_nobody_plays_each_move_made_once(
    url: str, tmp_path: Path,
) -> None:
    stores = redis_stores(Config(redis_url=url))
    games = [create_game(stores, {"preset": "classic", "hand_sizes": [3]}, ["ann", "bob"],
                         f"swept-{n}", turn_seconds=1)[0].game_id for n in range(GAMES)]
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    ports = [free_port(), free_port()]
    sweepers = [sweeper(url, log, metrics_port=port) for log, port in zip(logs, ports, strict=True)]
    try:
        wait_until(lambda: all(stores.games.load(g).state.finished for g in games), 60,
                   "every clocked game finished by the sweepers")
        # every move of every game was a sweeper's, and their /metrics count each once
        actions = sum(len(game_record(stores, g)[0]["actions"]) for g in games)
        wait_until(lambda: sum(metric(p, "ttt_sweep_moves_total") for p in ports) == actions,
                   10, f"the sweepers' metrics counting {actions} moves")
        assert sum(metric(p, "ttt_sweep_visits_total") for p in ports) >= GAMES
        assert [metric(p, "ttt_sweep_failed_passes_total") for p in ports] == [0, 0]
        wait_until(lambda: [metric(p, "ttt_sweep_due_games") for p in ports] == [0, 0], 10,
                   "no game due as a pass begins")  # (read as each pass begins)
    finally:
        for proc in sweepers:
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)
    errors = [log.read_text() for log in logs]
    assert [proc.returncode for proc in sweepers] == [0, 0], errors
    assert not any("ERROR" in e or "Traceback" in e for e in errors), errors
    for game_id in games:
        record, _ = game_record(stores, game_id)
        assert verify(record) == [], game_id
        assert {p["kind"] for p in record["players"]} == {"away"}  # nobody ever played
    assert redis_client(url).zcard("ttt:{sweep}:visits") == 0  # finished games leave the schedule


def test_a_sweepers_metrics_show_a_backlog_as_games_due_and_seconds_overdue(
    url: str, tmp_path: Path,
) -> None:
    schedule = redis_stores(Config(redis_url=url)).schedule
    for n in range(5):  # games that expired long ago: each visit only drops its entry
        schedule.plan_visit(f"gone-{n}", time.time() - 100)
    port = free_port()
    proc = sweeper(url, tmp_path / "sweeper.log", interval=60, metrics_port=port)
    try:
        wait_until(lambda: metric(port, "ttt_sweep_visits_total") == 5, 30, "the first pass")
        assert metric(port, "ttt_sweep_due_games") == 5  # as the pass began
        assert 100 <= metric(port, "ttt_sweep_overdue_seconds") < 160
        assert schedule.visits_due(time.time()) == (0, None)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)


def test_a_sweepers_first_pass_prunes_the_lobbys_stale_entries(url: str, tmp_path: Path) -> None:
    lobby = redis_stores(Config(redis_url=url)).lobby
    lobby.list_game("expired-long-ago", "in_progress", time.time() - 7200)
    lobby.list_game("being-created", "open", time.time())  # spared: it may be on its way
    proc = sweeper(url, tmp_path / "sweeper.log", interval=60)
    try:
        wait_until(lambda: not lobby.listed("in_progress", None, 10), 30, "the prune")
        assert [g for g, _ in lobby.listed("open", None, 10)] == ["being-created"]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
    assert "pruned 1 stale lobby entries" in (tmp_path / "sweeper.log").read_text()


def test_a_sweeper_whose_metrics_port_is_taken_says_so_and_exits_2(
    url: str, tmp_path: Path,
) -> None:
    with socket.socket() as taken:
        taken.bind(("", 0))
        taken.listen()
        log = tmp_path / "sweeper.log"
        proc = sweeper(url, log, metrics_port=taken.getsockname()[1])
        assert proc.wait(30) == 2
    assert "cannot serve metrics on port" in log.read_text()
    assert "Traceback" not in log.read_text()


def test_a_sweeper_on_an_idle_schedule_stops_at_once_on_sigterm(url: str, tmp_path: Path) -> None:
    log = tmp_path / "sweeper.log"
    proc = sweeper(url, log, interval=60)  # so "at once" is not the end of a pass's sleep
    wait_until(lambda: started(log), 30, "the sweeper's first line")
    begun = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(10) == 0
    assert time.monotonic() - begun < 5
    assert "sweeper stopped" in log.read_text()
