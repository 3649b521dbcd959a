"""The service unchanged on a local 3-master Redis Cluster (``REDIS_URL=redis+cluster://…``).

The test starts three ``redis-server --cluster-enabled yes`` on loopback, joins them with
``redis-cli --cluster create``, runs a complete game through the app (rate limits on,
counted in the cluster too) and checks that games spread over the shards, then runs
all of ``tests/api`` against the cluster: the API integration tests, the hostile-input
fuzzing, the rate limits and the 16-thread race through a 2-worker gunicorn (about
70 s in all). Skipped, with the reason, when ``redis-cli`` is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
import redis

from service.app import create_app
from service.config import Config
from service.engine import apply, from_dict, new_game
from tests.api.test_full_games import play
from tests.conftest import ROOT, free_port, redis_binary, wait_until


def _cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) is free and valid too."""
    import socket

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
    import random

    return random.randint(20000, 40000)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    cli = shutil.which("redis-cli")
    if cli is None:
        pytest.skip("redis-cli is not installed: it is needed to create the local Redis Cluster")
    server = redis_binary()
    ports = [_cluster_port() for _ in range(3)]
    procs = []
    try:
        for port in ports:
            workdir: Path = tmp_path_factory.mktemp(f"node{port}")
            procs.append(subprocess.Popen(
                [server, "--port", str(port), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
                 "--cluster-config-file", str(workdir / "nodes.conf"), "--dir", str(workdir),
                 "--save", "", "--appendonly", "no", "--loglevel", "warning"],
                stdout=subprocess.DEVNULL,
            ))
        for port in ports:
            wait_until(lambda p=port: redis.Redis(port=p).ping(), 10, "a cluster node")
        subprocess.run(
            [cli, "--cluster", "create", *[f"127.0.0.1:{p}" for p in ports],
             "--cluster-replicas", "0", "--cluster-yes"],
            check=True, stdout=subprocess.DEVNULL, timeout=60,
        )
        wait_until(lambda: all(redis.Redis(port=p).cluster("info")["cluster_state"] == "ok"
                               for p in ports), 20, "the cluster")
        yield f"redis+cluster://127.0.0.1:{ports[0]}"
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(10)


def _client(url: str) -> redis.RedisCluster:
    return redis.RedisCluster.from_url(url.replace("redis+cluster://", "redis://"))


def test_a_full_game_and_games_on_every_shard(cluster: str) -> None:
    app = create_app(Config(redis_url=cluster, rate_limit="100000/second",
                            rate_limit_per_address="100000/second"))
    client = app.test_client()
    store = _client(cluster)
    table, moves = play(client, store, {"preset": "classic", "hand_sizes": [3, 4, 5, 6]},
                         "cluster", scan=False)
    stored = from_dict(orjson.loads(store.hget(f"ttt:{{{table.game_id}}}:game", "s")))
    assert stored.finished
    replay = new_game(stored.rules, list(stored.names), stored.seed, seed_salt=stored.seed_salt)
    for seat, action in moves:
        replay, _ = apply(replay, seat, action)
    assert replay == stored
    events = client.get(f"/v1/games/{table.game_id}/events?after={stored.event_seq - 3}").json
    assert [e["seq"] for e in events["events"]] == [stored.event_seq - 2 + i for i in range(3)]

    # every key of a game is on one slot; many games use every shard
    ids = [client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}]}).json[
        "game_id"] for _ in range(30)]
    masters = set()
    for gid in ids:
        keys = [f"ttt:{{{gid}}}:game", f"ttt:{{{gid}}}:events", f"ttt:{{{gid}}}:reply:x"]
        assert len({store.keyslot(k) for k in keys}) == 1
        masters.add(store.get_node_from_key(keys[0]).name)
    assert len(masters) == 3
    assert client.get("/readyz").status_code == 200


def test_the_api_tests_pass_on_the_cluster(cluster: str) -> None:
    """All of tests/api with every Redis they use being the cluster (``TEST_REDIS_URL``):
    the endpoint tests (success and failure paths, TTLs, token hashing, idempotency,
    long-polls), the full games with engine replay, the hostile-input fuzzing (all
    examples, > 10,000 requests: about 11 s here, so not cut down), the rate limits
    (flask-limiter counting in the cluster) and the 16-thread race through a 2-worker
    gunicorn on the cluster. One pytest run in a subprocess, so the tests run exactly
    as in ``make test``, only against the cluster (about 55 s)."""
    env = {**os.environ, "TEST_REDIS_URL": cluster}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/api"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "skipped" not in summary, summary  # none skipped
