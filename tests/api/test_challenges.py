"""Challenges over HTTP on a real Redis, with a move worker: a whole game of three accounts
played with their keys only while their streams carry every note once across a reconnect,
challenges to each reference bot, and every answer reaching the other side's stream."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from tests.api.conftest import done
from tests.api.test_accounts import NDJSON, key_auth, register
from tests.api.test_streams import ndjson_lines
from tests.conftest import PATIENCE

SHORT = {"preset": "classic", "hand_sizes": [3, 4]}


@pytest.fixture
def http(config: Config, redis_db: Any, mover: Any) -> FlaskClient:
    """A client of an app whose streams end after 1.5 s (so a test reads to the end)."""
    app: Flask = create_app(replace(config, stream_max_seconds=1.5,
                                    stream_heartbeat_seconds=0.5))
    app.config["TESTING"] = True
    return app.test_client()


def read_stream(client: FlaskClient, key: str, after: int | None = None) -> list[dict]:
    """The notes one connection of the account stream carries until its end."""
    headers = {**NDJSON, **key_auth(key)}
    if after is not None:
        headers["Last-Event-ID"] = str(after)
    response = client.get("/v1/me/stream", headers=headers)
    assert response.status_code == 200, response.json
    notes = []
    for line in ndjson_lines(response):
        if line is None:
            continue
        if line["type"] == "end":
            break
        notes.append(line["event"])
    response.close()
    return notes


def challenge(client: FlaskClient, key: str, **body: Any) -> dict[str, Any]:
    body.setdefault("rules", SHORT)
    r = done(client.post("/v1/challenges", json=body, headers=key_auth(key)))
    assert r.status_code == 201, r.json
    assert r.headers["Location"] == f"/v1/challenges/{r.json['challenge_id']}"
    return r.json  # type: ignore[no-any-return]


def answer(client: FlaskClient, key: str, challenge_id: str, verb: str) -> dict[str, Any]:
    r = done(client.post(f"/v1/challenges/{challenge_id}/{verb}", headers=key_auth(key)))
    assert r.status_code == 200, r.json
    return r.json  # type: ignore[no-any-return]


def wait_finished(client: FlaskClient, game_id: str, seconds: float = PATIENCE) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = client.get(f"/v1/games/{game_id}?wait_version=0&timeout=2").json
        if view["status"] == "finished":
            return view  # type: ignore[no-any-return]
        version = view["version"]
        client.get(f"/v1/games/{game_id}?wait_version={version}&timeout=2")
    raise AssertionError(f"game {game_id} did not finish in {seconds} s")


def test_three_accounts_play_a_challenge_with_their_keys_and_hear_every_note_once(
        http: FlaskClient) -> None:
    keys = {"ann": register(http, "ann"), "bot1": register(http, "bot1", bot=True),
            "bot2": register(http, "bot2", bot=True)}
    made = challenge(http, keys["ann"], to=["bot1", "bot2"], turn_seconds=600)
    assert made["status"] == "pending"
    answer(http, keys["bot1"], made["challenge_id"], "accept")
    started = answer(http, keys["bot2"], made["challenge_id"], "accept")
    assert started["status"] == "accepted"
    game_id = started["game_id"]
    seats = {"ann": 0, "bot1": 1, "bot2": 2}
    turns = {h: 0 for h in keys}
    # the whole game with account keys only: no seat token is ever read
    while True:
        view = http.get(f"/v1/games/{game_id}").json
        if view["status"] == "finished":
            break
        seat = view["round"]["current_seat"]
        handle = next(h for h, s in seats.items() if s == seat)
        mine = http.get(f"/v1/games/{game_id}", headers=key_auth(keys[handle])).json
        if view["round"]["phase"] == "draw":
            turns[handle] += 1
        r = done(http.post(f"/v1/games/{game_id}/actions", json=mine["legal_actions"][0],
                           headers=key_auth(keys[handle])))
        assert r.status_code == 200, r.json
    assert view["players"][1]["account_bot"] and not view["players"][0]["account_bot"]
    for handle, key in keys.items():
        notes = read_stream(http, key)
        kinds = [n["type"] for n in notes]
        first = ["game_started"] if handle == "ann" else ["challenge", "game_started"]
        assert kinds == first + ["your_turn"] * turns[handle] + ["game_finished"], kinds
        assert [n["seq"] for n in notes] == list(range(1, len(notes) + 1))
        assert all(n.get("game_id") == game_id for n in notes if n["type"] != "challenge")
        # a reconnect with Last-Event-ID: the rest, once
        cut = len(notes) // 2
        assert read_stream(http, key, after=cut) == notes[cut:]
        me = http.get("/v1/me", headers=key_auth(key)).json
        assert me["last_note"] == len(notes)


@pytest.mark.parametrize("bot", ["random", "greedy", "strong"])
def test_a_challenge_to_a_reference_bot_is_accepted_at_once_and_its_game_finishes(
        http: FlaskClient, bot: str) -> None:
    key = register(http, "ann")
    made = challenge(http, key, to=[bot], rules={"preset": "classic", "hand_sizes": [3]})
    assert made["status"] == "accepted"  # in the answer to the challenge itself: at once
    game_id = made["game_id"]
    while (view := http.get(f"/v1/games/{game_id}?wait=turn&timeout=5",
                            headers=key_auth(key)).json)["status"] != "finished":
        r = done(http.post(f"/v1/games/{game_id}/actions", json=view["legal_actions"][0],
                           headers=key_auth(key)))
        assert r.status_code == 200, r.json
    assert view["players"][1]["kind"] == "bot" and view["players"][1]["bot"] == bot


def test_a_decline_reaches_the_challenger_and_a_cancel_the_challenged(
        http: FlaskClient) -> None:
    ann, bob = register(http, "ann"), register(http, "bob")
    declined = challenge(http, ann, to=["bob"])
    out = answer(http, bob, declined["challenge_id"], "decline")
    assert out["status"] == "declined" and out["declined_by"] == "bob"
    canceled = challenge(http, ann, to=["bob"])
    answer(http, ann, canceled["challenge_id"], "cancel")
    assert [(n["type"], n["challenge_id"]) for n in read_stream(http, ann)] == [
        ("challenge_declined", declined["challenge_id"])]
    heard = read_stream(http, bob)
    assert [n["type"] for n in heard] == ["challenge", "challenge", "challenge_canceled"]
    assert heard[0]["challenge"]["challenger"] == "ann"
    assert heard[2]["reason"] == "canceled"
    again = done(http.post(f"/v1/challenges/{canceled['challenge_id']}/accept",
                           headers=key_auth(bob)))
    assert again.status_code == 409 and again.json["code"] == "challenge_closed"
    assert again.json["challenge_status"] == "canceled"


def test_an_unanswered_challenge_expires_and_both_sides_hear_it(http: FlaskClient) -> None:
    ann, bob = register(http, "ann"), register(http, "bob")
    made = challenge(http, ann, to=["bob"], expires_in=5)
    assert http.get("/v1/challenges", headers=key_auth(bob)).json["challenges"][0][
        "challenge_id"] == made["challenge_id"]
    deadline = time.monotonic() + PATIENCE
    while (status := http.get(f"/v1/challenges/{made['challenge_id']}",
                              headers=key_auth(bob)).json["status"]) == "pending":
        assert time.monotonic() < deadline, "the challenge never expired"
        time.sleep(0.3)
    assert status == "expired"
    for key in (ann, bob):
        last = read_stream(http, key)[-1]
        assert last["type"] == "challenge_canceled" and last["reason"] == "expired"
    assert http.get("/v1/challenges", headers=key_auth(bob)).json["challenges"] == []


def test_challenges_are_refused_as_documented(http: FlaskClient) -> None:
    ann, bob, eve = register(http, "ann"), register(http, "bob"), register(http, "eve")
    cases = [({"to": ["ann"]}, 422, "invalid_challenge"),
             ({"to": ["nobody"]}, 404, "unknown_account"),
             ({"to": ["bob", "BOB"]}, 422, "invalid_challenge"),
             ({"to": ["bob"], "rules": {"preset": "classic", "max_players": 1}}, 422,
              "invalid_rules"),
             ({"to": []}, 422, "invalid_body"),
             ({"to": ["bob"], "turn_seconds": 14 * 86_400 + 1}, 422, "invalid_body")]
    for body, status, code in cases:
        r = http.post("/v1/challenges", json=body, headers=key_auth(ann))
        assert (r.status_code, r.json["code"]) == (status, code), (body, r.json)
    assert http.post("/v1/challenges", json={"to": ["bob"]}).status_code == 401
    http.patch("/v1/me", json={"challenges_from": "bots"}, headers=key_auth(bob))
    r = http.post("/v1/challenges", json={"to": ["bob"]}, headers=key_auth(ann))
    assert r.status_code == 403 and r.json["code"] == "challenge_refused"
    made = challenge(http, ann, to=["eve"])
    outsider = http.get(f"/v1/challenges/{made['challenge_id']}", headers=key_auth(bob))
    assert outsider.status_code == 404 and outsider.json["code"] == "unknown_challenge"
    assert http.get(f"/v1/challenges/{made['challenge_id']}",
                    headers=key_auth(eve)).status_code == 200


def test_a_challenge_with_a_fourteen_day_clock_starts_a_correspondence_game(
        http: FlaskClient) -> None:
    ann = register(http, "ann")
    made = challenge(http, ann, to=["random"], turn_seconds=14 * 86_400)
    view = http.get(f"/v1/games/{made['game_id']}").json
    assert view["clock"]["turn_seconds"] == 14 * 86_400
