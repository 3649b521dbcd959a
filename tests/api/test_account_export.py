"""``GET /v1/accounts/{handle}/games`` over HTTP on a real Redis: every finished game once,
as the records ``GET /v1/games/{id}/record`` serves, each verified and as documented;
the filters; a resume after any line; the refusals; the per-address limit; no write."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import orjson
import pytest
import redis
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from service.storage import Account, Stores, redis_stores
from service.verify import verify
from tests.play.finished_games import finish_game

from .test_document_two_way import DOCUMENT, errors
from .test_rate_limits import _client
from .test_reads_write_nothing import commands_during, writes

NDJSON = "application/x-ndjson"


@pytest.fixture
def stores(config: Config, redis_db: redis.Redis) -> Iterator[Stores]:
    """The service layer on the test's Redis, to finish games in this process."""
    made = redis_stores(config)
    yield made
    made.close()


def accounts(client: FlaskClient, stores: Stores, *handles: str) -> list[Account]:
    for handle in handles:
        assert client.post("/v1/accounts", json={"handle": handle}).status_code == 201
    found = [stores.accounts.load(handle) for handle in handles]
    assert None not in found
    return found  # type: ignore[return-value]


def export(client: FlaskClient, handle: str, **query: str) -> list[bytes]:
    """The export's lines (each without its newline), after checking the answer's form."""
    r = client.get(f"/v1/accounts/{handle}/games", query_string=query,
                   headers={"Accept": NDJSON})
    assert r.status_code == 200, r.json
    assert r.mimetype == NDJSON and r.headers["Cache-Control"] == "no-cache"
    body = r.get_data()
    assert body == b"" or body.endswith(b"\n")
    return body.splitlines()


def ids(lines: list[bytes]) -> list[str]:
    return [orjson.loads(line)["game_id"] for line in lines]


def rfc3339(unix: float) -> str:
    return datetime.fromtimestamp(unix, UTC).isoformat().replace("+00:00", "Z")


def test_an_export_sends_each_finished_game_once_as_its_record_verified_and_as_documented(
        client: FlaskClient, stores: Stores) -> None:
    ann, bob, cat = accounts(client, stores, "ann", "bob", "cat")
    games = [finish_game(stores, [ann, bob if n % 2 else cat], f"s{n}") for n in range(5)]
    finish_game(stores, [bob, cat], "not ann's")
    lines = export(client, "Ann")
    assert sorted(ids(lines)) == sorted(games)
    item = DOCUMENT["paths"]["/v1/accounts/{handle}/games"]["get"]["responses"]["200"][
        "content"][NDJSON]
    assert item["schema"]["items"] == item["x-oai-itemSchema"]
    for line in lines:
        record = orjson.loads(line)
        served = client.get(f"/v1/games/{record['game_id']}/record")
        assert served.get_data() == line  # byte for byte the record endpoint's
        assert verify(record) == []
        assert not errors(item["x-oai-itemSchema"], record)
    assert not errors(item["schema"], [orjson.loads(line) for line in lines])
    ends = [(orjson.loads(line)["finished_at"], orjson.loads(line)["game_id"])
            for line in lines]
    assert ends == sorted(ends)  # oldest first, then by id
    assert export(client, "ann", sort="newest") == lines[::-1]
    assert export(client, "strong") == []  # a reference bot: known, and no account's games


def test_the_filters_pick_by_preset_rated_and_end_time(
        client: FlaskClient, stores: Stores) -> None:
    ann, bob = accounts(client, stores, "ann", "bob")
    start = time.time()
    family = finish_game(stores, [ann, bob], "f", rules={"preset": "family", "hand_sizes": [3]},
                         at=start)
    rated = finish_game(stores, [ann, bob], "r", rules={"preset": "classic"}, rated=True,
                        at=start + 1)
    classic = finish_game(stores, [ann, bob], "c", at=start + 2)
    assert ids(export(client, "ann", preset="classic")) == [rated, classic]
    assert ids(export(client, "ann", preset="family")) == [family]
    assert ids(export(client, "ann", rated="true")) == [rated]
    assert ids(export(client, "ann", rated="false", sort="newest")) == [classic, family]
    middle = orjson.loads(export(client, "ann", rated="true")[0])["finished_at"]
    assert ids(export(client, "ann", since=middle)) == [rated, classic]  # included
    assert ids(export(client, "ann", until=middle)) == [family]  # excluded
    # the same instant written with another offset, and a microsecond later
    shifted = (datetime.fromisoformat(middle) + timedelta(hours=2)).replace(
        tzinfo=None).isoformat() + "+02:00"
    assert ids(export(client, "ann", since=shifted)) == [rated, classic]
    later = rfc3339(datetime.fromisoformat(middle).timestamp() + 0.000001)
    assert ids(export(client, "ann", since=later, until=rfc3339(start + 10))) == [classic]


def test_a_resume_after_any_line_gives_exactly_the_rest_among_games_ending_in_one_millisecond(
        client: FlaskClient, stores: Stores, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten games end in the same millisecond, between two others; pages of 4 ids split
    them across three pages of Redis reads. After each line, in both orders, the export
    resumed with that line's game_id is exactly the rest of the whole one."""
    monkeypatch.setattr("service.play.export.BATCH", 4)
    ann, bob = accounts(client, stores, "ann", "bob")
    now = time.time()
    finish_game(stores, [ann, bob], "before", at=now - 0.5)
    for n in range(10):
        finish_game(stores, [ann, bob], f"tie{n}", at=now)
    finish_game(stores, [ann, bob], "after", at=now + 0.5)
    for sort in ("oldest", "newest"):
        whole = export(client, "ann", sort=sort)
        assert len(set(ids(whole))) == len(whole) == 12
        assert len({orjson.loads(line)["finished_at"] for line in whole}) == 3
        for k, game_id in enumerate(ids(whole)):
            assert export(client, "ann", sort=sort, after=game_id) == whole[k + 1:], (sort, k)


@pytest.mark.parametrize(("query", "status", "code"), [
    ({"since": "2026-01-01"}, 422, "invalid_query"),  # a date-time has a time and a zone
    ({"until": "2026-01-01T12:00:00"}, 422, "invalid_query"),
    ({"since": "2026-02-30T12:00:00Z"}, 422, "invalid_query"),
    ({"sort": "best"}, 422, "invalid_query"),
    ({"rated": "yes"}, 422, "invalid_query"),
    ({"preset": "poker"}, 422, "invalid_query"),
    ({"after": "no such/game"}, 422, "invalid_query"),
    ({"after": "nosuchgame"}, 422, "invalid_cursor"),
])
def test_a_query_out_of_its_schema_or_a_cursor_of_no_game_of_the_account_is_422(
        client: FlaskClient, stores: Stores, query: dict[str, str], status: int,
        code: str) -> None:
    accounts(client, stores, "ann")
    r = client.get("/v1/accounts/ann/games", query_string=query)
    assert (r.status_code, r.json["code"]) == (status, code), r.json


def test_an_unknown_or_closed_account_is_404_and_another_form_than_ndjson_406(
        client: FlaskClient, stores: Stores) -> None:
    r = client.get("/v1/accounts/nobody/games")
    assert r.status_code == 404 and r.json["code"] == "unknown_account"
    key = client.post("/v1/accounts", json={"handle": "ann"}).json["key"]
    assert client.get("/v1/accounts/ann/games").status_code == 200  # no Accept: NDJSON
    r = client.get("/v1/accounts/ann/games", headers={"Accept": "application/json"})
    assert r.status_code == 406 and r.json["code"] == "not_acceptable"
    assert client.delete("/v1/me", headers={"Authorization": f"Bearer {key}"}).status_code == 204
    r = client.get("/v1/accounts/ann/games")
    assert r.status_code == 404 and r.json["code"] == "unknown_account"


def test_exports_begun_per_client_address_are_limited(redis_server: str) -> None:
    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="off",
                          account_limit_per_address="off", export_limit_per_address="2/minute"):
        assert client.post("/v1/accounts", json={"handle": "ann"}).status_code == 201
        for _ in range(2):
            assert client.get("/v1/accounts/ann/games").status_code == 200
        r = client.get("/v1/accounts/ann/games")
        assert r.status_code == 429 and r.json["code"] == "rate_limited", r.json
        assert int(r.headers["Retry-After"]) > 0 and r.headers["RateLimit-Limit"] == "2"
        other = client.get("/v1/accounts/ann/games", environ_base={"REMOTE_ADDR": "10.9.8.7"})
        assert other.status_code == 200
        assert client.get("/v1/accounts/ann").status_code == 200  # other reads: unaffected


def test_an_export_reads_a_page_of_the_index_and_its_records_at_a_time_and_writes_nothing(
        config: Config, stores: Stores, redis_db: redis.Redis,
        monkeypatch: pytest.MonkeyPatch) -> None:
    if isinstance(redis_db, redis.RedisCluster):
        pytest.skip("MONITOR watches one node")
    monkeypatch.setattr("service.play.export.BATCH", 5)
    # an app without the tests' move worker: MONITOR sees the app's commands alone
    client = create_app(config).test_client()
    ann, bob = accounts(client, stores, "ann", "bob")
    for n in range(12):
        finish_game(stores, [ann, bob], f"g{n}")
    got: list[bytes] = []

    def read() -> Any:
        got.extend(export(client, "ann"))

    seen = commands_during(redis_db, read)
    assert len(got) == 12
    assert writes(redis_db, seen) == []
    names = [command.split(" ", 1)[0].lower() for command in seen]
    assert names.count("zrangebyscore") == 3  # pages of 5, 5 and 2 ids
    assert names.count("get") == 12  # each record once, in the pipeline of its page
