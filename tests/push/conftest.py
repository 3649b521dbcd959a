"""Both ways of waiting on one Redis: a gunicorn (the web workers, which hold waiting
requests when no push process runs) and a push process (``python -m service.push``),
with the same configuration, so a test asks each the same and compares the answers."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.conftest import PATIENCE, ROOT, free_port, redis_url_for_tests, wait_until

#: What both processes are started with (the live server's short waits and no request
#: limits; a wait limit per token small enough for a test to reach).
ENV = {
    "LONG_POLL_MAX_SECONDS": "1",
    "STREAM_MAX_SECONDS": "2",
    "STREAM_HEARTBEAT_SECONDS": "0.5",
    "MAX_WAITS_PER_TOKEN": "2",
    "RATE_LIMIT": "off",
    "RATE_LIMIT_PER_ADDRESS": "off",
    "CREATION_LIMIT_PER_ADDRESS": "off",
    "ACCOUNT_LIMIT_PER_ADDRESS": "off",
    "CHALLENGE_LIMIT": "off",
    "BOT_GAMES_PER_ADDRESS": "off",
    "WEB_CONCURRENCY": "1",
    "ACCESS_LOG": "",
    "LOG_LEVEL": "warning",
}


def environment(redis_server: str, **overrides: str) -> dict[str, str]:
    """The processes' environment: :data:`ENV` on the tests' Redis database 6."""
    return {**os.environ, **ENV, "REDIS_URL": redis_url_for_tests(redis_server, 6),
            **overrides}


def push_process(env: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    """``python -m service.push`` on 127.0.0.1:``port``."""
    return subprocess.Popen([sys.executable, "-m", "service.push", "--host", "127.0.0.1",
                             "--port", str(port)], cwd=ROOT, env=env)


def ready(procs: list[subprocess.Popen[bytes]], bases: dict[str, str]) -> None:
    """Wait until each base answers ``/healthz``; stop ``procs`` if one never does."""
    try:
        for name, base in bases.items():
            wait_until(lambda b=base: requests.get(f"{b}/healthz", timeout=1).ok, PATIENCE, name)
    except BaseException:
        stop(procs)
        raise


def stop(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.terminate()
    for proc in procs:
        proc.wait(PATIENCE)


@pytest.fixture(scope="session")
def both(redis_server: str) -> Iterator[dict[str, str]]:
    """``{"gunicorn": base URL, "push": base URL}``, on the same Redis database."""
    web_port, push_port = free_port(), free_port()
    env = environment(redis_server, PORT=str(web_port))
    web = subprocess.Popen(
        [str(Path(sys.prefix) / "bin" / "gunicorn"), "-c", "deploy/gunicorn.conf.py",
         "service.app:create_app()"], cwd=ROOT, env=env)
    push = push_process(env, push_port)
    bases = {"gunicorn": f"http://127.0.0.1:{web_port}", "push": f"http://127.0.0.1:{push_port}"}
    ready([web, push], bases)
    try:
        yield bases
    finally:
        stop([web, push])


@pytest.fixture(scope="session")
def patient_push(both: dict[str, str], redis_server: str) -> Iterator[str]:
    """The base URL of a second push process on ``both``'s Redis whose streams last
    :data:`~tests.conftest.PATIENCE` rather than 2 s (a test may hold one open while it
    makes hundreds of moves) and whose long-polls may last twice that rather than 1 s (a
    wait answered within the tests' patience was woken, not timed out), and that holds
    no other test's requests."""
    port = free_port()
    env = environment(redis_server, STREAM_MAX_SECONDS=str(PATIENCE),
                      LONG_POLL_MAX_SECONDS=str(2 * PATIENCE))
    proc = push_process(env, port)
    base = f"http://127.0.0.1:{port}"
    ready([proc], {"patient push": base})
    try:
        yield base
    finally:
        stop([proc])
