"""The Redis Cluster overlay (``kubectl apply -k deploy/k8s-redis-cluster``): six nodes with
the single Redis's durability and memory settings, the service's ``REDIS_URL`` on the
cluster, and nothing of the single Redis left. The Job's script itself is run against
real nodes in tests/cluster/test_cluster_create_job.py."""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

import pytest
import yaml

from service.config import Config
from service.storage.redis.connection import CLUSTER_SCHEMES
from tests.ops.test_deploy_files import (
    K8S,
    K8S_CLUSTER,
    K8S_UNITS,
    REDIS_UNITS,
    _bytes,
    documents,
    manifests,
    redis_conf,
)


def conf_settings(text: str) -> dict[str, str]:
    """A redis.conf's ``name value`` lines (comments and blank lines skipped)."""
    out = {}
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.strip().partition(" ")
            out[key] = value
    return out


def one(items: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    (found,) = [m for m in items if m["kind"] == kind and m["metadata"]["name"] == name]
    return found


def cluster_manifests() -> list[dict[str, Any]]:
    return manifests(K8S_CLUSTER)


def node_settings() -> dict[str, str]:
    config = one(cluster_manifests(), "ConfigMap", "redis-cluster-config")
    return conf_settings(config["data"]["redis.conf"])


def test_the_nodes_keep_the_single_redis_durability_and_memory_settings() -> None:
    single, nodes = redis_conf(), node_settings()
    for name in ("appendonly", "appendfsync", "aof-use-rdb-preamble", "save", "dir",
                 "maxmemory", "maxmemory-policy", "port"):
        assert nodes[name] == single[name], name
    assert nodes["cluster-enabled"] == "yes"
    assert nodes["cluster-config-file"].startswith(nodes["dir"] + "/")  # on the volume
    assert nodes["cluster-preferred-endpoint-type"] == "hostname"


def test_six_nodes_with_a_volume_each_and_maxmemory_below_the_container_limit() -> None:
    nodes = one(cluster_manifests(), "StatefulSet", "redis-cluster")
    spec = nodes["spec"]
    assert spec["replicas"] == 6
    assert spec["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]["storage"]
    (container,) = spec["template"]["spec"]["containers"]
    assert {m["mountPath"] for m in container["volumeMounts"]} >= {"/data", "/etc/redis"}
    limit = _bytes(container["resources"]["limits"]["memory"], K8S_UNITS, case_sensitive=True)
    maxmemory = _bytes(node_settings()["maxmemory"], REDIS_UNITS, case_sensitive=False)
    assert 0 < maxmemory <= 0.8 * limit
    # each pod announces its own stable name: $(POD_NAME) is expanded by Kubernetes
    args = container["args"]
    assert args[args.index("--cluster-announce-hostname") + 1] == "$(POD_NAME).redis-cluster"
    assert {"POD_NAME"} <= {e["name"] for e in container["env"]}
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports["bus"] == ports["redis"] + 10000  # the cluster bus port


def test_the_headless_service_names_every_node_and_the_job_joins_all_of_them() -> None:
    items = cluster_manifests()
    nodes = one(items, "StatefulSet", "redis-cluster")
    service = one(items, "Service", nodes["spec"]["serviceName"])
    assert service["spec"]["clusterIP"] == "None"
    assert service["spec"]["selector"] == nodes["spec"]["selector"]["matchLabels"]
    job = one(items, "Job", "redis-cluster-create")
    (container,) = job["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    pods = [f"{nodes['metadata']['name']}-{i}.{service['metadata']['name']}:6379"
            for i in range(nodes["spec"]["replicas"])]
    assert env["NODES"].split() == pods
    assert (1 + int(env["REPLICAS"])) * 3 == nodes["spec"]["replicas"]  # 3 primaries
    assert "redis-cli --cluster create" in container["args"][0]


def kustomization() -> dict[str, Any]:
    (found,) = documents(K8S_CLUSTER / "kustomization.yaml")
    return found


def test_the_overlay_removes_the_single_redis_and_patches_only_what_exists() -> None:
    spec = kustomization()
    assert spec["resources"] == ["../k8s", "redis-cluster.yaml"]
    base = manifests(K8S)
    deleted = set()
    for entry in spec["patches"]:
        patch = yaml.safe_load(entry["patch"])
        if "target" in entry:  # a JSON patch of the target's fields
            one(base, entry["target"]["kind"], entry["target"]["name"])
            continue
        one(base, patch["kind"], patch["metadata"]["name"])  # the target exists in the base
        if patch.get("$patch") == "delete":
            deleted.add((patch["kind"], patch["metadata"]["name"]))
    single = {(m["kind"], m["metadata"]["name"]) for m in documents(K8S / "redis.yaml")}
    assert deleted == single  # the push tier stays: it subscribes on the cluster's shards


def built() -> list[dict[str, Any]]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed: the overlay's build is not checked here")
    done = subprocess.run([kubectl, "kustomize", str(K8S_CLUSTER)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return [d for d in yaml.safe_load_all(done.stdout) if d]


def test_the_built_overlay_points_the_service_at_the_cluster_through_its_secret() -> None:
    items = built()
    assert not [m for m in items if m["metadata"]["name"] in ("redis", "redis-config")]
    deployment = one(items, "Deployment", "three-thirteen")
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    secret_name = next(s["secretRef"]["name"] for s in container["envFrom"] if "secretRef" in s)
    url = one(items, "Secret", secret_name)["stringData"]["REDIS_URL"]
    scheme, _, rest = url.partition("://")
    assert scheme in CLUSTER_SCHEMES
    host, _, port = rest.partition(":")
    service = one(items, "Service", host)
    assert int(port) in {p["port"] for p in service["spec"]["ports"]}
    assert one(items, "StatefulSet", "redis-cluster")["spec"]["serviceName"] == host
    assert Config.from_env({"REDIS_URL": url}).redis_url == url
    for configmap in (m for m in items if m["kind"] == "ConfigMap"):
        assert "REDIS_URL" not in configmap["data"]  # the Secret's is the only one
    # the push processes stay, on the same Secret (so the same cluster), and hold the streams
    push = one(items, "Deployment", "three-thirteen-push")
    (push_container,) = push["spec"]["template"]["spec"]["containers"]
    assert {s["secretRef"]["name"] for s in push_container["envFrom"] if "secretRef" in s
            } == {secret_name}
    stream = one(items, "Ingress", "three-thirteen-stream")
    assert {p["backend"]["service"]["name"] for p in stream["spec"]["rules"][0]["http"]["paths"]
            } == {one(items, "Service", "three-thirteen-push")["metadata"]["name"]}
