"""The document and the server agree, both ways (that every example of the document fits
its schema is tests/contract/test_openapi_resolves.py's).

* What the document accepts as a request body, the server accepts, and what the document
  refuses, the server refuses (a 422): ``{}`` and the seats ``{"name": "x", "bot":
  "greedy"}`` and ``{"name": null, "bot": "greedy"}``, which the document used to accept,
  among the bodies of every operation that takes one.
* Every response of a sample of real requests (views of a game being played and of a
  finished one, actions, claims, seeks waiting and matched, events, stream lines, records,
  the lobby, solves, and the problems on the way) has a documented status, matches that
  status's schema and headers, and a problem's ``code`` is one the operation lists for
  that status.

Why besides schemathesis (tests/contract/test_schemathesis.py): it generates requests
from the document, so it cannot find a body the document refuses by mistake, nor tell
whether a response that fits a loose schema fits the variant it should; here the bodies
are the ones clients write and the variants are checked one by one.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import orjson
import pytest
import redis
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from werkzeug.test import TestResponse

from .conftest import Table, done, new_table

DOCUMENT: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())
METHODS = ("get", "post", "delete")
JSON_TYPES = ("application/json", "application/problem+json")


@cache
def _validator(schema_json: str) -> Draft202012Validator:
    # the document as the root, so that its "#/components/..." references resolve
    return Draft202012Validator({**DOCUMENT, "allOf": [json.loads(schema_json)]})


def errors(schema: dict[str, Any], value: Any) -> list[str]:
    """Why ``value`` does not match ``schema`` (a schema of the document): none if it does."""
    found = _validator(json.dumps(schema, sort_keys=True)).iter_errors(value)
    return sorted(e.message for e in found)


def operation(method: str, path: str) -> tuple[str, dict[str, Any]]:
    """The documented path template and operation that ``method path`` is."""
    matches = [(template, item[method]) for template, item in DOCUMENT["paths"].items()
               if method in item and re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", template), path)]
    assert matches, f"{method.upper()} {path} is no documented operation"
    # a literal segment wins over a parameter (the most literal characters)
    return max(matches, key=lambda m: len(re.sub(r"\{[^}]+\}", "", m[0])))


class Api:
    """The test client, checking every response against the document."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        #: (operationId, status, code) of every problem seen
        self.problems: set[tuple[str, int, str]] = set()

    def get(self, url: str, **kw: Any) -> TestResponse:
        return self.check("get", url, done(self.client.get(url, **kw)))

    def post(self, url: str, **kw: Any) -> TestResponse:
        return self.check("post", url, done(self.client.post(url, **kw)))

    def delete(self, url: str, **kw: Any) -> TestResponse:
        return self.check("delete", url, done(self.client.delete(url, **kw)))

    def check(self, method: str, url: str, r: TestResponse) -> TestResponse:
        template, op = operation(method, urlsplit(url).path)
        where = f"{method.upper()} {template} → {r.status_code}"
        documented = op["responses"].get(str(r.status_code))
        assert documented is not None, f"{where} is not documented: {r.data[:300]!r}"
        for name in documented.get("headers", {}):
            if name in ("Location", "ETag"):
                assert name in r.headers, f"{where} lacks its documented {name}"
        content = documented.get("content")
        if not content:
            assert not r.data, f"{where} has a body it does not document"
            return r
        assert r.mimetype in content, f"{where} is {r.mimetype}, not one of {list(content)}"
        if r.mimetype in JSON_TYPES:
            wrong = errors(content[r.mimetype]["schema"], r.json)
            assert not wrong, f"{where}: {wrong[:3]} in {r.data[:300]!r}"
        if r.status_code >= 400:
            listed = content[r.mimetype]["schema"]["properties"]["code"]["enum"]
            assert r.json["code"] in listed, f"{where}: {r.json['code']} is not in {listed}"
            self.problems.add((op["operationId"], r.status_code, r.json["code"]))
        return r


def request_schema(method: str, url: str) -> dict[str, Any]:
    _, op = operation(method, urlsplit(url).path)
    return op["requestBody"]["content"]["application/json"]["schema"]  # type: ignore[no-any-return]


def both_ways(api: Api, url: str, bodies: list[Any], **kw: Any) -> None:
    """Each body is accepted by the document exactly when the server does not answer 422."""
    schema = request_schema("post", url)
    for body in bodies:
        refused_by_document = errors(schema, body)
        r = api.post(url, json=body, **kw)
        refused_by_server = r.status_code == 422
        assert bool(refused_by_document) == refused_by_server, (
            f"{body!r}: the document says {refused_by_document or 'yes'}, the server "
            f"{r.status_code} {r.json}")


# -- request bodies: the document refuses what the server refuses --------------------


SEATS_REFUSED = [{}, {"name": "x", "bot": "greedy"}, {"name": None, "bot": "greedy"},
                 {"bot": None}, {"bot": "clever"}, {"name": ""}, {"name": "ann", "x": 1}]


def test_a_game_is_created_exactly_from_the_bodies_the_document_accepts(
        client: FlaskClient) -> None:
    api = Api(client)
    ann = {"name": "ann"}
    bodies: list[Any] = [
        {}, [], {"players": []}, {"players": [ann]},
        *({"players": [ann, seat]} for seat in SEATS_REFUSED),
        {"players": [ann, {"name": None}]}, {"players": [ann, {"bot": "greedy"}]},
        {"players": [ann, {"name": "bob"}], "seed": 2**53 - 1},
        {"players": [ann, {"name": "bob"}], "seed": -(2**53 - 1)},
        {"players": [ann, {"name": "bob"}], "seed": 2**53},
        {"players": [ann, {"name": "bob"}], "seed": -(2**63)},
        {"players": [ann, {"name": "bob"}], "seed": "s" * 64},
        {"players": [ann, {"name": "bob"}], "seed": "s" * 65},
        {"players": [ann, {"name": "bob"}], "seed": None, "rules": None, "turn_seconds": None},
        {"players": [ann, {"name": "bob"}], "turn_seconds": 0},
        {"players": [ann, {"name": "bob"}], "unlisted": 1},
        {"players": [ann, {"name": "bob"}], "unlisted": True, "rules": {"preset": "bga"}},
        {"players": [ann, {"name": "bob"}], "rules": {"preset": "nope"}},
        {"players": [ann, {"name": "bob"}], "colour": "red"},
    ]
    both_ways(api, "/v1/games", bodies)


def test_a_seat_is_claimed_and_an_action_taken_exactly_from_the_documented_bodies(
        client: FlaskClient) -> None:
    api = Api(client)
    table = new_table(client, players=[{"name": "ann"}, {"name": None}], seed="7")
    claim = f"/v1/games/{table.game_id}/seats/1/claim"
    both_ways(api, claim, [{}, {"name": None}, {"name": "bob", "x": 1}, {"name": 7},
                           {"name": "bob"}, {"name": "cy"}])
    table = new_table(client, seed="7")
    seat = table.view()["round"]["current_seat"]
    act = f"/v1/games/{table.game_id}/actions"
    both_ways(api, act, [
        {}, {"type": "fly"}, {"type": "draw"}, {"type": "draw", "source": "pile"},
        {"type": "discard", "card": "7X"}, {"type": "discard", "card": 7},
        {"type": "resign", "seat": 1}, {"type": "go_out", "discard": "7H", "melds": [["7X"]]},
        {"type": "go_out", "discard": "7H", "melds": None},  # null: the best arrangement
        {"type": "draw", "source": "stock"}, {"type": "draw", "source": "stock"},
        {"type": "discard", "card": "10h"}, {"type": "back"},
    ], headers=table.auth(seat))


def test_a_hand_is_solved_and_a_seek_opened_exactly_from_the_documented_bodies(
        client: FlaskClient) -> None:
    api = Api(client)
    hand = ["4S", "5H", "6S"]
    both_ways(api, "/v1/solve", [
        {}, {"hand": hand}, {"hand": hand, "wild_rank": "5", "round": 2},
        {"hand": ["7X"], "wild_rank": "5"}, {"hand": hand, "wild_rank": "Z"},
        {"hand": hand, "round": 0}, {"hand": hand, "wild_rank": "5", "rules": {"x": 1}},
        {"hand": hand, "wild_rank": "5"}, {"hand": hand, "wild_rank": None},
        {"hand": ["10h", "jk"], "round": 3, "rules": {"preset": "family"}},
    ])
    both_ways(api, "/v1/seeks", [
        {}, {"players": 2}, {"name": "ann"}, {"players": 9, "name": "ann"},
        {"players": 2, "name": "ann", "rules": "nope"}, {"players": 2, "name": None},
        {"players": 2, "name": "ann", "x": 1},
        {"players": 3, "name": "ann"}, {"players": 3, "name": "bob", "rules": "classic"},
        {"players": 3, "name": "cy", "rules": {"preset": "classic"}},
    ])


# -- responses: a sample of real ones, problems included -----------------------------


def _finished(client: FlaskClient) -> Table:
    """A two-seat game ended at once: one seat resigns, the other wins."""
    table = new_table(client, seed="two-way")
    assert table.act(1, {"type": "resign"}).status_code == 200
    return table


def test_views_actions_and_their_problems_match_the_document(client: FlaskClient) -> None:
    api = Api(client)
    table = new_table(client, players=[{"name": "ann"}, {"bot": "greedy"}, {"name": None}],
                      seed="7")
    base = f"/v1/games/{table.game_id}"
    assert api.get(base).json["status"] == "in_progress"
    view = api.get(base, headers=table.auth(0)).json
    assert view["you"]["seat"] == 0
    api.get(base, headers={"Authorization": "Bearer nope"})  # 401
    api.get("/v1/games/nosuchgame")  # 404
    api.get(f"{base}?wait=soon")  # 422
    api.get(f"{base}?version=1")  # 409 game_not_finished
    api.post(f"{base}/actions", json={"type": "draw", "source": "stock"},
             headers=table.auth(0))  # 409 seats_open
    api.post(f"{base}/seats/2/claim", json={"name": "cy"})
    api.post(f"{base}/seats/2/claim", json={"name": "dee"})  # 409 seat_taken
    api.post(f"{base}/seats/5/claim", json={"name": "dee"})  # 404 unknown_seat
    api.post(f"{base}/actions", data="nope", headers={**table.auth(0),
                                                      "Content-Type": "text/plain"})  # 415
    api.post(f"{base}/actions", data="{", headers={**table.auth(0),
                                                   "Content-Type": "application/json"})
    api.get(f"{base}/events?after=0", headers=table.auth(0))
    api.get(f"{base}/events?after=9999")  # 422 invalid_cursor
    api.get(f"{base}/record")  # 409 game_not_finished
    api.post(f"{base}/stream-tickets", headers=table.auth(0))
    api.post(f"{base}/rematch", headers=table.auth(0))  # 409 illegal_action
    api.get("/v1/games?status=in_progress")
    api.get("/v1/games?status=all")  # 422
    api.get("/v1/games?cursor=nope")  # 422 invalid_cursor

    finished = _finished(client)
    base = f"/v1/games/{finished.game_id}"
    for seat in (None, 0, 1):
        view = api.get(base, headers=finished.auth(seat)).json
        assert view["status"] == "finished" and view["winners"] == [0]
    api.get(f"{base}?version=0", headers=finished.auth(0))
    api.get(f"{base}?version=99")  # 422 version_not_recorded
    api.get(f"{base}/record")
    api.get(f"{base}/record", headers={"Accept": "text/plain"})
    api.get(f"{base}/record", headers={"Accept": "image/png"})  # 406
    api.post(f"{base}/actions", json={"type": "draw", "source": "stock"},
             headers=finished.auth(0))  # 409 illegal_action
    api.post(f"{base}/rematch", headers=finished.auth(1))  # 409 seat_resigned
    rematch = api.post(f"{base}/rematch", headers=finished.auth(0)).json
    assert rematch["you"]["seat"] == 0  # a SeatView
    seen = {(op, status) for op, status, _ in api.problems}
    assert {("getGame", 401), ("getGame", 404), ("getGame", 422), ("getGame", 409),
            ("act", 409), ("act", 415), ("act", 422), ("claimSeat", 409), ("claimSeat", 404),
            ("getEvents", 422), ("getRecord", 409), ("getRecord", 406),
            ("askRematch", 409), ("listGames", 422)} <= seen


def test_an_unquoted_if_match_is_the_same_version_as_its_etag(client: FlaskClient) -> None:
    api = Api(client)
    table = new_table(client, seed="7")
    seat = table.view()["round"]["current_seat"]
    act = f"/v1/games/{table.game_id}/actions"
    draw = {"type": "draw", "source": "stock"}
    stale = api.post(act, json=draw, headers={**table.auth(seat), "If-Match": "5"})
    assert stale.status_code == 412 and stale.json["current_version"] == 0
    r = api.post(act, json=draw, headers={**table.auth(seat), "If-Match": "0"})
    assert r.status_code == 200 and r.headers["ETag"] == '"1"'
    r = api.post(act, json={"type": "discard", "card": r.json["you"]["hand"][0]},
                 headers={**table.auth(seat), "If-Match": 'W/"0", 1'})
    assert r.status_code == 200 and r.json["version"] == 2
    header = operation("post", act)[1]["parameters"]
    (if_match,) = [p for p in header if p["name"] == "If-Match"]
    assert "`12`" in if_match["description"]  # the document says a bare number is taken


def test_seeks_waiting_and_matched_and_their_location_match_the_document(
        client: FlaskClient) -> None:
    api = Api(client)
    body = {"players": 2, "name": "ann", "rules": {"preset": "bga", "hand_sizes": [3]}}
    first = api.post("/v1/seeks?timeout=0", json=body)
    waiting = first.json
    assert first.status_code == 201 and waiting["status"] == "waiting"
    # the Location is the seek's own URL, as documented, and it reads the seek
    assert first.headers["Location"] == f"/v1/seeks/{waiting['seek_id']}"
    created = operation("post", "/v1/seeks")[1]["responses"]["201"]["headers"]["Location"]
    assert "/v1/seeks/{seek_id}" in created["description"]
    auth = {"Authorization": f"Bearer {waiting['token']}"}
    assert api.get(first.headers["Location"], headers=auth).json == waiting
    api.get(first.headers["Location"])  # 401
    api.get(first.headers["Location"], headers={"Authorization": "Bearer nope"})  # 401
    api.get("/v1/seeks/nope", headers=auth)  # 404
    api.get(f"{first.headers['Location']}?timeout=soon", headers=auth)  # 422
    second = api.post("/v1/seeks", json={**body, "name": "bob"}).json
    assert second["status"] == "matched"
    matched = api.get(first.headers["Location"], headers=auth).json
    assert matched["status"] == "matched" and matched["game_id"] == second["game_id"]
    game = api.get(f"/v1/games/{matched['game_id']}", headers=auth).json
    assert game["you"]["seat"] == matched["seat"]
    api.delete(first.headers["Location"], headers=auth)  # 409 seek_matched
    third = api.post("/v1/seeks", json={**body, "name": "cy"}).json
    api.delete(f"/v1/seeks/{third['seek_id']}",
               headers={"Authorization": f"Bearer {third['token']}"})  # 204
    assert ("deleteSeek", 409, "seek_matched") in api.problems


def test_every_stream_line_matches_the_item_schema_of_the_stream_operation(
        client: FlaskClient, redis_db: redis.Redis) -> None:
    finished = _finished(client)
    _, stream = operation("get", f"/v1/games/{finished.game_id}/stream")
    ndjson = stream["responses"]["200"]["content"]["application/x-ndjson"]
    assert ndjson["schema"]["items"] == ndjson["x-oai-itemSchema"]
    for seat in (None, 0):
        r = client.get(f"/v1/games/{finished.game_id}/stream",
                       headers={"Accept": "application/x-ndjson", **finished.auth(seat)},
                       buffered=False)
        lines = [orjson.loads(line) for line in r.response if line.strip()]
        r.close()
        assert [line["type"] for line in lines][-2:] == ["view", "end"]
        assert not errors(ndjson["schema"], lines)  # the whole stream, as 3.2 reads it
        for line in lines:
            assert not errors(ndjson["x-oai-itemSchema"], line), line
        assert lines[-2]["view"]["status"] == "finished"


@pytest.mark.parametrize("body", SEATS_REFUSED[:3])
def test_the_seats_the_issue_found_are_refused_by_document_and_server(
        client: FlaskClient, body: dict[str, Any]) -> None:
    spec = {"$ref": "#/components/schemas/PlayerSpec"}
    assert errors(spec, body)
    r = Api(client).post("/v1/games", json={"players": [{"name": "ann"}, body]})
    assert r.status_code == 422 and r.json["code"] == "invalid_body"
