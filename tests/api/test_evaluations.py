"""Evaluations over HTTP: a bot account's bot, playing with its key from its account stream
as on the ladder (the project's client, :func:`service.client.account.serve`), finishes an
evaluation against a reference bot on a real gunicorn, Redis and move worker, with an Elo
interval; and the route's refusals (a human, no key, an unknown anchor, a second
evaluation, another account's) on the app with a move worker on a thread."""

from __future__ import annotations

import threading
from typing import Any

import requests
from flask.testing import FlaskClient

from service.bots import GreedyBot
from service.client import Account, Client
from service.client.account import serve
from tests.api.conftest import done
from tests.api.test_accounts import key_auth, register
from tests.conftest import PATIENCE, wait_until


def test_a_bot_playing_over_http_with_its_key_finishes_an_evaluation_with_an_interval(
        live_server: str) -> None:
    made = requests.post(f"{live_server}/v1/accounts", json={"handle": "evalbot", "bot": True},
                         timeout=10)
    assert made.status_code == 201, made.text
    key = made.json()["key"]
    auth = key_auth(key)
    stop = threading.Event()
    bot = threading.Thread(target=serve, daemon=True, name="evalbot",
                           args=(Account(Client(live_server), key), GreedyBot().choose),
                           kwargs={"stopping": stop.is_set})
    bot.start()
    try:
        started = requests.post(f"{live_server}/v1/evaluations", headers=auth, timeout=10,
                                json={"preset": "classic", "anchors": ["random"],
                                      "max_deals": 2, "seed": "over-http"})
        assert started.status_code == 202, started.text
        body = started.json()
        assert body["status"] in ("queued", "running")
        assert started.headers["Location"] == f"/v1/evaluations/{body['evaluation_id']}"
        url = f"{live_server}{started.headers['Location']}"

        def status() -> Any:
            return requests.get(url, headers=auth, timeout=10).json()["status"]

        # two deals of two classic games each, every turn of the bot's over HTTP
        wait_until(lambda: status() == "done", 4 * PATIENCE, "the evaluation's end")
    finally:
        stop.set()
        bot.join(PATIENCE)
    final = requests.get(url, headers=auth, timeout=10).json()
    [result] = final["results"]
    assert result["anchor"] == "random" and result["deals"] == 2
    assert result["stop"] in ("stronger", "deal_limit")
    assert result["elo_low"] <= result["elo"] <= result["elo_high"]
    assert result["elo_high"] - result["elo_low"] > 0  # an interval, finite
    assert final["finished_at"] is not None and len(result["games"]) == 4
    # the games are kept with their records: each deal dealt twice from the seed, once
    # from each seat, the bot's seat its own to the end (never away, never resigned)
    for n, game_id in enumerate(result["games"]):
        record = requests.get(f"{live_server}/v1/games/{game_id}/record", timeout=10)
        assert record.status_code == 200, record.text
        assert record.json()["seed"] == f"over-http-{n // 2}" and not record.json()["rated"]
        players = record.json()["players"]
        assert [p["account"] for p in players] == [["evalbot", None], [None, "evalbot"]][n % 2]
        assert [p["bot"] for p in players] == [[None, "random"], ["random", None]][n % 2]
        assert players[n % 2]["kind"] == "human" and players[n % 2]["account_bot"]
    notes = [n for n in Account(Client(live_server), key).notes(0)]  # until the stream ends
    progress = [n for n in notes if n["type"] == "evaluation_progress"]
    assert progress and progress[-1]["status"] == "done"


def test_humans_strangers_bad_anchors_and_a_second_evaluation_are_refused(
        client: FlaskClient) -> None:
    ann = register(client, "ann")
    human = done(client.post("/v1/evaluations", headers=key_auth(ann),
                             json={"preset": "classic", "anchors": ["greedy"]}))
    assert human.status_code == 403 and human.json["code"] == "evaluation_for_bots"
    assert done(client.post("/v1/evaluations", json={"preset": "classic",
                                                     "anchors": ["greedy"]})).status_code == 401
    robo = register(client, "robo", bot=True)
    for body in ({"preset": "classic", "anchors": ["deep_blue"]},
                 {"preset": "poker", "anchors": ["greedy"]},
                 {"preset": "classic", "anchors": []},
                 {"preset": "classic", "anchors": ["greedy"], "max_deals": 1}):
        bad = done(client.post("/v1/evaluations", headers=key_auth(robo), json=body))
        assert bad.status_code == 422, body
    twice = done(client.post("/v1/evaluations", headers=key_auth(robo),
                             json={"preset": "classic", "anchors": ["greedy", "greedy"]}))
    assert twice.status_code == 422 and twice.json["code"] == "invalid_evaluation"
    first = done(client.post("/v1/evaluations", headers=key_auth(robo),
                             json={"preset": "classic", "anchors": ["greedy", "strong"]}))
    assert first.status_code == 202, first.json
    assert set(first.json) >= {"evaluation_id", "status", "results"}
    assert [r["anchor"] for r in first.json["results"]] == ["greedy", "strong"]
    second = done(client.post("/v1/evaluations", headers=key_auth(robo),
                              json={"preset": "classic", "anchors": ["random"]}))
    assert second.status_code == 429 and second.json["code"] == "too_many_evaluations"
    assert second.json["evaluation_id"] == first.json["evaluation_id"]
    mine = client.get(first.headers["Location"], headers=key_auth(robo))
    assert mine.status_code == 200 and mine.json["status"] in ("queued", "running")
    droid = register(client, "droid", bot=True)
    stranger = client.get(first.headers["Location"], headers=key_auth(droid))
    assert stranger.status_code == 404 and stranger.json["code"] == "unknown_evaluation"
    assert client.get(first.headers["Location"]).status_code == 401
