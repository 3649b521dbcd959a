"""A live gunicorn with 2 workers and its own metrics directory, its stdout kept in a file."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import PATIENCE, ROOT, free_port, wait_until


@dataclass
class OpsServer:
    base: str
    metrics_dir: Path
    stdout: Path


@pytest.fixture(scope="module")
def ops_server(redis_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpsServer]:
    import requests

    tmp = tmp_path_factory.mktemp("ops")
    metrics_dir = tmp / "prometheus"
    stdout = tmp / "stdout.log"
    port = free_port()
    env = {
        **os.environ,
        "REDIS_URL": f"{redis_server}/5",
        "PORT": str(port),
        "LONG_POLL_MAX_SECONDS": "1",
        "WEB_CONCURRENCY": "2",
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        "LOG_LEVEL": "warning",
    }
    with stdout.open("wb") as out:
        proc = subprocess.Popen(
            [str(Path(sys.prefix) / "bin" / "gunicorn"), "-c", "deploy/gunicorn.conf.py",
             "service.app:create_app()"],
            cwd=ROOT, env=env, stdout=out,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: requests.get(f"{base}/healthz", timeout=1).ok, PATIENCE, "gunicorn")
        yield OpsServer(base, metrics_dir, stdout)
    finally:
        proc.terminate()
        proc.wait(PATIENCE)
