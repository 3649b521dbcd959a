"""Parked requests per client: one past MAX_WAITS_PER_ADDRESS or _PER_TOKEN is a 429."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest
from flask.testing import FlaskClient

from service.api.problems import ApiProblem
from service.app import create_app
from service.config import Config
from service.storage.hub import channel_of
from service.wire.waiting import RETRIES_PER_SECOND, WaitSlots
from tests.api.conftest import Table
from tests.conftest import PATIENCE, wait_until


def parked_app(config: Config, **limits: str):
    app = create_app(replace(config, **limits))
    app.config["TESTING"] = True
    return app


def park(client: FlaskClient, path: str, headers: dict[str, str], out: list[int]) -> None:
    out.append(client.get(path, headers=headers).status_code)


def wait_until_held(app, n: int) -> None:
    waits = app.extensions["three_thirteen"].waits
    deadline = time.monotonic() + PATIENCE
    while waits.held() < n and time.monotonic() < deadline:
        time.sleep(0.01)
    assert waits.held() == n


@pytest.mark.parametrize("limit", ["max_waits_per_token", "max_waits_per_address"])
def test_one_wait_past_the_limit_is_429_too_many_waits_with_retry_after(
    config: Config, redis_db, limit: str
) -> None:
    app = parked_app(config, **{limit: "2"})
    client = app.test_client()
    table = Table(client, {"players": [{"name": "ann"}, {"name": "bob"}], "seed": "7"})
    view = table.view(0)
    # waits long enough to be refused beside, ended by a move rather than their timeout
    path = f"/v1/games/{table.game_id}?wait_version={view['version']}&timeout=8"
    statuses: list[int] = []
    parked = [threading.Thread(target=park, args=(app.test_client(), path, table.auth(0), statuses))
              for _ in range(2)]
    for t in parked:
        t.start()
    wait_until_held(app, 2)
    refused = client.get(path, headers=table.auth(0))
    assert refused.status_code == 429
    assert refused.json["code"] == "too_many_waits"
    assert refused.headers["Retry-After"] == "1"
    newest = table.events(0)[-1]["seq"]
    events = client.get(f"/v1/games/{table.game_id}/events?after={newest}&timeout=2",
                        headers=table.auth(0))
    assert events.status_code == 429  # an events long-poll is a parked request too
    assert client.get(f"/v1/games/{table.game_id}", headers=table.auth(0)).status_code == 200
    assert all(t.is_alive() for t in parked)
    mover = view["round"]["current_seat"]
    assert table.act(mover, {"type": "draw", "source": "stock"}).status_code == 200
    for t in parked:
        t.join(PATIENCE)
    assert statuses == [200, 200]
    # the slots are free again once the waits ended
    assert client.get(path.replace("timeout=8", "timeout=0.1"), headers=table.auth(0)).status_code == 200


def test_a_different_token_is_not_held_back_by_anothers_waits(config: Config, redis_db) -> None:
    app = parked_app(config, max_waits_per_token="1")
    client = app.test_client()
    table = Table(client, {"players": [{"name": "ann"}, {"name": "bob"}], "seed": "7"})
    view = table.view(0)
    path = f"/v1/games/{table.game_id}?wait_version={view['version']}&timeout=8"
    statuses: list[int] = []
    first = threading.Thread(target=park, args=(app.test_client(), path, table.auth(0), statuses))
    first.start()
    wait_until_held(app, 1)
    assert client.get(path.replace("timeout=8", "timeout=0.1"),
                      headers=table.auth(1)).status_code == 200
    assert first.is_alive()
    mover = view["round"]["current_seat"]
    assert table.act(mover, {"type": "draw", "source": "stock"}).status_code == 200
    first.join(PATIENCE)
    assert statuses == [200]


def test_off_disables_the_wait_limits(config: Config) -> None:
    app = create_app(replace(config, max_waits_per_address="off", max_waits_per_token="off"))
    waits = app.extensions["three_thirteen"].waits
    assert waits.per_address is None and waits.per_token is None


def test_a_wait_limit_that_is_not_a_positive_number_is_refused_at_start(config: Config) -> None:
    with pytest.raises(ValueError, match="MAX_WAITS_PER_TOKEN"):
        create_app(replace(config, max_waits_per_token="many"))


def test_a_wait_past_the_limit_is_refused_before_any_redis_work(
    config: Config, redis_db
) -> None:
    """A client looping waits past its limit costs Redis nothing: the refusal comes from
    the worker's own count, before the rate limiter (which counts in Redis) and before
    the game is read."""
    from .test_reads_write_nothing import commands_during

    app = parked_app(config, max_waits_per_address="1", rate_limit="1000/second",
                     rate_limit_per_address="1000/second")
    client = app.test_client()
    table = Table(client, {"players": [{"name": "ann"}, {"name": "bob"}], "seed": "7"})
    path = f"/v1/games/{table.game_id}?wait_version=0&timeout=8"
    statuses: list[int] = []
    parker = threading.Thread(target=park, args=(app.test_client(), path, {}, statuses))
    parker.start()
    wait_until_held(app, 1)
    channel = channel_of(table.game_id)  # held counts it before its subscription is made
    wait_until(lambda: dict(redis_db.pubsub_numsub(channel)).get(channel.encode(), 0) >= 1,
               PATIENCE, "the parked request's subscription")
    refused: list[int] = []
    seen = commands_during(redis_db, lambda: refused.extend(
        client.get(path).status_code for _ in range(20)))
    assert refused == [429] * 20
    # not one command for the twenty refusals (a connection's own SELECT aside); the parked
    # request's own read of the game (after its subscription) may land in the window on a
    # loaded machine
    commands = [c for c in seen if not c.startswith("SELECT")]
    read = f"HMGET ttt:{{{table.game_id}}}:game "  # the parked request's (its fields aside)
    assert len(commands) <= 1 and all(c.startswith(read) for c in commands), seen
    assert table.act(table.view(0)["round"]["current_seat"], {"type": "draw", "source": "stock"})
    parker.join(PATIENCE)
    assert statuses == [200]


def test_the_refusals_of_one_client_are_told_to_come_back_spread_out() -> None:
    """A client looping waits past its limit, honouring Retry-After, must not come back
    all at once every second (each refusal is a request's CPU that other clients' requests
    queue behind): its refusals are told to come back RETRIES_PER_SECOND a second."""
    slots = WaitSlots(per_address=1, per_token=1)
    with slots.hold("10.0.0.1", None):
        after = []
        for _ in range(3 * RETRIES_PER_SECOND):
            with pytest.raises(ApiProblem) as refused:
                slots.check("10.0.0.1", None)
            after.append(int(refused.value.extra["headers"]["Retry-After"]))
        assert after[0] == 1 and after == sorted(after), after
        assert after.count(1) <= RETRIES_PER_SECOND + 1 and after[-1] >= 3, after
        # another address (or a token) at its limit is told a second, as ever
        with slots.hold("10.0.0.2", "Bearer x"):
            for address, token in (("10.0.0.2", None), ("10.0.0.3", "Bearer x")):
                with pytest.raises(ApiProblem) as refused:
                    slots.check(address, token)
                assert refused.value.extra["headers"]["Retry-After"] == "1"


def test_an_account_stream_past_the_limit_is_refused_before_its_key_is_looked_at(
    config: Config, redis_db,
) -> None:
    """The account's stream is a wait like a game's: one past the limit is refused by the
    early check, whatever else is wrong with it (here a key of no account, which a
    request within the limit is refused for: 401)."""
    from .test_accounts import NDJSON, key_auth, register

    app = parked_app(config, max_waits_per_address="1")
    client = app.test_client()
    held = client.get("/v1/me/stream", headers={**NDJSON, **key_auth(register(client, "ann"))})
    try:
        assert held.status_code == 200
        wait_until_held(app, 1)
        forged = {**NDJSON, **key_auth("nobody.key")}
        assert client.get("/v1/me/stream", headers=forged).status_code == 429
    finally:
        held.close()
    wait_until_held(app, 0)
    assert client.get("/v1/me/stream", headers=forged).status_code == 401
