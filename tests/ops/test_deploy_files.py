"""The deployment files: every YAML parses, the Kubernetes manifests validate against the
Kubernetes API's JSON schemas (kubernetes-validate, which bundles them: no network), and
the Dockerfile, compose.yaml and redis.conf say what the README promises; the Redis
Cluster overlay (deploy/k8s-redis-cluster) builds and points the service at the cluster."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from tests.conftest import ROOT

DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
K8S_CLUSTER = DEPLOY / "k8s-redis-cluster"
K8S_VERSION = "1.30.0"
YAML_FILES = sorted([*DEPLOY.glob("*.yaml"), *K8S.glob("*.yaml"), *K8S_CLUSTER.glob("*.yaml")])


def documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


def manifests(folder: Path = K8S) -> list[dict[str, Any]]:
    return [d for p in sorted(folder.glob("*.yaml")) if p.name != "kustomization.yaml"
            for d in documents(p)]


def by_kind(kind: str) -> list[dict[str, Any]]:
    return [m for m in manifests() if m["kind"] == kind]


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(DEPLOY)))
def test_every_yaml_file_parses(path: Path) -> None:
    assert documents(path)


@pytest.mark.parametrize("manifest", [*manifests(), *manifests(K8S_CLUSTER)],
                         ids=lambda m: f"{m['kind']}/{m['metadata']['name']}")
def test_every_manifest_is_valid_against_the_kubernetes_schema(manifest: dict[str, Any]) -> None:
    kubernetes_validate.validate(manifest, K8S_VERSION, strict=True)  # strict: no unknown fields


def test_the_kustomization_lists_every_manifest() -> None:
    (kustomization,) = documents(K8S / "kustomization.yaml")
    files = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization["resources"]) == files


def test_the_deployment_has_probes_resources_and_its_settings() -> None:
    (deployment,) = [d for d in by_kind("Deployment") if d["metadata"]["name"] == "three-thirteen"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert {"cpu", "memory"} <= set(container["resources"]["requests"])
    assert {"cpu", "memory"} <= set(container["resources"]["limits"])
    sources = {next(iter(s)): next(iter(s.values()))["name"] for s in container["envFrom"]}
    (configmap,) = [c for c in by_kind("ConfigMap") if c["metadata"]["name"] == sources[
        "configMapRef"]]
    (secret,) = [s for s in by_kind("Secret") if s["metadata"]["name"] == sources["secretRef"]]
    assert "REDIS_URL" in secret["stringData"]
    assert "REDIS_URL" not in configmap["data"]
    assert deployment["spec"]["template"]["spec"]["securityContext"]["runAsNonRoot"] is True
    labels = deployment["spec"]["selector"]["matchLabels"]
    for kind in ("Service", "PodDisruptionBudget"):
        selectors = [m["spec"]["selector"] for m in by_kind(kind)
                     if m["metadata"]["name"] == deployment["metadata"]["name"]]
        assert [s.get("matchLabels", s) for s in selectors] == [labels], kind
    (hpa,) = by_kind("HorizontalPodAutoscaler")
    assert hpa["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    assert hpa["spec"]["minReplicas"] >= 2  # with the PDB's minAvailable 1: drains keep one


def test_redis_runs_as_a_statefulset_with_a_volume_and_the_aof_config() -> None:
    (redis,) = by_kind("StatefulSet")
    assert redis["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]["storage"]
    config = next(c for c in by_kind("ConfigMap") if c["metadata"]["name"] == "redis-config")
    assert config["data"]["redis.conf"] == (DEPLOY / "redis.conf").read_text()
    mounts = {m["mountPath"] for m in redis["spec"]["template"]["spec"]["containers"][0][
        "volumeMounts"]}
    assert "/data" in mounts


def redis_conf() -> dict[str, str]:
    out = {}
    for line in (DEPLOY / "redis.conf").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.strip().partition(" ")
            out[key] = value
    return out


def test_redis_conf_turns_on_aof_fsynced_every_second() -> None:
    conf = redis_conf()
    assert conf["appendonly"] == "yes"
    assert conf["appendfsync"] == "everysec"
    assert conf["dir"] == "/data"


def _bytes(value: str, units: dict[str, int], *, case_sensitive: bool) -> int:
    match = re.fullmatch(r"(\d+)([A-Za-z]*)", str(value).strip())
    assert match, value
    unit = match[2] if case_sensitive else match[2].lower()
    return int(match[1]) * units[unit]


# redis.conf's units, case-insensitive (its own header: "1mb => 1024*1024", "1m => 1000000")
REDIS_UNITS = {"": 1, "k": 1000, "kb": 1024, "m": 1000**2, "mb": 1024**2, "g": 1000**3,
               "gb": 1024**3}
# Kubernetes quantities (case matters: "M" is 10^6, "Mi" 2^20)
K8S_UNITS = {"": 1, "k": 1000, "M": 1000**2, "G": 1000**3, "Ki": 1024, "Mi": 1024**2,
             "Gi": 1024**3}
# docker's / compose's mem_limit: binary, case-insensitive
DOCKER_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def test_redis_maxmemory_is_below_its_containers_memory_limit_and_never_evicts() -> None:
    """Without ``maxmemory`` Redis grows until the kernel OOM-kills the container (and
    replaying the AOF at restart fills it again); with it, and ``noeviction``, a full
    Redis refuses writes, which the service answers 503 (tests/faults/test_redis_full.py).
    The limit leaves room for what ``maxmemory`` does not count (fragmentation, the AOF
    buffer, the fork's copy-on-write pages): at least 20 % of the container's memory."""
    conf = redis_conf()
    assert conf["maxmemory-policy"] == "noeviction"
    maxmemory = _bytes(conf["maxmemory"], REDIS_UNITS, case_sensitive=False)
    assert maxmemory > 0  # 0 is "no limit"
    (redis,) = by_kind("StatefulSet")
    (container,) = redis["spec"]["template"]["spec"]["containers"]
    pod_limit = _bytes(container["resources"]["limits"]["memory"], K8S_UNITS,
                       case_sensitive=True)
    assert maxmemory <= 0.8 * pod_limit, (maxmemory, pod_limit)
    (compose,) = documents(DEPLOY / "compose.yaml")
    compose_limit = _bytes(compose["services"]["redis"]["mem_limit"], DOCKER_UNITS,
                           case_sensitive=False)
    assert maxmemory <= 0.8 * compose_limit, (maxmemory, compose_limit)


def dockerfile() -> list[tuple[str, str]]:
    text = re.sub(r"\\\n", " ", (DEPLOY / "Dockerfile").read_text())
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1])
            for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_the_dockerfile_runs_as_non_root_with_a_health_check() -> None:
    steps = dockerfile()
    assert steps[0] == ("FROM", "python:3.11-slim")
    users = [arg for op, arg in steps if op == "USER"]
    assert users, "no USER: the container would run as root"
    assert users[-1].split(":")[0] not in ("root", "0")
    (healthcheck,) = [arg for op, arg in steps if op == "HEALTHCHECK"]
    assert "/healthz" in healthcheck
    last_user = max(i for i, (op, _) in enumerate(steps) if op == "USER")
    (cmd,) = [(i, arg) for i, (op, arg) in enumerate(steps) if op == "CMD"]
    assert cmd[0] > last_user
    assert "gunicorn" in cmd[1] and "deploy/gunicorn.conf.py" in cmd[1]
    assert any(op == "RUN" and "pip install ." in arg for op, arg in steps)


def test_the_rate_limits_are_set_in_compose_and_the_configmap_and_every_setting_exists(
) -> None:
    """The limits an operator tunes first are spelled out where they deploy, with values
    flask-limiter accepts; and no setting there is a typo the service would ignore."""
    from limits import parse_many

    from service.config import Config

    known = {f.upper() for f in Config.__dataclass_fields__} | {
        "WEB_CONCURRENCY", "THREADS", "LOG_LEVEL", "ACCESS_LOG", "WORKER_TIMEOUT", "BIND",
        "PORT", "WORKER_CLASS", "WORKER_CONNECTIONS", "PROMETHEUS_MULTIPROC_DIR",
        "SWITCH_INTERVAL_SECONDS", "GC_THRESHOLD"}  # deploy/gunicorn.conf.py's
    (configmap,) = [c for c in by_kind("ConfigMap") if c["metadata"]["name"] == "three-thirteen"]
    (compose,) = documents(DEPLOY / "compose.yaml")
    for settings in (configmap["data"], compose["services"]["api"]["environment"]):
        assert set(settings) <= known, set(settings) - known
        for name in ("RATE_LIMIT", "RATE_LIMIT_PER_ADDRESS"):
            assert parse_many(settings[name]), name
            assert Config.from_env(settings).rate_limit == settings["RATE_LIMIT"]


def test_compose_and_kubernetes_run_the_move_workers_from_the_apis_image_and_settings() -> None:
    (compose,) = documents(DEPLOY / "compose.yaml")
    api, workers = compose["services"]["api"], compose["services"]["workers"]
    assert workers["image"] == api["image"]
    assert workers["command"] == ["python", "-m", "service.workers"]
    assert workers["environment"]["REDIS_URL"] == api["environment"]["REDIS_URL"]
    deployments = {d["metadata"]["name"]: d for d in by_kind("Deployment")}
    (api_pod,) = deployments["three-thirteen"]["spec"]["template"]["spec"]["containers"]
    (mover_pod,) = deployments["three-thirteen-workers"]["spec"]["template"]["spec"]["containers"]
    assert mover_pod["image"] == api_pod["image"]
    assert mover_pod["command"] == ["python", "-m", "service.workers"]
    assert mover_pod["envFrom"] == api_pod["envFrom"]  # the same Redis, the same settings
    # its one port is its own /metrics, where the annotations send the scraper
    metrics_port = {e["name"]: e["value"] for e in mover_pod["env"]}["WORKER_METRICS_PORT"]
    assert [p["containerPort"] for p in mover_pod["ports"]] == [int(metrics_port)]
    pod_meta = deployments["three-thirteen-workers"]["spec"]["template"]["metadata"]
    assert pod_meta["annotations"]["prometheus.io/port"] == metrics_port
    assert not [s for s in by_kind("Service")
                if s["spec"]["selector"] == pod_meta["labels"]]  # nothing routes to it


def test_compose_runs_the_service_and_redis_with_aof_on_a_volume() -> None:
    (compose,) = documents(DEPLOY / "compose.yaml")
    api, redis = compose["services"]["api"], compose["services"]["redis"]
    assert api["build"]["dockerfile"] == "deploy/Dockerfile"
    assert (DEPLOY / api["build"]["context"] / api["build"]["dockerfile"]).is_file()
    assert api["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "healthcheck" in api and "healthcheck" in redis
    mounts = {m.split(":")[0]: m.split(":")[1] for m in redis["volumes"]}
    assert (DEPLOY / "redis.conf").samefile(DEPLOY / next(k for k in mounts if
                                                            k.endswith("redis.conf")))
    conf_path = mounts["./redis.conf"]
    assert conf_path in redis["command"]
    data = next(k for k, v in mounts.items() if v == "/data")
    assert data in compose["volumes"]  # a named volume, so the AOF outlives the container


def test_docker_compose_config_accepts_the_file() -> None:
    try:
        found = subprocess.run(["docker", "compose", "version"], capture_output=True,
                               timeout=10).returncode == 0
    except (FileNotFoundError, subprocess.TimeoutExpired):
        found = False
    if not found:
        pytest.skip("`docker compose version` fails here (no docker compose plugin): "
                    "compose.yaml is checked by the YAML tests above only")
    result = subprocess.run(
        shlex.split(f"docker compose -f {DEPLOY / 'compose.yaml'} config --quiet"),
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 0, result.stderr


STREAM_PATH = r"^/v1/games/[^/]+/stream$"


def nginx_conf() -> str:
    return (DEPLOY / "nginx.conf").read_text()


def nginx_directives(block: str) -> dict[str, str]:
    """The simple ``name value;`` directives of ``block`` (its first occurrence of each)."""
    out: dict[str, str] = {}
    for name, value in re.findall(r"^\s*([a-z_]+)\s+([^;{]*);", block, re.MULTILINE):
        out.setdefault(name, value.strip())
    return out


def nginx_location(pattern: str) -> str:
    match = re.search(r"location\s+" + re.escape(pattern) + r"\s*\{(.*?)\}", nginx_conf(),
                      re.DOTALL)
    assert match, f"no location {pattern} in nginx.conf"
    return match[1]


def test_nginx_buffers_reads_with_timeouts_and_caps_bodies_and_connections() -> None:
    from service.config import Config

    conf = nginx_directives(nginx_conf())
    assert _bytes(conf["client_max_body_size"], {"k": 1024, "m": 1024**2, "": 1},
                  case_sensitive=False) == Config().max_body_bytes
    (configmap,) = [c for c in by_kind("ConfigMap") if c["metadata"]["name"] == "three-thirteen"]
    assert int(configmap["data"]["MAX_BODY_BYTES"]) == Config().max_body_bytes
    for timeout in ("client_header_timeout", "client_body_timeout"):
        assert int(conf[timeout].rstrip("s")) <= 10, timeout
    assert int(conf["proxy_read_timeout"].rstrip("s")) > Config().long_poll_max_seconds
    assert conf["proxy_buffering"] == "on" and conf["proxy_request_buffering"] == "on"
    assert "X-Forwarded-For $proxy_add_x_forwarded_for" in nginx_conf()
    assert re.search(r"limit_conn_zone \$binary_remote_addr zone=(\w+)", nginx_conf())
    assert re.search(r"^\s*limit_conn per_address \d+;", nginx_conf(), re.MULTILINE)
    # the upstream closes idle connections before gunicorn does (no reuse of a closed one)
    assert int(conf["keepalive_timeout"].rstrip("s")) < 5  # gunicorn.conf.py's keepalive


def test_nginx_passes_the_stream_through_unbuffered_with_a_long_read_timeout() -> None:
    stream = nginx_directives(nginx_location(f"~ {STREAM_PATH}"))
    assert stream["proxy_buffering"] == "off"
    assert stream["proxy_read_timeout"] in ("1h", "3600s", "3600")
    assert re.search(STREAM_PATH, "/v1/games/abc/stream")
    assert not re.search(STREAM_PATH, "/v1/games/abc/events")
    account = nginx_directives(nginx_location("= /v1/me/stream"))
    assert account["proxy_buffering"] == "off"
    assert account["proxy_read_timeout"] in ("1h", "3600s", "3600")


def test_compose_puts_nginx_in_front_of_the_api_with_one_proxy_hop() -> None:
    (compose,) = documents(DEPLOY / "compose.yaml")
    api, nginx = compose["services"]["api"], compose["services"]["nginx"]
    assert "ports" not in api, "the api must be reached through nginx only"
    assert api["environment"]["PROXY_HOPS"] == "1"
    assert "./nginx.conf:/etc/nginx/nginx.conf:ro" in nginx["volumes"]
    assert nginx["depends_on"]["api"]["condition"] == "service_healthy"
    assert "server api:8000;" in nginx_conf()
    (published,) = nginx["ports"]
    assert published.split(":")[1] == re.search(r"listen (\d+);", nginx_conf())[1]


def test_the_ingresses_set_timeouts_body_size_connection_caps_and_an_unbuffered_stream(
) -> None:
    from service.config import Config

    ingresses = {i["metadata"]["name"]: i for i in by_kind("Ingress")}
    assert set(ingresses) == {"three-thirteen", "three-thirteen-stream"}
    prefix = "nginx.ingress.kubernetes.io/"
    notes_of = {}
    for name, ingress in ingresses.items():
        notes = {k.removeprefix(prefix): v for k, v in ingress["metadata"]["annotations"].items()}
        assert _bytes(notes["proxy-body-size"], {"k": 1024, "m": 1024**2, "": 1},
                      case_sensitive=False) == Config().max_body_bytes
        assert int(notes["limit-connections"]) > 0
        assert ingress["spec"]["ingressClassName"] == "nginx"
        notes_of[name] = notes
    # the streams are held by the push processes, everything else by the api pods
    for name, service in (("three-thirteen", "three-thirteen"),
                          ("three-thirteen-stream", "three-thirteen-push")):
        (rule,) = ingresses[name]["spec"]["rules"]
        assert {path["backend"]["service"]["name"] for path in rule["http"]["paths"]} == {
            service}
    main, stream = notes_of["three-thirteen"], notes_of["three-thirteen-stream"]
    assert main["proxy-buffering"] == "on"
    assert int(main["proxy-read-timeout"]) > Config().long_poll_max_seconds
    assert stream["proxy-buffering"] == "off"
    assert stream["use-regex"] == "true"
    assert int(stream["proxy-read-timeout"]) >= 3600
    paths = ingresses["three-thirteen-stream"]["spec"]["rules"][0]["http"]["paths"]
    assert {path["pathType"] for path in paths} == {"ImplementationSpecific"}
    # (ingress-nginx anchors a regex path with ^)
    game, many, account = paths
    assert ["^" + path["path"] for path in (game, account)] == [STREAM_PATH,
                                                                "^/v1/me/stream$"]
    # a stream of many games and its changes, and nothing else under /v1/streams/
    for target, matched in (("/v1/streams/games", True), ("/v1/streams/games/s1/add", True),
                            ("/v1/streams/games/s1/remove", True),
                            ("/v1/streams/games/s1/drop", False),
                            ("/v1/streams/games/s1/add/x", False)):
        assert bool(re.search("^" + many["path"], target)) is matched, target
    (configmap,) = [c for c in by_kind("ConfigMap") if c["metadata"]["name"] == "three-thirteen"]
    assert configmap["data"]["PROXY_HOPS"] == "1"


def test_nginx_sends_the_streams_and_the_long_polls_to_the_push_processes() -> None:
    """(Run for real in tests/ops/test_nginx_proxy.py; here, what the file says.)"""
    assert "proxy_pass http://three_thirteen_push;" in nginx_location(f"~ {STREAM_PATH}")
    many = nginx_directives(nginx_location("^~ /v1/streams/"))
    assert many["proxy_pass"] == "http://three_thirteen_push" and many["proxy_buffering"] == "off"
    assert "proxy_pass http://$game_view;" in nginx_location("~ ^/v1/games/[^/]+$")
    view = re.search(r'map "\$request_method \$arg_wait_version\$arg_wait" \$game_view '
                     r"\{(.*?)\}", nginx_conf(), re.DOTALL)
    assert view and nginx_directives(view[1]) == {"default": "three_thirteen"}
    assert '"~^GET ." three_thirteen_push;' in view[1]
    assert "server push:8001;" in nginx_conf()
    assert "proxy_pass http://$account_stream;" in nginx_location("= /v1/me/stream")
    for path in ("~ ^/v1/games/[^/]+/events$", "~ ^/v1/seeks/[^/]+$"):
        assert "proxy_pass http://$timeout_wait;" in nginx_location(path)
    waits = re.search(r'map "\$request_method \$arg_timeout" \$timeout_wait \{(.*?)\}',
                      nginx_conf(), re.DOTALL)
    assert waits and nginx_directives(waits[1]) == {"default": "three_thirteen"}


def test_compose_and_kubernetes_run_the_push_processes_from_the_apis_image_and_settings(
) -> None:
    (compose,) = documents(DEPLOY / "compose.yaml")
    api, push, nginx = (compose["services"][n] for n in ("api", "push", "nginx"))
    assert push["image"] == api["image"] and "ports" not in push
    assert push["command"][:3] == ["python", "-m", "service.push"]
    port = push["command"][push["command"].index("--port") + 1]
    assert push["expose"] == [port] and f"server push:{port};" in nginx_conf()
    for name in ("REDIS_URL", "PROXY_HOPS"):
        assert push["environment"][name] == api["environment"][name], name
    assert nginx["depends_on"]["push"]["condition"] == "service_healthy"
    deployments = {d["metadata"]["name"]: d for d in by_kind("Deployment")}
    (api_pod,) = deployments["three-thirteen"]["spec"]["template"]["spec"]["containers"]
    (push_pod,) = deployments["three-thirteen-push"]["spec"]["template"]["spec"]["containers"]
    assert push_pod["image"] == api_pod["image"] and push_pod["envFrom"] == api_pod["envFrom"]
    assert push_pod["command"][:3] == ["python", "-m", "service.push"]
    assert [p["containerPort"] for p in push_pod["ports"]] == [
        int(push_pod["command"][push_pod["command"].index("--port") + 1])]
    assert push_pod["readinessProbe"]["httpGet"]["path"] == "/healthz"
    labels = deployments["three-thirteen-push"]["spec"]["template"]["metadata"]["labels"]
    (service,) = [s for s in by_kind("Service") if s["spec"]["selector"] == labels]
    assert service["metadata"]["name"] == "three-thirteen-push"


#: What a web worker takes (bench-push, docs/capacity.md#waiting-clients): its RSS with
#: nothing parked, each parked long-poll (the larger kind of waiter), gunicorn's master.
WORKER_BASE_MB = 59
PARKED_KB = 42
MASTER_MB = 32


def test_the_api_pods_memory_limit_holds_every_socket_its_workers_may_park() -> None:
    """Every socket of a worker may be a parked long-poll (MAX_WAITS_PER_ADDRESS bounds one
    client's, not all clients'), so the pod's limit must hold WEB_CONCURRENCY workers with
    WORKER_CONNECTIONS parked each, with a tenth to spare; else the kernel kills a worker
    with everything it holds."""
    config = next(d for d in by_kind("ConfigMap") if d["metadata"]["name"] == "three-thirteen")
    api = next(d for d in by_kind("Deployment") if d["metadata"]["name"] == "three-thirteen")
    (container,) = api["spec"]["template"]["spec"]["containers"]
    limit = _bytes(container["resources"]["limits"]["memory"], K8S_UNITS, case_sensitive=True)
    workers = int(config["data"]["WEB_CONCURRENCY"])
    sockets = int(config["data"]["WORKER_CONNECTIONS"])
    need = (MASTER_MB * 1e6 + workers * (WORKER_BASE_MB * 1e6 + sockets * PARKED_KB * 1024))
    assert need <= 0.9 * limit, (need, limit)
