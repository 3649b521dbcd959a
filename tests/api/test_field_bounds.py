"""Bounds on every field, over HTTP on a real Redis: what the audit of issue 31 sent and
got stored or counted wrongly is refused with a 422 problem, and a stored document that
cannot be shown never takes a list down for everyone."""

from __future__ import annotations

import time

import orjson
import redis
from flask.testing import FlaskClient

from tests.api.conftest import done
from tests.api.test_accounts import key_auth, register

SHORT = {"preset": "classic", "hand_sizes": [3]}


def _tournament(client: FlaskClient, key: str, **body: object) -> object:
    return done(client.post("/v1/tournaments", headers=key_auth(key), json={
        "name": "Friday", "system": "round_robin", "seats": 2, "rules": SHORT, **body}))


def test_a_tournament_starts_within_a_year_from_now(client: FlaskClient) -> None:
    key = register(client, "ann")
    for starts_at in (1e20, -1, 0, time.time() - 3600, time.time() + 400 * 86_400):
        r = _tournament(client, key, starts_at=starts_at)
        assert r.status_code == 422 and r.json["code"] == "invalid_tournament", (starts_at, r.json)
    assert _tournament(client, key, starts_at=time.time() + 86_400).status_code == 201
    assert client.get("/v1/tournaments").status_code == 200


def test_one_stored_tournament_that_cannot_be_shown_leaves_the_list_answering(
        client: FlaskClient, redis_db: redis.Redis) -> None:
    key = register(client, "ann")
    good = _tournament(client, key).json["tournament_id"]
    bad = _tournament(client, key).json["tournament_id"]
    [stored] = [k for k in redis_db.keys("ttt:*") if bad.encode() in k
                and redis_db.type(k) == b"string"]
    doc = orjson.loads(redis_db.get(stored))
    doc["starts_at"] = 1e20  # as the service stored it before this bound existed
    redis_db.set(stored, orjson.dumps(doc))
    for path in ("/v1/tournaments", "/v1/tournaments?status=open"):
        r = client.get(path)
        assert r.status_code == 200, r.json
        assert [t["tournament_id"] for t in r.json["tournaments"]] == [good]


def test_names_of_tournaments_follow_the_one_rule_for_names(client: FlaskClient) -> None:
    key = register(client, "ann")
    for name in ("\u202e\u200b", "evil\u202eelif", " padded", "x" * 61):
        r = _tournament(client, key, name=name)
        assert r.status_code == 422 and r.json["code"] == "invalid_body", (name, r.json)
    assert _tournament(client, key, name="Vendredi à 4 ♠").status_code == 201


def test_numbers_are_json_numbers_not_strings(client: FlaskClient) -> None:
    ann, _ = register(client, "ann"), register(client, "bob")
    for body in ({"to": ["bob"], "turn_seconds": "60"}, {"to": ["bob"], "expires_in": "600"},
                 {"to": ["bob"], "turn_seconds": True}):
        r = done(client.post("/v1/challenges", headers=key_auth(ann), json=body))
        assert r.status_code == 422 and r.json["code"] == "invalid_body", (body, r.json)
    r = _tournament(client, ann, seats="2")
    assert r.status_code == 422, r.json
    r = done(client.post("/v1/seeks", json={"players": "2", "name": "x"}))
    assert r.status_code == 422, r.json


def test_a_webhook_url_is_parsed_strictly_and_names_a_web_port(client: FlaskClient) -> None:
    key = register(client, "ann")
    for url in ("http://8.8.8.8/%%%", "http://1.1.1.1:6379/", "https://1.1.1.1:25/",
                "http://8.8.8.8/a b", "http://8.8.8.8/?q=%zz"):
        r = done(client.patch("/v1/me", headers=key_auth(key), json={"webhook_url": url}))
        assert r.status_code == 422 and r.json["code"] == "invalid_webhook_url", (url, r.json)
