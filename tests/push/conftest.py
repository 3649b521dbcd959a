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
    "BOT_GAMES_PER_ADDRESS": "off",
    "WEB_CONCURRENCY": "1",
    "ACCESS_LOG": "",
    "LOG_LEVEL": "warning",
}


@pytest.fixture(scope="session")
def both(redis_server: str) -> Iterator[dict[str, str]]:
    """``{"gunicorn": base URL, "push": base URL}``, on the same Redis database."""
    web_port, push_port = free_port(), free_port()
    env = {**os.environ, **ENV, "REDIS_URL": redis_url_for_tests(redis_server, 6),
           "PORT": str(web_port)}
    web = subprocess.Popen(
        [str(Path(sys.prefix) / "bin" / "gunicorn"), "-c", "deploy/gunicorn.conf.py",
         "service.app:create_app()"], cwd=ROOT, env=env)
    push = subprocess.Popen([sys.executable, "-m", "service.push", "--host", "127.0.0.1",
                             "--port", str(push_port)], cwd=ROOT, env=env)
    bases = {"gunicorn": f"http://127.0.0.1:{web_port}", "push": f"http://127.0.0.1:{push_port}"}
    try:
        for name, base in bases.items():
            wait_until(lambda b=base: requests.get(f"{b}/healthz", timeout=1).ok, PATIENCE, name)
        yield bases
    finally:
        for proc in (web, push):
            proc.terminate()
        for proc in (web, push):
            proc.wait(PATIENCE)
