"""A fresh app per test on the session's Redis (database 1, emptied before each test),
and a small client that speaks the API the way a bot would."""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from service.storage import redis_stores
from service.verify import verify
from service.workers.moves import MoveWorker
from tests.conftest import PATIENCE, redis_client, redis_url_for_tests


@pytest.fixture
def config(redis_server: str) -> Config:
    # TEST_REDIS_URL (e.g. redis+cluster://…, set by tests/cluster) runs these tests elsewhere;
    # waits of up to 120 s, so "answered at once" is told from "timed out" by a margin no
    # busy machine closes (a test asks for a long wait and allows it half of that)
    return Config(redis_url=redis_url_for_tests(redis_server, 1), long_poll_max_seconds=120.0,
                  game_ttl_seconds=3600, rate_limit="off", rate_limit_per_address="off",
                  creation_limit_per_address="off", bot_games_per_address="off",
                  solve_limit="off", account_limit_per_address="off",
                  challenge_limit="off", export_limit_per_address="off",
                  analysis_limit="off")


@pytest.fixture
def redis_db(config: Config) -> Iterator[redis.Redis]:
    client = redis_client(config.redis_url)
    client.flushdb()
    yield client
    check_records(client)
    client.close()


def check_records(client: redis.Redis) -> None:
    """Every game this test finished has its record, and ``service.verify`` accepts it:
    so every whole game of the API tests (each preset, bot seats, clocks, resigns) is
    also a record test. A game still being played (a bot game a test left) is skipped."""
    try:
        keys = [k.decode() for k in client.keys("ttt:{*}:game")]
        for key in keys:
            blob = client.hget(key, "s")
            if blob is None or orjson.loads(blob)["status"] != "finished":
                continue
            stored = client.get(key.removesuffix(":game") + ":record")
            assert stored is not None, f"the finished game {key} has no record"
            record = orjson.loads(zlib.decompress(stored))["record"]
            assert verify(record) == [], f"the record of {key} does not verify"
    except redis.ConnectionError:  # a test that stopped its Redis: nothing to read
        return


@pytest.fixture
def app(config: Config, redis_db: redis.Redis, mover: MoveWorker) -> Flask:
    app = create_app(config)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def mover(config: Config, redis_db: redis.Redis) -> Iterator[MoveWorker]:
    """A move worker on the test's Redis, on a thread (bot seats and turn clocks are
    played by move workers only, as in production: never by a request)."""
    stores = redis_stores(config)
    worker = MoveWorker(stores, idle_seconds=0.2)  # stops within that of the test's end
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop.is_set,), daemon=True,
                              name="move-worker")
    thread.start()
    yield worker
    stop.set()
    thread.join(PATIENCE)
    stores.close()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def done(response: Any) -> Any:
    """The response, read and closed as a server closes it once sent: what a request
    does after its response (bot seats' moves, ``call_on_close``) has run."""
    response.get_data()
    response.close()
    return response


class Table:
    """A game over HTTP: its id, the seat tokens, and helpers that assert success."""

    def __init__(self, client: FlaskClient, body: dict[str, Any]) -> None:
        self.client = client
        r = done(client.post("/v1/games", json=body))
        assert r.status_code == 201, r.json
        self.created = r.json
        self.game_id: str = r.json["game_id"]
        self.tokens: list[str | None] = [s["token"] for s in r.json["seats"]]

    def auth(self, seat: int | None) -> dict[str, str]:
        return {} if seat is None else {"Authorization": f"Bearer {self.tokens[seat]}"}

    def view(self, seat: int | None = None) -> dict[str, Any]:
        r = self.client.get(f"/v1/games/{self.game_id}", headers=self.auth(seat))
        assert r.status_code == 200, r.json
        return r.json  # type: ignore[no-any-return]

    def act(self, seat: int, action: dict[str, Any], **headers: str):
        return done(self.client.post(
            f"/v1/games/{self.game_id}/actions", json=action, headers={**self.auth(seat), **headers}
        ))

    def events(self, seat: int | None = None, after: int = 0) -> list[dict[str, Any]]:
        r = self.client.get(
            f"/v1/games/{self.game_id}/events?after={after}", headers=self.auth(seat)
        )
        assert r.status_code == 200, r.json
        return r.json["events"]  # type: ignore[no-any-return]


@pytest.fixture
def table(client: FlaskClient) -> Table:
    return Table(client, {"players": [{"name": "ann"}, {"name": "bob"}], "seed": "7"})


def new_table(client: FlaskClient, **body: Any) -> Table:
    body.setdefault("players", [{"name": "ann"}, {"name": "bob"}])
    return Table(client, body)
