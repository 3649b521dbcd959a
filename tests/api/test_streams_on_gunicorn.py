"""Streams on the real server: gunicorn's gevent workers, the hub, a graceful shutdown."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import requests

from tests.conftest import PATIENCE, ROOT, free_port, redis_url_for_tests, wait_until

NDJSON = {"Accept": "application/x-ndjson"}


def lines_of(response: requests.Response) -> Iterator[dict[str, Any] | None]:
    for line in response.iter_lines(chunk_size=1):
        yield orjson.loads(line) if line else None


def new_game(base: str) -> dict[str, Any]:
    r = requests.post(f"{base}/v1/games", json={
        "players": [{"name": "ann"}, {"name": "bob"}], "seed": "7"}, timeout=5)
    assert r.status_code == 201
    return r.json()


def move(base: str, game: dict[str, Any]) -> None:
    gid = game["game_id"]
    seat = requests.get(f"{base}/v1/games/{gid}", timeout=5).json()["round"]["current_seat"]
    auth = {"Authorization": f"Bearer {game['seats'][seat]['token']}"}
    legal = requests.get(f"{base}/v1/games/{gid}", headers=auth, timeout=5).json()
    r = requests.post(f"{base}/v1/games/{gid}/actions", json=legal["legal_actions"][0],
                      headers=auth, timeout=5)
    assert r.status_code == 200


def test_a_stream_on_gunicorn_is_pushed_every_move(live_server: str) -> None:
    game = new_game(live_server)
    gid = game["game_id"]
    with requests.get(f"{live_server}/v1/games/{gid}/stream", headers=NDJSON, stream=True,
                      timeout=10) as r:
        assert r.status_code == 200
        lines = lines_of(r)
        kinds = [next(lines)["type"], next(lines)["type"]]  # type: ignore[index]
        assert kinds == ["event", "view"]
        for version in (1, 2):
            move(live_server, game)
            while (line := next(lines)) is None or line["type"] == "event":
                pass
            assert line["type"] == "view" and line["view"]["version"] == version


def test_a_graceful_shutdown_ends_open_streams_at_once_with_a_retry_hint(
    redis_server: str,
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "REDIS_URL": redis_url_for_tests(redis_server, 4), "PORT": str(port),
           "WEB_CONCURRENCY": "1", "RATE_LIMIT": "off", "RATE_LIMIT_PER_ADDRESS": "off",
           "CREATION_LIMIT_PER_ADDRESS": "off",
           # no heartbeat to wake the stream: only the shutdown's own wake-up ends it at once
           "STREAM_HEARTBEAT_SECONDS": "300",
           "ACCESS_LOG": "", "LOG_LEVEL": "warning"}
    proc = subprocess.Popen(
        [str(Path(sys.prefix) / "bin" / "gunicorn"), "-c", "deploy/gunicorn.conf.py",
         "service.app:create_app()"], cwd=ROOT, env=env)
    try:
        wait_until(lambda: requests.get(f"{base}/healthz", timeout=1).ok, PATIENCE, "gunicorn")
        gid = new_game(base)["game_id"]
        with requests.get(f"{base}/v1/games/{gid}/stream", headers=NDJSON, stream=True,
                          timeout=PATIENCE) as r:
            lines = lines_of(r)
            assert [next(lines)["type"], next(lines)["type"]] == ["event", "view"]  # type: ignore[index]
            start = time.monotonic()
            proc.send_signal(signal.SIGTERM)
            end = next(line for line in lines if line is not None)
            took = time.monotonic() - start
        assert end == {"type": "end", "reason": "shutdown", "retry_ms": 1000}
        # at once, not when gunicorn gives up on the worker (graceful_timeout 35 s, and
        # then without an end): a bound far from both, so a busy machine does not fail it
        assert took < 20, f"the stream ended {took:.1f} s after SIGTERM (graceful_timeout 35)"
        proc.wait(PATIENCE)  # and the worker, no longer held by the stream, exits
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(PATIENCE)


def test_a_long_request_line_is_answered_by_the_service_not_by_gunicorns_html_page(
    live_server: str,
) -> None:
    # a 6 KB query (past gunicorn's default 4094-byte request line, under the 8190 set in
    # deploy/gunicorn.conf.py): the service's own problem+json, whatever it decides
    ticket = "%C3%A9" * 1000
    r = requests.get(f"{live_server}/v1/games/nosuchgame/stream?ticket={ticket}", timeout=10)
    assert r.status_code in (401, 404, 422)
    assert r.headers["Content-Type"] == "application/problem+json"
