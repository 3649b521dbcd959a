"""An account's webhook over HTTP on a real Redis: ``PATCH /v1/me`` registers a URL and
answers its signing secret once (``no-store``), ``GET /v1/me`` shows the URL and never the
secret, ``POST /v1/me/webhook-secret`` rotates it; with the default settings a URL whose
host is on a loopback, private or link-local address is refused (422
``invalid_webhook_url``), and registering one asks the operator's
``WEBHOOK_ALLOW_PRIVATE``; the notes an account is told are queued in its own Redis keys
for the delivery workers, never sent by the request."""

from __future__ import annotations

import base64
import logging
from dataclasses import replace
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from tests.api.conftest import done
from tests.api.test_accounts import key_auth, register

HOOK = "http://127.0.0.1:9/hook"  # nobody listens: nothing is sent by a request anyway


@pytest.fixture
def allowing(config: Config, redis_db: Any, mover: Any) -> FlaskClient:
    """A client of an app whose operator allows webhooks to non-public addresses."""
    app = create_app(replace(config, webhook_allow_private=True))
    app.config["TESTING"] = True
    return app.test_client()


def patch(client: FlaskClient, key: str, **body: Any) -> Any:
    return done(client.patch("/v1/me", json=body, headers=key_auth(key)))


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8080/hook", "http://localhost/hook", "http://10.0.0.7/",
    "http://192.168.1.1/", "http://169.254.169.254/latest/meta-data",
    "http://[::1]:8080/", "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/",
])
def test_a_url_on_a_private_address_is_refused_by_default(
        client: FlaskClient, url: str) -> None:
    assert Config().webhook_allow_private is False
    key = register(client, "ann")
    r = patch(client, key, webhook_url=url)
    assert r.status_code == 422 and r.json["code"] == "invalid_webhook_url", r.json
    assert "public addresses only" in r.json["detail"]
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert client.get("/v1/me", headers=key_auth(key)).json["webhook_url"] is None


@pytest.mark.parametrize("url", ["ftp://hooks.example.net/", "http://user:pw@127.0.0.1/",
                                 "javascript:alert(1)", "http://127.0.0.1:99999/"])
def test_a_url_that_is_not_http_or_https_or_carries_a_password_is_refused(
        allowing: FlaskClient, url: str) -> None:
    key = register(allowing, "ann")
    r = patch(allowing, key, webhook_url=url)
    assert r.status_code == 422 and r.json["code"] == "invalid_webhook_url", r.json


def test_a_url_too_long_or_empty_is_an_invalid_body(allowing: FlaskClient) -> None:
    key = register(allowing, "ann")
    for url in ("", "http://127.0.0.1/" + "x" * 2048):
        r = patch(allowing, key, webhook_url=url)
        assert r.status_code == 422 and r.json["code"] == "invalid_body", r.json


def test_a_registered_url_is_shown_and_its_secret_only_once(allowing: FlaskClient) -> None:
    key = register(allowing, "ann")
    made = patch(allowing, key, webhook_url=HOOK, challenges_from="bots")
    assert made.status_code == 200 and made.headers["Cache-Control"] == "no-store"
    secret = made.json["webhook_secret"]
    assert made.json["webhook_url"] == HOOK and made.json["challenges_from"] == "bots"
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 32
    me = allowing.get("/v1/me", headers=key_auth(key))
    assert me.json["webhook_url"] == HOOK and "webhook_secret" not in me.json
    assert secret not in me.get_data(as_text=True)
    same = patch(allowing, key, webhook_url=HOOK)  # the same URL: the same secret, unshown
    assert "webhook_secret" not in same.json
    assert same.headers["Cache-Control"] == "private, no-cache"
    other = patch(allowing, key, webhook_url=HOOK + "/v2")
    assert other.json["webhook_secret"] not in (secret, None)
    removed = patch(allowing, key, webhook_url=None)
    assert removed.status_code == 200 and removed.json["webhook_url"] is None
    assert "webhook_secret" not in removed.json


def test_a_rotated_secret_is_shown_once_and_needs_a_url(allowing: FlaskClient) -> None:
    key = register(allowing, "ann")
    none = done(allowing.post("/v1/me/webhook-secret", headers=key_auth(key)))
    assert none.status_code == 409 and none.json["code"] == "no_webhook"
    secret = patch(allowing, key, webhook_url=HOOK).json["webhook_secret"]
    rotated = done(allowing.post("/v1/me/webhook-secret", headers=key_auth(key)))
    assert rotated.status_code == 201 and rotated.headers["Cache-Control"] == "no-store"
    assert rotated.json["webhook_secret"].startswith("whsec_")
    assert rotated.json["webhook_secret"] != secret
    anonymous = done(allowing.post("/v1/me/webhook-secret"))
    assert anonymous.status_code == 401 and anonymous.json["code"] == "invalid_token"


def test_a_challenge_is_queued_in_the_accounts_keys_for_the_workers_not_sent(
        allowing: FlaskClient, redis_db: redis.Redis) -> None:
    ann, bob = register(allowing, "ann"), register(allowing, "Bob")
    patch(allowing, bob, webhook_url=HOOK)
    r = done(allowing.post("/v1/challenges", headers=key_auth(ann), json={
        "to": ["bob"], "rules": {"preset": "classic", "hand_sizes": [3]}}))
    assert r.status_code == 201, r.json
    assert redis_db.hlen("ttt:{acct:bob}:hooks") == 1  # waiting for a delivery worker
    assert redis_db.zcard("ttt:{hooks}:due") == 1
    assert redis_db.zrange("ttt:{hooks}:due", 0, -1) == [b"bob"]
    assert redis_db.exists("ttt:{acct:ann}:hooks") == 0  # ann has no webhook


def test_a_webhook_secret_is_in_no_log_line_and_no_other_answer(
        allowing: FlaskClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    key = register(allowing, "ann")
    made = patch(allowing, key, webhook_url=HOOK).json["webhook_secret"]
    rotated = done(allowing.post("/v1/me/webhook-secret", headers=key_auth(key)))
    secret = rotated.json["webhook_secret"]
    others = [allowing.get("/v1/me", headers=key_auth(key)),
              allowing.get("/v1/accounts/ann"),
              done(allowing.patch("/v1/me", json={"challenges_from": "bots"},
                                  headers=key_auth(key)))]
    for shown in (made, secret):
        assert shown[6:] not in caplog.text
        assert not [r for r in others if shown[6:] in r.get_data(as_text=True)
                    + str(dict(r.headers))]
