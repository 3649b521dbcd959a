"""Tournaments over HTTP on a real Redis, with a move worker pairing the rounds: a Swiss
tournament of 16 accounts at 4-seat tables over 4 rounds, its games played with the
entrants' keys, and its standings equal to those rebuilt from the games' records."""

from __future__ import annotations

import itertools
import time
from collections import Counter
from typing import Any

from flask.testing import FlaskClient

from service.tournaments import pair_key, standings_from_records
from tests.api.conftest import done
from tests.api.test_accounts import key_auth, play_out, register
from tests.api.test_challenges import http, read_stream  # noqa: F401  (a fixture)
from tests.conftest import PATIENCE

#: One round of 3 cards, at most 3 turns each: a game is a few requests.
SHORT = {"preset": "classic", "hand_sizes": [3], "turn_limit": 3}


def wait_for(client: FlaskClient, tournament_id: str, ready: Any,
             seconds: float = PATIENCE) -> dict[str, Any]:
    """The tournament once ``ready(t)`` (the move worker pairs it meanwhile)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        t = client.get(f"/v1/tournaments/{tournament_id}").json
        if ready(t):
            return t  # type: ignore[no-any-return]
        time.sleep(0.05)
    raise AssertionError(f"the tournament did not get there: {t}")


def seen(client: FlaskClient, game_id: str, seconds: float = PATIENCE) -> dict[str, Any]:
    """The game's public view once it exists (a round is stored before its games)."""
    deadline = time.monotonic() + seconds
    while (r := client.get(f"/v1/games/{game_id}")).status_code == 404:
        assert time.monotonic() < deadline, f"game {game_id} was never created"
        time.sleep(0.05)
    return r.json  # type: ignore[no-any-return]


def test_a_swiss_tournament_of_sixteen_at_four_seat_tables_never_repeats_a_pair_and_its_standings_are_its_records(
        http: FlaskClient) -> None:  # noqa: F811
    handles = [f"pl{i:02d}" for i in range(16)]
    keys = {h: register(http, h) for h in handles}
    r = done(http.post("/v1/tournaments", headers=key_auth(keys["pl00"]), json={
        "name": "Sixteen", "system": "swiss", "seats": 4, "rounds": 4, "rules": SHORT,
        "turn_seconds": 600, "entrants": handles}))
    assert r.status_code == 201, r.json
    tid = r.json["tournament_id"]
    assert r.json["status"] == "open" and r.json["played"] == []
    assert r.json["entrants"] == ["pl00"] and r.json["invited"] == handles[1:]
    for h in handles[1:]:  # the invited accept
        assert done(http.post(f"/v1/tournaments/{tid}/join", headers=key_auth(keys[h]))
                    ).status_code == 200
    r = done(http.post(f"/v1/tournaments/{tid}/start", headers=key_auth(keys["pl00"])))
    assert r.status_code == 200, r.json
    for number in range(1, 5):
        t = wait_for(http, tid, lambda t, n=number: len(t["played"]) == n)
        assert t["status"] == "running"
        for table in t["played"][-1]["tables"]:
            view = seen(http, table["game_id"])
            seats = {p["seat"]: keys[p["name"]] for p in view["players"]}
            first = (view["round"]["dealer"] + 1) % 4
            assert view["players"][first]["name"] == table["players"][0]
            assert view["seeded_by_creator"] is False
            play_out(http, table["game_id"], seats)
    t = wait_for(http, tid, lambda t: t["status"] == "finished")

    tables = [table for r in t["played"] for table in r["tables"]]
    met = Counter(pair_key(a, b) for table in tables
                  for a, b in itertools.combinations(table["players"], 2))
    assert len(tables) == 16 and max(met.values()) == 1  # every one met 12 others once
    records = []
    for table in tables:
        r = http.get(f"/v1/games/{table['game_id']}/record")
        assert r.status_code == 200, r.json
        records.append(r.json)
    firsts = Counter(rec["players"][(rec["first_dealer"] + 1) % 4]["account"]
                     for rec in records)
    assert sorted(firsts.values()) == [1] * 16
    rebuilt = [s.to_json() for s in standings_from_records(handles, 4, records)]
    assert t["standings"] == rebuilt
    assert sum(s["points"] for s in rebuilt) == 16 * 6  # 6 points a game of four
    notes = [n for n in read_stream(http, keys["pl05"]) if "tournament_id" in n]
    assert [n["type"] for n in notes] == ["tournament_invited", "tournament_started",
                                          *["round_started"] * 4,
                                          "tournament_finished"]
    assert notes[-1]["place"] == next(s["place"] for s in rebuilt if s["handle"] == "pl05")
    listed = http.get("/v1/tournaments?status=finished").json["tournaments"]
    assert [x["tournament_id"] for x in listed] == [tid]


def test_an_open_tournament_is_joined_left_and_refused_once_started(
        http: FlaskClient) -> None:  # noqa: F811
    keys = {h: register(http, h) for h in ["ann", "bob", "cid"]}
    r = done(http.post("/v1/tournaments", headers=key_auth(keys["ann"]), json={
        "name": "Open", "system": "round_robin", "seats": 2, "rules": SHORT}))
    assert r.status_code == 201 and r.json["open"] is True, r.json
    tid = r.json["tournament_id"]
    for h in ["ann", "bob", "cid"]:
        assert done(http.post(f"/v1/tournaments/{tid}/join", headers=key_auth(keys[h]))
                    ).status_code == 200
    left = done(http.post(f"/v1/tournaments/{tid}/leave", headers=key_auth(keys["cid"])))
    assert left.json["entrants"] == ["ann", "bob"]
    assert done(http.post(f"/v1/tournaments/{tid}/start", headers=key_auth(keys["bob"]))
                ).json["code"] == "tournament_closed"
    assert done(http.post(f"/v1/tournaments/{tid}/start", headers=key_auth(keys["ann"]))
                ).status_code == 200
    late = done(http.post(f"/v1/tournaments/{tid}/join", headers=key_auth(keys["cid"])))
    assert late.status_code == 409 and late.json["code"] == "tournament_closed"
    t = wait_for(http, tid, lambda t: len(t["played"]) == 1)
    assert t["rounds"] == 1 and len(t["played"][0]["tables"]) == 1
    missing = http.get("/v1/tournaments/nope")
    assert missing.status_code == 404 and missing.json["code"] == "unknown_tournament"
