"""Real processes for the fault tests: a redis-server with AOF that a test may stop,
pause, kill and restart, and a 2-worker gunicorn on it.

Nothing is mocked: faults are signals sent to these processes (SIGTERM/SIGKILL/SIGSTOP
to redis-server, SIGKILL to a gunicorn worker). Each test gets its own pair, so a
fault never leaks into another test; the hostile-client tests, which fault no Redis,
get their gunicorn on an emptied database of the session's Redis.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Collection, Iterator
from pathlib import Path

import pytest
import redis
import requests

from tests.conftest import (
    PATIENCE,
    ROOT,
    free_port,
    redis_binary,
    redis_client,
    redis_url_for_tests,
    wait_until,
)


class RedisProcess:
    """A redis-server with AOF, fsynced once a second as deploy/redis.conf has it: the
    tests stop it with SIGTERM, on which Redis writes and fsyncs the AOF before it exits,
    so a restart keeps every acknowledged write (fsync on every write, as before, made
    a save outlast the 0.5 s Redis timeout on a disk busy with other tests)."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.dir = workdir
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1",
             "--dir", str(self.dir), "--save", "", "--appendonly", "yes",
             "--appendfsync", "everysec", "--loglevel", "warning"],
            stdout=subprocess.DEVNULL,
        )
        wait_until(lambda: redis.Redis.from_url(self.url).ping(), PATIENCE, "redis-server")

    def stop(self, sig: int = signal.SIGTERM) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)
        self.proc.wait(PATIENCE)
        self.proc = None

    def pause(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGCONT)

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url)


class Gunicorn:
    """``gunicorn -c deploy/gunicorn.conf.py`` with 2 workers on ``redis_url``."""

    def __init__(self, redis_url: str, app: str = "service.app:create_app()",
                 port: int | None = None, **settings: str) -> None:
        """``settings``: environment variables that override the ones below; ``app``:
        the WSGI app gunicorn loads (a test's own, with a fault built in); ``port``: where
        it listens (a free port unless told: a test restarting a killed gunicorn gives
        the old one's, so that its clients find it where they left it)."""
        self.port = free_port() if port is None else port
        self.base = f"http://127.0.0.1:{self.port}"
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "PORT": str(self.port),
            "WEB_CONCURRENCY": "2",
            "THREADS": "8",
            "REDIS_TIMEOUT_SECONDS": "0.5",
            "RETRY_AFTER_SECONDS": "1",
            "LONG_POLL_MAX_SECONDS": "1",
            # limits on, so their Redis calls meet the same faults (high: the players here
            # retry 503s every 20 ms instead of after Retry-After, to time the recovery)
            "RATE_LIMIT": "1000/second",
            "RATE_LIMIT_PER_ADDRESS": "100000/second",
            "CREATION_LIMIT_PER_ADDRESS": "100000/second",
            "ACCESS_LOG": "",
            "LOG_LEVEL": "error",
            **settings,
        }
        self.proc = subprocess.Popen(
            [str(Path(sys.prefix) / "bin" / "gunicorn"), "-c", "deploy/gunicorn.conf.py", app],
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
        )
        wait_until(lambda: requests.get(f"{self.base}/healthz", timeout=1).ok, PATIENCE, "gunicorn")
        count = int(env["WEB_CONCURRENCY"])
        wait_until(lambda: len(self.workers()) == count, PATIENCE, f"{count} gunicorn workers")

    def workers(self) -> list[int]:
        """The worker pids: the master's children, read from /proc."""
        out = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", str(self.proc.pid)], capture_output=True, text=True
        ).stdout
        return [int(p) for p in out.split()]

    def clients(self, pid: int, ports: Collection[int] | None = None) -> int:
        """How many established client connections to the service's port worker ``pid``
        holds: which worker the kernel handed a connection to is up to its accept race,
        so a test that kills a worker under its clients picks it by this. ``ports``: only
        the connections from these client ports (a test's waiters, not any other
        connection it or a probe left open)."""
        inodes = set()
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:  # closed meanwhile
                continue
            if target.startswith("socket:["):
                inodes.add(target[8:-1])
        held = 0
        for table in ("tcp", "tcp6"):
            path = Path(f"/proc/{pid}/net/{table}")
            if not path.exists():
                continue
            for line in path.read_text().splitlines()[1:]:
                fields = line.split()
                local_port = int(fields[1].rsplit(":", 1)[1], 16)
                remote_port = int(fields[2].rsplit(":", 1)[1], 16)
                if (local_port == self.port and fields[3] == "01" and fields[9] in inodes
                        and (ports is None or remote_port in ports)):
                    held += 1
        return held

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(PATIENCE)


@pytest.fixture
def aof_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    server = RedisProcess(tmp_path)
    server.start()
    try:
        yield server
    finally:
        if server.proc is not None:
            server.resume()
            server.stop(signal.SIGKILL)


@pytest.fixture
def service(aof_redis: RedisProcess) -> Iterator[Gunicorn]:
    server = Gunicorn(aof_redis.url)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def plain_redis(redis_server: str) -> Iterator[str]:
    """A database of the session's Redis (no persistence), emptied, for the tests whose
    faults are in the clients, not in Redis: nothing to restart, so no AOF to write."""
    url = redis_url_for_tests(redis_server, 15)
    redis_client(url).flushdb()
    yield url
    redis_client(url).flushdb()


@pytest.fixture
def open_service(plain_redis: str) -> Iterator[Gunicorn]:
    """The service with no per-client limits (hundreds of sockets from 127.0.0.1), and
    enough open files here for them (some shells start at 1,024). Its Redis timeout is
    the default's 2 s: these tests measure the clients' effects, not Redis's."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4096 <= hard or hard == resource.RLIM_INFINITY:
        resource.setrlimit(resource.RLIMIT_NOFILE, (4096, hard))
    server = Gunicorn(plain_redis, LONG_POLL_MAX_SECONDS="30", MAX_WAITS_PER_ADDRESS="off",
                      MAX_WAITS_PER_TOKEN="off", RATE_LIMIT="off", RATE_LIMIT_PER_ADDRESS="off",
                      REDIS_TIMEOUT_SECONDS="2")
    try:
        yield server
    finally:
        server.close()


def now() -> float:
    return time.monotonic()
