"""``python -m service.workers`` processes on a test's Redis, each logging to its own
file, killed at the end if still running (the webhook and rating worker tests)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from service.config import Config
from tests.conftest import PATIENCE, ROOT

__all__ = ["Workers"]


class Workers:
    """Worker processes started on ``config``'s Redis with ``env`` added."""

    def __init__(self, config: Config, folder: Path, **env: str) -> None:
        self.env = {**os.environ, "REDIS_URL": config.redis_url, "LOG_LEVEL": "info",
                    "WORKER_NICE": "0", **env}
        self.folder = folder
        self.started: list[tuple[subprocess.Popen[bytes], Path]] = []

    def start(self) -> subprocess.Popen[bytes]:
        log = self.folder / f"worker-{len(self.started)}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen([sys.executable, "-m", "service.workers"], cwd=ROOT,
                                    env=self.env, stderr=out)
        self.started.append((proc, log))
        return proc

    def logs(self) -> str:
        return "".join(log.read_text() for _, log in self.started)

    def close(self) -> None:
        for proc, _ in self.started:
            if proc.poll() is None:
                proc.kill()
            proc.wait(PATIENCE)
