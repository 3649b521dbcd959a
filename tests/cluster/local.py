"""A throw-away Redis Cluster on loopback, for the cluster tests and ``make bench-cluster``.

Why real ``redis-server --cluster-enabled yes`` processes joined by ``redis-cli --cluster
create`` (the tool the Kubernetes Job runs) rather than a mock: what must be shown is that
the service's keys, scripts and sharded subscriptions work when Redis answers ``MOVED``
and each game lives on one of several shards. Nodes can be started bare (the deploy
test joins them with the Job's own script) or joined here.
"""

from __future__ import annotations

import contextlib
import random
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import redis

from service.match.local import free_port, redis_server_binary

__all__ = ["LocalCluster", "cluster_client", "cluster_nodes", "cluster_ok", "cluster_port",
           "local_cluster", "redis_cli"]


def redis_cli() -> str | None:
    """``redis-cli`` on PATH (it creates the cluster), or None."""
    return shutil.which("redis-cli")


def cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) is free and valid too."""
    for _ in range(200):
        port = free_port()
        if port + 10000 > 65535:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port + 10000))
            except OSError:
                continue
        return port
    return random.randint(20000, 40000)


def _ping(port: int) -> bool:
    with contextlib.suppress(redis.RedisError):
        return bool(redis.Redis(port=port, socket_timeout=1).ping())
    return False


@contextlib.contextmanager
def cluster_nodes(count: int, workdir: Path, conf: str | None = None,
                  extra: tuple[str, ...] = ()) -> Iterator[list[int]]:
    """``count`` cluster-enabled, not yet joined redis-servers; their ports. With ``conf``
    (a redis.conf's text) each node starts from it, with this machine's port, address,
    directory and no persistence given on the command line (they win), then ``extra``;
    its ``dir`` line is left out (Redis changes into it while reading the file)."""
    server = redis_server_binary()
    procs: list[subprocess.Popen[bytes]] = []
    ports = [cluster_port() for _ in range(count)]
    try:
        for port in ports:
            node_dir = workdir / f"node{port}"
            node_dir.mkdir(parents=True, exist_ok=True)
            first = []
            if conf is not None:
                (node_dir / "redis.conf").write_text("\n".join(
                    line for line in conf.splitlines() if not line.startswith("dir ")))
                first = [str(node_dir / "redis.conf")]
            procs.append(subprocess.Popen(
                [server, *first, "--port", str(port), "--bind", "127.0.0.1",
                 "--cluster-enabled", "yes",
                 "--cluster-config-file", str(node_dir / "nodes.conf"), "--dir", str(node_dir),
                 "--save", "", "--appendonly", "no", "--loglevel", "warning",
                 "--maxmemory", "0", *extra],
                stdout=subprocess.DEVNULL,
            ))
        for port in ports:
            _wait(lambda p=port: _ping(p), 10, f"cluster node :{port}")
        yield ports
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(10)


def _wait(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} not ready after {seconds} s")


def cluster_ok(ports: list[int]) -> bool:
    """Every node says ``cluster_state:ok`` (all 16384 slots served)."""
    with contextlib.suppress(redis.RedisError):
        return all(redis.Redis(port=p).cluster("info")["cluster_state"] == "ok" for p in ports)
    return False


@dataclass(frozen=True)
class LocalCluster:
    ports: list[int]
    replicas: int

    @property
    def url(self) -> str:
        """The service's ``REDIS_URL`` for it (any node will do: the first)."""
        return f"redis+cluster://127.0.0.1:{self.ports[0]}"


def cluster_client(url: str) -> redis.RedisCluster:
    """A redis-py cluster client for a ``redis+cluster://`` URL."""
    return redis.RedisCluster.from_url(url.replace("redis+cluster://", "redis://", 1))


@contextlib.contextmanager
def local_cluster(workdir: Path, primaries: int = 3, replicas: int = 0
                  ) -> Iterator[LocalCluster]:
    """A joined cluster of ``primaries`` primaries, each with ``replicas`` replicas."""
    cli = redis_cli()
    if cli is None:
        raise RuntimeError("redis-cli is not installed: it creates the local Redis Cluster")
    with cluster_nodes(primaries * (1 + replicas), workdir) as ports:
        subprocess.run(
            [cli, "--cluster", "create", *[f"127.0.0.1:{p}" for p in ports],
             "--cluster-replicas", str(replicas), "--cluster-yes"],
            check=True, stdout=subprocess.DEVNULL, timeout=60,
        )
        _wait(lambda: cluster_ok(ports), 20, "the cluster")
        yield LocalCluster(ports, replicas)
