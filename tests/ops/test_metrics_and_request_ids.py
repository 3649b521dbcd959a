"""``/metrics`` through a live 2-worker gunicorn, request ids and the JSON request log.

A scripted game is played over HTTP (a new connection per request, so both workers
take part); the deltas on ``/metrics`` must be exactly what the game produced, and
the totals must be the sum of what each worker recorded in its own files.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

from .conftest import OpsServer

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def samples_of(text: str) -> Samples:
    out: Samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def scrape(base: str) -> Samples:
    r = requests.get(f"{base}/metrics", timeout=5)
    assert r.status_code == 200
    assert r.headers["Content-Type"].startswith("text/plain")
    return samples_of(r.text)


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def per_worker_requests(metrics_dir: Path, scratch: Path) -> dict[str, float]:
    """Requests counted by each worker alone, read from that worker's own files."""
    pids = {p.stem.rsplit("_", 1)[1] for p in metrics_dir.glob("counter_*.db")}
    out = {}
    for pid in pids:
        alone = scratch / pid
        alone.mkdir(parents=True, exist_ok=True)
        for f in metrics_dir.glob(f"*_{pid}.db"):
            shutil.copy(f, alone / f.name)
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=str(alone))
        out[pid] = sum(
            s.value for fam in registry.collect() for s in fam.samples
            if s.name == "ttt_http_requests_total"
        )
    return out


def pick(actions: list[dict]) -> dict:
    for a in actions:
        if a["type"] == "go_out":
            return a
    for a in actions:
        if a == {"type": "draw", "source": "stock"}:
            return a
    return actions[0]


def test_a_scripted_game_shows_in_metrics_summed_over_both_workers(
    ops_server: OpsServer, tmp_path: Path
) -> None:
    base = ops_server.base
    # both workers serve: bursts of parallel requests, each on a new connection
    with ThreadPoolExecutor(16) as pool:
        for _ in range(30):
            list(pool.map(lambda _: requests.get(f"{base}/healthz", timeout=5), range(32)))
            if len([n for n in per_worker_requests(ops_server.metrics_dir, tmp_path).values()
                    if n > 0]) >= 2:
                break
    before = scrape(base)

    r = requests.post(f"{base}/v1/games", json={
        "players": [{"name": "ann"}, {"name": "bob"}],
        "rules": {"preset": "classic", "hand_sizes": [3]}, "seed": "7"}, timeout=5)
    assert r.status_code == 201
    game = r.json()["game_id"]
    tokens = [s["token"] for s in r.json()["seats"]]
    views = 0
    applied: Counter[str] = Counter()
    for _ in range(400):
        state = r.json()["state"] if not views else r.json()
        if state["status"] != "in_progress":
            break
        seat = state["round"]["current_seat"]
        r = requests.get(f"{base}/v1/games/{game}",
                         headers={"Authorization": f"Bearer {tokens[seat]}"}, timeout=5)
        assert r.status_code == 200
        views += 1
        action = pick(r.json()["legal_actions"])
        r = requests.post(f"{base}/v1/games/{game}/actions", json=action,
                          headers={"Authorization": f"Bearer {tokens[seat]}"}, timeout=5)
        assert r.status_code == 200, r.text
        applied[action["type"]] += 1
    assert r.json()["status"] != "in_progress", "the game did not finish"
    for _ in range(2):
        assert requests.post(f"{base}/v1/solve", json={"hand": ["4S", "5H", "6S"],
                             "wild_rank": "5"}, timeout=5).status_code == 200
    assert requests.get(f"{base}/v1/games/nope", timeout=5).status_code == 404

    after = scrape(base)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("ttt_games_created_total") == 1
    assert delta("ttt_games_finished_total") == 1
    for kind in ("draw", "discard", "go_out"):
        assert delta("ttt_actions_applied_total", type=kind) == applied[kind], kind
    assert applied["go_out"] == 1
    actions_rule = "/v1/games/<game_id>/actions"
    assert delta("ttt_http_requests_total", method="POST", endpoint=actions_rule,
                 status="200") == sum(applied.values())
    assert delta("ttt_http_request_duration_seconds_count", method="POST",
                 endpoint=actions_rule, status="200") == sum(applied.values())
    assert delta("ttt_http_requests_total", method="GET", endpoint="/v1/games/<game_id>",
                 status="200") == views
    assert delta("ttt_http_requests_total", method="GET", endpoint="/v1/games/<game_id>",
                 status="404") == 1
    assert delta("ttt_http_requests_total", method="POST", endpoint="/v1/games",
                 status="201") == 1
    assert delta("ttt_solver_seconds_count", call="solve") == 2
    assert delta("ttt_solver_seconds_count", call="legal_actions") >= 1

    # the totals are the sum of what each worker recorded by itself
    workers = per_worker_requests(ops_server.metrics_dir, tmp_path / "again")
    busy = [n for n in workers.values() if n > 0]
    assert len(busy) >= 2, workers
    total = sum(v for (name, _), v in scrape(base).items() if name == "ttt_http_requests_total")
    assert total == sum(busy)  # a scrape is counted after it renders: not in its own output
    assert all(n < total for n in busy)


def test_request_ids_are_echoed_or_generated_and_logged(ops_server: OpsServer) -> None:
    base = ops_server.base
    r = requests.get(f"{base}/healthz", headers={"X-Request-ID": "bot-7:req 42"}, timeout=5)
    assert r.headers["X-Request-ID"] == "bot-7:req 42"
    assert "X-Request-ID" in r.headers["Access-Control-Expose-Headers"]
    generated = {requests.get(f"{base}/v1/games/nope", timeout=5).headers["X-Request-ID"]
                 for _ in range(3)}
    assert len(generated) == 3 and all(len(g) == 32 for g in generated)  # also on errors
    for bad in ("x" * 129, "tab\there", "é"):
        r = requests.get(f"{base}/healthz", headers={"X-Request-ID": bad.encode()}, timeout=5)
        assert r.headers["X-Request-ID"] not in (bad, ""), bad
    assert requests.get(f"{base}/healthz", headers={"X-Request-ID": "y" * 128},
                        timeout=5).headers["X-Request-ID"] == "y" * 128

    lines = [json.loads(line) for line in ops_server.stdout.read_text().splitlines()
             if line.startswith("{")]
    mine = [x for x in lines if x.get("request_id") == "bot-7:req 42"]
    assert len(mine) == 1
    assert mine[0]["method"] == "GET" and mine[0]["rule"] == "/healthz"
    assert mine[0]["status"] == 200 and mine[0]["duration_ms"] >= 0
    errors = [x for x in lines if x.get("request_id") in generated]
    assert {x["rule"] for x in errors} == {"/v1/games/<game_id>"}
    assert {x["status"] for x in errors} == {404}
