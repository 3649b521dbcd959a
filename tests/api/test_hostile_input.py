"""Hostile input: over 10,000 requests per run, none answered ≥ 500, every error problem+json.

Hypothesis generates the methods, paths (game ids, seats, query strings), headers
(tokens of this game, of another game, malformed ones; ``If-Match``,
``If-None-Match``, ``Idempotency-Key``, ``Content-Type``) and bodies (valid bodies
with fields dropped, retyped or added; arbitrary JSON; raw bytes; unicode junk),
and each generated request goes to every endpoint that takes it. Hand-written
nasties (deep nesting, bodies over the size limit, 31-card hands, other games'
tokens, …) are checked for their documented status. The Flask test client and
the real Redis fixture keep it fast; the fault tests (``tests/faults``) cover the
network and the processes.
"""

from __future__ import annotations

import json
import string
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote, urlencode

import orjson
import pytest
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.app import create_app
from service.config import Config
from tests.conftest import redis_client, redis_url_for_tests

PROBLEM = "application/problem+json"
EXAMPLES = 1300  # × 8 requests each, plus the hand-written ones: > 10,000 per run


@pytest.fixture(scope="module")
def hostile(redis_server: str) -> Iterator[dict[str, Any]]:
    url = redis_url_for_tests(redis_server, 5)
    redis_client(url).flushdb()
    app = create_app(Config(redis_url=url, long_poll_max_seconds=0.01, max_body_bytes=16 * 1024,
                            rate_limit="off", rate_limit_per_address="off",
                            creation_limit_per_address="off", solve_limit="off",
                            account_limit_per_address="off"))
    app.config["TESTING"] = True
    client = app.test_client()
    games = []
    for seed in ("h1", "h2"):
        r = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}],
                                           "seed": seed})
        assert r.status_code == 201
        games.append(r.json)
    r = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": None}]})
    games.append(r.json)
    yield {"client": client, "games": games, "sent": [0]}
    redis_client(url).flushdb()


def check(r: Any, method: str = "GET") -> None:
    """No 5xx; a 4xx is problem+json with a stable ``code`` and its own status."""
    assert r.status_code < 500, (r.status_code, r.data[:300])
    if r.status_code >= 400 and method != "HEAD":
        assert r.mimetype == PROBLEM, (r.status_code, r.mimetype, r.data[:200])
        body = orjson.loads(r.data)
        assert isinstance(body.get("code"), str) and body["code"], body
        assert body["status"] == r.status_code, body
        assert body["type"] == f"urn:three-thirteen:problem:{body['code']}", body


# -- strategies -----------------------------------------------------------------------

CARDS = ["5H", "JK", "10♣", "TS", "AS", "KD", "XX", "5h", " 5H", "", "1S", "QQ", "♠7", "9H "]
KEYS = ["type", "source", "card", "discard", "melds", "hand", "wild_rank", "round", "table",
        "rules", "preset", "players", "name", "seed", "decks", "jokers", "lay_off", "aces",
        "hand_sizes", "contracts", "__proto__", "", "é"]
latin1 = st.text(
    st.characters(min_codepoint=32, max_codepoint=255, exclude_characters="\x7f"), max_size=60
)
leaf = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-(2**80), 2**80),
    st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20),
    st.sampled_from(CARDS), st.sampled_from(["stock", "discard", "draw", "go_out", "classic"]),
)
json_value = st.recursive(
    leaf,
    lambda inner: st.lists(inner, max_size=6)
    | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), inner, max_size=6),
    max_leaves=25,
)
VALID = [
    {"type": "draw", "source": "stock"},
    {"type": "discard", "card": "5H"},
    {"type": "go_out", "discard": "5H", "melds": [["5H", "6H", "7H"]]},
    {"hand": ["4S", "5H", "6S", "KD", "KC", "9H"], "wild_rank": "5"},
    {"players": [{"name": "ann"}, {"name": "bob"}], "rules": {"preset": "classic"}, "seed": "7"},
    {"name": "bob"},
]


@st.composite
def mutated(draw: Any) -> dict[str, Any]:
    """A valid body of some endpoint with fields dropped, retyped or added."""
    body = dict(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(0, 3))):
        op = draw(st.sampled_from(["drop", "set", "add"]))
        if op == "drop" and body:
            body.pop(draw(st.sampled_from(sorted(body))))
        elif op == "set" and body:
            body[draw(st.sampled_from(sorted(body)))] = draw(json_value)
        else:
            body[draw(st.sampled_from(KEYS) | st.text(max_size=8))] = draw(json_value)
    return body


def _encode(value: Any) -> bytes:
    return json.dumps(value).encode()  # the standard module: any integer, lone surrogates


bodies = st.one_of(
    mutated().map(_encode),
    json_value.map(_encode),
    st.lists(st.sampled_from(CARDS), max_size=40).map(
        lambda h: _encode({"hand": h, "wild_rank": "K"})
    ),
    st.binary(max_size=120),
    st.text(max_size=60).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.sampled_from([b"", b"null", b"[]", b"{}", b'{"type":', b"\xff\xfe", b"NaN",
                     b'{"a": Infinity}', b'"\\ud800"', b"1e999999"]),
)


@st.composite
def header_sets(draw: Any, tokens: list[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    auth = draw(st.one_of(
        st.none(),
        st.just(f"Bearer {tokens[0]}"), st.just(f"Bearer {tokens[1]}"),  # often a real seat
        st.sampled_from([f"Bearer {t}" for t in tokens]),
        st.sampled_from(["Bearer", "Bearer ", "Basic YTpi", f"bearer  {tokens[0]}  ",
                         f"Bearer {tokens[0][:-1]}", f"Bearer {tokens[0]}x", "Bearer \xff\xfe"]),
        latin1.map(lambda t: "Bearer " + t),
        latin1,
    ))
    if auth is not None:
        headers["Authorization"] = auth
    for name, special in (
        ("If-Match", ['"0"', "*", 'W/"1"', '"-1"', '"99999999999999999999"', '""', '"1", "2"']),
        ("If-None-Match", ['"0"', "*", '"x"']),
        ("Idempotency-Key", ["", "k", "x" * 201, "é" * 10]),
    ):
        value = draw(st.one_of(st.none(), st.none(), st.sampled_from(special), latin1))
        if value is not None:
            headers[name] = value
    ctype = draw(st.none() | st.sampled_from(
        ["application/json", "text/plain", "application/x-www-form-urlencoded",
         "application/json; charset=utf-16", "application/problem+json", "multipart/form-data",
         "application/json; boundary=\xff"]) | latin1)
    headers["Content-Type"] = ctype if ctype is not None else "application/json"
    return headers


game_ids = st.one_of(
    st.just("REAL"), st.just("REAL"), st.just("REAL"), st.just("OTHER"), st.just("OPEN"),
    st.text(string.ascii_letters + string.digits + "-_", min_size=1, max_size=80),
    st.text(max_size=40).map(lambda t: quote(t.encode("utf-8", "surrogatepass"), safe="")),
    st.sampled_from(["%00", "..", "%2F", "a" * 65, "%FF%FE", "nul%0A", "%E2%80%AE"]),
)
queries = st.dictionaries(
    st.sampled_from(["after", "limit", "timeout", "wait_version", "x"]),
    st.one_of(st.integers(-5, 2**60).map(str), latin1,
              st.sampled_from(["nan", "inf", "-0", "1e400", "0x10", " 1", "٣"])),
    max_size=4,
)


# -- the run --------------------------------------------------------------------------


def test_ten_thousand_hostile_requests(hostile: dict[str, Any]) -> None:
    client: FlaskClient = hostile["client"]
    games = hostile["games"]
    tokens = [s["token"] for g in games for s in g["seats"] if s["token"]]
    ids = {"REAL": games[0]["game_id"], "OTHER": games[1]["game_id"],
           "OPEN": games[2]["game_id"]}
    sent = 0

    @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(
        method=st.sampled_from(["GET", "POST", "POST", "POST", "PUT", "DELETE", "PATCH",
                                "OPTIONS", "HEAD"]),
        game=game_ids, seat=st.one_of(st.integers(-3, 12).map(str), latin1.map(quote)),
        query=queries, headers=header_sets(tokens), body=bodies,
    )
    def one(method: str, game: str, seat: str, query: dict[str, str],
            headers: dict[str, str], body: bytes) -> None:
        nonlocal sent
        gid = ids.get(game, game)
        qs = "?" + urlencode(query) if query else ""
        paths = [
            ("POST", "/v1/solve"), ("POST", "/v1/games"), ("POST", f"/v1/games/{gid}/actions"),
            ("POST", f"/v1/games/{gid}/seats/{seat}/claim"), (method, f"/v1/games/{gid}{qs}"),
            (method, f"/v1/games/{gid}/events{qs}"), (method, "/v1/rules/presets" + qs),
            (method, f"/v1/{quote(game, safe='')}/{seat}"),
        ]
        for verb, path in paths:
            r = client.open(path, method=verb, data=body, headers=headers)
            check(r, verb)
            sent += 1

    one()
    hostile["sent"][0] += sent
    assert sent >= EXAMPLES * 8


def test_actions_from_real_seats(hostile: dict[str, Any]) -> None:
    """Hostile action bodies that do reach the engine: real tokens of both seats, JSON."""
    client: FlaskClient = hostile["client"]
    game = hostile["games"][0]
    act = f"/v1/games/{game['game_id']}/actions"
    auths = [{"Authorization": f"Bearer {s['token']}", "Content-Type": "application/json"}
             for s in game["seats"]]
    sent = 0

    @settings(max_examples=400, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(body=st.one_of(mutated(), json_value, st.sampled_from(VALID)),
           if_match=st.none() | st.integers(-1, 400).map(lambda v: f'"{v}"'))
    def one(body: Any, if_match: str | None) -> None:
        nonlocal sent
        for auth in auths:
            headers = auth if if_match is None else {**auth, "If-Match": if_match}
            r = client.post(act, data=_encode(body), headers=headers)
            check(r, "POST")
            sent += 1

    one()
    hostile["sent"][0] += sent


def _deep(n: int) -> bytes:
    return b"[" * n + b"]" * n


def test_hand_written_nasties(hostile: dict[str, Any]) -> None:
    client: FlaskClient = hostile["client"]
    real, other, open_game = hostile["games"]
    gid = real["game_id"]
    tok = real["seats"][0]["token"]
    other_tok = other["seats"][0]["token"]
    auth = {"Authorization": f"Bearer {tok}"}
    act = f"/v1/games/{gid}/actions"
    cases: list[tuple[str, str, Any, dict[str, str], int, str | None]] = [
        ("POST", act, _deep(40), auth, 422, "invalid_json"),
        ("POST", act, _deep(1000), auth, 422, "invalid_json"),
        ("POST", act, b'{"type":"draw","x":' + _deep(300) + b"}",
         {**auth, "Idempotency-Key": "deep"}, 422, "invalid_json"),
        ("POST", "/v1/games", b'{"a":' * 900 + b"1" + b"}" * 900, {}, 422, "invalid_json"),
        ("POST", "/v1/solve", b'{"hand":' + _deep(31) + b"}", {}, 422, None),
        ("POST", "/v1/solve", _deep(100_000)[:16_000], {}, 422, "invalid_json"),
        ("POST", "/v1/solve", b"[" + b"1," * 20_000 + b"1]", {}, 413, "body_too_large"),
        ("POST", "/v1/games", b" " * 17_000, {}, 413, "body_too_large"),
        ("POST", act, b'{"type":"draw","source":"stock","pad":"' + b"x" * 20_000 + b'"}',
         auth, 413, "body_too_large"),
        ("POST", "/v1/solve", _encode({"hand": ["5H"] * 31, "wild_rank": "K"}), {}, 422,
         "invalid_body"),
        ("POST", "/v1/solve", _encode({"hand": ["ZZ"], "wild_rank": "K"}), {}, 422, None),
        ("POST", "/v1/solve", _encode({"hand": "5H", "wild_rank": 5}), {}, 422, "invalid_body"),
        ("POST", "/v1/solve", _encode({"hand": [], "wild_rank": "K", "extra": 1}), {}, 422,
         "invalid_body"),
        ("POST", "/v1/games", _encode({"players": [{"name": "a"}] * 9}), {}, 422, None),
        ("POST", "/v1/games", _encode({"players": [{"name": "\u202e\ud7ff\U0010ffff"}] * 2,
                                        "seed": "\x00"}), {}, 422, "invalid_body"),
        # unassigned and noncharacter code points are no PRECIS nickname's
        ("POST", "/v1/games", _encode({"players": [{"name": "\ud7ff\U0010ffff"}] * 2,
                                        "seed": "\x00"}), {}, 422, "invalid_body"),
        ("POST", "/v1/games", _encode({"players": [{"name": "\ud55c\U0001f0a1"}] * 2,
                                        "seed": "\x00"}), {}, 201, None),
        ("POST", act, _encode({"type": "discard", "card": "5H" * 1000}), auth, 422,
         "invalid_card"),
        ("POST", act, _encode({"type": "draw", "source": "stock", "bogus": True}), auth, 422,
         None),
        ("POST", act, _encode([{"type": "draw"}]), auth, 422, None),
        ("POST", act, b'{"type":"draw","source":"stock"}', {"Authorization": f"Bearer {other_tok}"},
         401, "invalid_token"),
        ("POST", act, b'{"type":"draw","source":"stock"}', {}, 401, "invalid_token"),
        ("POST", act, b'{"type":"draw","source":"stock"}', {"Authorization": "Bearer"}, 401,
         "invalid_token"),
        ("GET", f"/v1/games/{gid}", None, {"Authorization": f"Bearer {other_tok}"}, 401,
         "invalid_token"),
        ("POST", "/v1/games/nope-nope/actions", b'{"type":"draw","source":"stock"}', auth, 404,
         "unknown_game"),
        ("GET", "/v1/games/" + "a" * 200, None, {}, 404, "unknown_game"),
        ("POST", act, b'{"type":"draw","source":"stock"}', {**auth, "Idempotency-Key": ""}, 422,
         "invalid_body"),
        ("POST", act, b'{"type":"draw","source":"stock"}',
         {**auth, "Idempotency-Key": "k" * 201}, 422, "invalid_body"),
        ("POST", act, b'{"type":"draw","source":"stock"}', {**auth, "If-Match": '"garbage'},
         412, "version_conflict"),
        ("POST", act, b'{"type":"draw","source":"stock"}',
         {**auth, "Content-Type": "text/plain"}, 415, "unsupported_media_type"),
        ("POST", f"/v1/games/{open_game['game_id']}/seats/9/claim", b'{"name":"x"}', {}, 404,
         "unknown_seat"),
        ("POST", f"/v1/games/{open_game['game_id']}/seats/1/claim", b'{"name":' + _deep(50) + b"}",
         {}, 422, "invalid_json"),
        ("GET", f"/v1/games/{gid}/events?after=-1", None, {}, 422, "invalid_query"),
        ("GET", f"/v1/games/{gid}/events?limit=100000", None, {}, 422, "invalid_query"),
        ("GET", f"/v1/games/{gid}?wait_version=0&timeout=nan", None, {}, 422, "invalid_query"),
        ("DELETE", f"/v1/games/{gid}", None, auth, 405, "method_not_allowed"),
    ]
    for method, path, body, headers, status, code in cases:
        headers = {"Content-Type": "application/json", **headers}
        r = client.open(path, method=method, data=body, headers=headers)
        check(r, method)
        assert r.status_code == status, (method, path, r.status_code, r.data[:200])
        if code is not None:
            assert r.json["code"] == code, (path, r.json)
    hostile["sent"][0] += len(cases)
    assert hostile["sent"][0] >= 10_000


@pytest.mark.parametrize("query", ["wait_version=٣&timeout=1", "wait_version=1_0&timeout=1",
                                   "wait_version=0&timeout=inf", "wait_version=0&timeout=nan",
                                   "wait_version=0&timeout=1e999", "wait_version=0&timeout=-1",
                                   "wait_version=0&timeout=٣"])
def test_query_numbers_are_ascii_decimal_and_finite(client: FlaskClient, query: str) -> None:
    game = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}]}).json
    r = client.get(f"/v1/games/{game['game_id']}?{query}")
    assert r.status_code == 422 and r.json["code"] == "invalid_query", (query, r.json)


def test_a_wait_is_spread_a_little_below_its_timeout_so_a_burst_does_not_end_at_once(
        client: FlaskClient) -> None:
    game = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}]}).json
    took = []
    for _ in range(8):
        started = time.monotonic()
        r = client.get(f"/v1/games/{game['game_id']}?wait_version=0&timeout=0.5")
        took.append(time.monotonic() - started)
        assert r.status_code == 200
    # each its own time, at least 0.4 s of its 0.5 (and not the cap, 120 s)
    assert all(0.4 <= t < 60 for t in took) and max(took) - min(took) > 0.005
