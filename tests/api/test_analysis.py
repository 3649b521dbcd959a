"""``POST``/``GET /v1/games/{id}/analysis`` on a real Redis: a finished game is queued
(202 with ``Location``), an analysis worker (its own stores, as its process has) runs it,
and the analysis is served done (and a second request is a 200 that costs nothing).
Before the end, for an unknown game, a game nobody asked about, a full queue and past the
per-address quota: each its own problem. An entry a dead worker took is claimed by
another."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import redis
from flask.testing import FlaskClient

from service.analysis.judge import QUICK
from service.app import create_app
from service.config import Config
from service.play.analyses import STEP_BUDGET
from service.storage import redis_stores
from service.workers.analysis import AnalysisWorker

from .conftest import new_table
from .test_records import play_out
from .test_streams import ndjson_lines, until_view

SHORT = {"preset": "classic", "hand_sizes": [3, 4]}


def finished_game(client: FlaskClient, redis_db: redis.Redis, seed: str) -> str:
    table = new_table(client, rules=SHORT, seed=seed)
    play_out(table, redis_db)
    return table.game_id


def test_a_finished_game_is_queued_analysed_by_a_worker_and_served_done(
        client: FlaskClient, redis_db: redis.Redis, config: Config) -> None:
    game_id = finished_game(client, redis_db, "analysed")
    path = f"/v1/games/{game_id}/analysis"
    assert client.get(path).json["code"] == "analysis_not_requested"
    r = client.post(path)
    assert r.status_code == 202 and r.headers["Location"] == path
    assert r.json == {"status": "queued", "progress": 0.0, "seats": [], "decisions": []}
    assert client.get(path).json["status"] == "queued"
    stores = redis_stores(config)
    try:
        worker = AnalysisWorker(stores, name="test-worker", idle_seconds=1.0)
        assert worker.step()
    finally:
        stores.close()
    done = client.get(path)
    assert done.status_code == 200 and done.headers["Cache-Control"].startswith("public")
    body = done.json
    assert body["status"] == "done" and body["progress"] == 1.0
    assert {"seat", "decisions", "accuracy", "expected_loss", "inaccuracies", "mistakes",
            "blunders", "luck", "service_moves", "unjudged"} <= set(body["seats"][0])
    assert body["steps"]["budget"] == STEP_BUDGET
    record = client.get(f"/v1/games/{game_id}/record").json
    moves = [v for v, a in enumerate(record["actions"])
             if a["type"] in ("draw", "discard", "go_out")]
    assert [d["version"] for d in body["decisions"]] == moves
    for d in body["decisions"]:
        assert d["judgement"] in (None, "inaccuracy", "mistake", "blunder")
        assert d["regret"] >= 0 and d["action"]["type"] == record["actions"][d["version"]]["type"]
        assert d["by"] == record["actions"][d["version"]]["by"] == "player"
    again = client.post(path)
    assert again.status_code == 200 and again.json == body


def test_before_the_end_for_an_unknown_game_and_for_an_aborted_one_the_request_is_refused(
        client: FlaskClient) -> None:
    table = new_table(client, rules=SHORT, seed="live")
    r = client.post(f"/v1/games/{table.game_id}/analysis")
    assert r.status_code == 409 and r.json["code"] == "game_not_finished"
    r = client.post("/v1/games/nosuchgame123/analysis")
    assert r.status_code == 404 and r.json["code"] == "unknown_game"
    aborted = new_table(client, rules=SHORT, seed="aborted")
    seat = aborted.view()["round"]["current_seat"]
    other = 1 - seat
    assert aborted.act(other, {"type": "abort"}).status_code == 200
    r = client.post(f"/v1/games/{aborted.game_id}/analysis")
    assert r.status_code == 409 and r.json["code"] == "game_aborted"


def test_a_full_queue_is_503_analysis_busy_with_retry_after(
        config: Config, redis_db: redis.Redis) -> None:
    client = create_app(replace(config, analysis_queue_max=1)).test_client()
    first, second = (finished_game(client, redis_db, s) for s in ("q1", "q2"))
    assert client.post(f"/v1/games/{first}/analysis").status_code == 202
    r = client.post(f"/v1/games/{second}/analysis")
    assert r.status_code == 503 and r.json["code"] == "analysis_busy"
    assert int(r.headers["Retry-After"]) >= 1
    assert client.post(f"/v1/games/{first}/analysis").status_code == 202  # known: no room needed


def test_past_the_quota_a_client_address_is_refused_429(
        config: Config, redis_db: redis.Redis) -> None:
    client = create_app(replace(config, analysis_limit="2/hour")).test_client()
    games = [finished_game(client, redis_db, f"l{n}") for n in range(3)]
    assert [client.post(f"/v1/games/{g}/analysis").status_code for g in games] == [
        202, 202, 429]
    assert client.get(f"/v1/games/{games[0]}/analysis").status_code == 200  # reads are free


def test_an_entry_a_dead_worker_took_is_claimed_by_another_and_run(
        client: FlaskClient, redis_db: redis.Redis, config: Config) -> None:
    game_id = finished_game(client, redis_db, "orphan")
    assert client.post(f"/v1/games/{game_id}/analysis").status_code == 202
    stores = redis_stores(config)
    try:
        dead = stores.analyses.take("dead-worker", 1.0, 60.0)
        assert dead is not None and dead.game_id == game_id
        assert stores.analyses.start(game_id, "dead-worker", time.time(), 60.0)
        assert stores.analyses.take("live-worker", 0.1, 60.0) is None  # not stale yet
        time.sleep(0.3)
        taken = stores.analyses.take("live-worker", 0.1, 0.2)
        assert taken is not None and taken.entry == dead.entry
        assert stores.analyses.start(game_id, "live-worker", time.time() + 120, 60.0)
    finally:
        stores.close()


def test_the_games_stream_shows_its_analysis_progress_on_a_real_redis_then_ends(
        client: FlaskClient, redis_db: redis.Redis, config: Config) -> None:
    game_id = finished_game(client, redis_db, "streamed")
    assert client.post(f"/v1/games/{game_id}/analysis").status_code == 202
    response = client.get(f"/v1/games/{game_id}/stream",
                          headers={"Accept": "application/x-ndjson"}, buffered=False)
    lines = ndjson_lines(response)
    _, final = until_view(lines)  # the game's events, then its final view
    assert final["status"] == "finished"
    assert next(lines) == {"type": "analysis", "status": "queued", "progress": 0.0}
    stores = redis_stores(config)
    worker = AnalysisWorker(stores, name="stream-worker", idle_seconds=1.0, settings=QUICK)
    ran = threading.Thread(target=worker.step)
    ran.start()  # a worker beside the stream: its changes are published on the game's channel
    try:
        rest = [line for line in lines if line is not None]
    finally:
        ran.join()
        stores.close()
    analysis = [line for line in rest if line["type"] == "analysis"]
    assert analysis[-1] == {"type": "analysis", "status": "done", "progress": 1.0}
    assert any(a["status"] == "running" for a in analysis)
    assert [line["type"] for line in rest if line["type"] != "analysis"] == ["end"]
    assert rest[-1]["reason"] == "finished"
