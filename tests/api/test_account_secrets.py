"""An account key is a secret: it appears in the answer that makes it (creation, rotation)
and nowhere else: no other response, header, log line, metric or stored value, and no
channel shows one account's seat to another account's key."""

from __future__ import annotations

import hashlib
import logging
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from tests.api.conftest import done
from tests.api.test_accounts import key_auth


def test_a_key_is_shown_only_where_it_is_made_and_stored_nowhere_in_clear(
        client: FlaskClient, redis_db: redis.Redis, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    seen: list[str] = []

    def call(method: str, path: str, key: str | None = None, **kw: Any) -> Any:
        r = done(client.open(path, method=method, headers=key_auth(key) if key else {}, **kw))
        seen.append(r.get_data(as_text=True) + str(dict(r.headers)))
        return r

    made = client.post("/v1/accounts", json={"handle": "ann", "bot": True})
    ann = made.json["key"]
    bob = client.post("/v1/accounts", json={"handle": "bob"}).json["key"]
    rotated = client.post("/v1/me/key", headers=key_auth(ann))
    old, ann = ann, rotated.json["key"]
    call("GET", "/v1/me", ann)
    call("PATCH", "/v1/me", ann, json={"challenges_from": "anyone"})
    call("GET", "/v1/accounts/ann")
    challenge = call("POST", "/v1/challenges", ann, json={
        "to": ["bob"], "rules": {"preset": "classic", "hand_sizes": [3]}}).json
    call("GET", "/v1/challenges", bob)
    game_id = call("POST", f"/v1/challenges/{challenge['challenge_id']}/accept",
                   bob).json["game_id"]
    call("GET", f"/v1/games/{game_id}", ann)
    call("GET", f"/v1/games/{game_id}/events", bob)
    call("GET", "/v1/me/games", ann)
    call("POST", "/v1/me/stream-tickets", ann)
    call("GET", "/v1/me", old)  # a refused key is not echoed either
    call("GET", f"/v1/games/{game_id}", "ann.forged-key")
    metrics = client.get("/metrics").get_data(as_text=True)
    for key in (old, ann, bob):
        secret = key.split(".", 1)[1]
        for text in [*seen, caplog.text, metrics]:
            assert secret not in text
        digest = hashlib.sha256(key.encode()).hexdigest()
        assert all(digest not in text for text in seen)
    # Redis holds hashes only
    for name in redis_db.scan_iter("*"):
        kind = redis_db.type(name).decode()
        if kind == "string":
            values = [redis_db.get(name) or b""]
        elif kind == "hash":
            values = list(redis_db.hgetall(name).values())
        elif kind == "stream":
            values = [v for _, f in redis_db.xrange(name) for v in f.values()]
        else:
            continue
        for value in values:
            for key in (old, ann, bob):
                assert key.split(".", 1)[1].encode() not in value, name


def test_an_account_key_never_reads_another_accounts_hand_through_any_channel(
        client: FlaskClient) -> None:
    ann = client.post("/v1/accounts", json={"handle": "ann"}).json["key"]
    bob = client.post("/v1/accounts", json={"handle": "bob"}).json["key"]
    eve = client.post("/v1/accounts", json={"handle": "eve"}).json["key"]
    made = done(client.post("/v1/challenges", headers=key_auth(ann), json={
        "to": ["bob"], "rules": {"preset": "classic", "hand_sizes": [3]}})).json
    game_id = done(client.post(f"/v1/challenges/{made['challenge_id']}/accept",
                               headers=key_auth(bob))).json["game_id"]
    hands = {k: client.get(f"/v1/games/{game_id}", headers=key_auth(k)).json["you"]["hand"]
             for k in (ann, bob)}
    # eve holds no seat: every channel refuses her key as a seat's
    for method, path in (("GET", f"/v1/games/{game_id}"),
                         ("GET", f"/v1/games/{game_id}/events"),
                         ("GET", f"/v1/games/{game_id}/stream"),
                         ("POST", f"/v1/games/{game_id}/stream-tickets"),
                         ("POST", f"/v1/games/{game_id}/rematch")):
        r = client.open(path, method=method, headers=key_auth(eve))
        assert r.status_code == 401, (path, r.status_code)
        r.close()
    # each key sees its own hand and private events only
    for mine, theirs in ((ann, bob), (bob, ann)):
        events = client.get(f"/v1/games/{game_id}/events",
                            headers=key_auth(mine)).get_data(as_text=True)
        other = hands[theirs]
        assert not all(card in events for card in other)
    me = client.get("/v1/me/games", headers=key_auth(eve)).json
    assert me["games"] == []
