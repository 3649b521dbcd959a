"""Rate limits (flask-limiter, counted in the test's real Redis): over a token's limit ⇒
429 problem+json with Retry-After; another token of the same game is unaffected; the
per-address limit catches requests without a token; health probes are never limited."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from tests.conftest import redis_client, redis_url_for_tests


def _client(redis_server: str, **limits: str) -> Iterator[FlaskClient]:
    url = redis_url_for_tests(redis_server, 6)
    redis_client(url).flushdb()
    app = create_app(Config(redis_url=url, **limits))
    yield app.test_client()
    redis_client(url).flushdb()


@pytest.fixture
def limited(redis_server: str) -> Iterator[FlaskClient]:
    yield from _client(redis_server, rate_limit="5/minute", rate_limit_per_address="1000/minute")


def _game(client: FlaskClient) -> tuple[str, list[str]]:
    r = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}], "seed": "1"})
    assert r.status_code == 201
    return r.json["game_id"], [s["token"] for s in r.json["seats"]]


def _assert_limited(r) -> None:  # type: ignore[no-untyped-def]
    assert r.status_code == 429, r.data
    assert r.mimetype == "application/problem+json"
    assert r.json["code"] == "rate_limited" and r.json["status"] == 429
    assert 1 <= int(r.headers["Retry-After"]) <= 61


def test_over_the_token_limit_is_429_and_other_tokens_are_unaffected(limited) -> None:
    game, (ann, bob) = _game(limited)
    url = f"/v1/games/{game}"
    for _ in range(5):
        assert limited.get(url, headers={"Authorization": f"Bearer {ann}"}).status_code == 200
    _assert_limited(limited.get(url, headers={"Authorization": f"Bearer {ann}"}))
    _assert_limited(limited.post(f"{url}/actions", json={"type": "draw", "source": "stock"},
                                 headers={"Authorization": f"Bearer {ann}"}))
    for _ in range(5):  # bob, same game, same address: his own budget
        assert limited.get(url, headers={"Authorization": f"Bearer {bob}"}).status_code == 200
    assert limited.get(url).status_code == 200  # a spectator has no token limit
    assert limited.get("/healthz").status_code == 200
    assert limited.get("/readyz").status_code == 200


def test_over_the_address_limit_is_429(redis_server: str) -> None:
    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="3/minute"):
        body = {"hand": ["5H"], "wild_rank": "K"}
        for _ in range(3):
            assert client.post("/v1/solve", json=body).status_code == 200
        _assert_limited(client.post("/v1/solve", json=body))
        other = client.post("/v1/solve", json=body, environ_base={"REMOTE_ADDR": "10.1.2.3"})
        assert other.status_code == 200
        for _ in range(20):
            assert client.get("/healthz").status_code == 200


def test_limits_can_be_turned_off(redis_server: str) -> None:
    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="off", creation_limit_per_address="off"):
        for _ in range(30):
            assert client.post("/v1/solve", json={"hand": [], "wild_rank": "K"}).status_code == 200
