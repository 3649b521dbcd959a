"""The lobby lists open games and games in progress; matchmaking puts racing seekers in
exactly one seat each, only with seekers of the same rules; seeks expire or are removed."""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service import play
from service.config import Config
from service.play.lobby import PRUNE_GRACE_SECONDS
from tests.conftest import PATIENCE


def _listed(client: FlaskClient, status: str = "open", **query: Any) -> list[dict[str, Any]]:
    r = client.get("/v1/games", query_string={"status": status, **query})
    assert r.status_code == 200, r.json
    return r.json["games"]  # type: ignore[no-any-return]


def test_the_lobby_lists_a_new_open_game_and_drops_it_once_its_seats_are_full(
    client: FlaskClient,
) -> None:
    r = client.post("/v1/games", json={"players": [{"name": "ann"}, {"name": None}]})
    game_id = r.json["game_id"]
    (entry,) = _listed(client)
    assert entry["game_id"] == game_id and entry["seats_open"] == 1 and entry["players"] == 2
    assert entry["preset"] == "classic" and entry["seeded_by_creator"] is False
    assert set(entry) == {"game_id", "status", "preset", "rules", "players", "seats",
                          "seats_taken", "seats_open", "round", "seeded_by_creator", "created"}
    claim = client.post(f"/v1/games/{game_id}/seats/1/claim", json={"name": "bob"})
    assert claim.json["seeded_by_creator"] is False
    assert _listed(client) == []
    assert [g["game_id"] for g in _listed(client, "in_progress")] == [game_id]


def test_unlisted_games_never_appear_in_the_lobby(client: FlaskClient) -> None:
    body = {"players": [{"name": "ann"}, {"name": None}], "unlisted": True}
    game_id = client.post("/v1/games", json=body).json["game_id"]
    assert _listed(client) == []
    client.post(f"/v1/games/{game_id}/seats/1/claim", json={"name": "bob"})
    assert _listed(client, "in_progress") == []


def test_a_game_seeded_by_its_creator_is_marked_in_the_lobby_and_in_the_claim(
    client: FlaskClient,
) -> None:
    body = {"players": [{"name": "ann"}, {"name": None}], "seed": "known"}
    game_id = client.post("/v1/games", json=body).json["game_id"]
    assert _listed(client)[0]["seeded_by_creator"] is True
    claim = client.post(f"/v1/games/{game_id}/seats/1/claim", json={"name": "bob"})
    assert claim.json["seeded_by_creator"] is True


def test_the_lobby_filters_by_preset_and_players_and_pages_with_a_cursor(
    client: FlaskClient,
) -> None:
    made = []
    for n in range(5):
        body = {"players": [{"name": "ann"}] + [{"name": None}] * (1 + n % 2),
                "rules": {"preset": "bga" if n == 4 else "classic"}}
        made.append(client.post("/v1/games", json=body).json["game_id"])
    assert [g["game_id"] for g in _listed(client, preset="bga")] == [made[4]]
    assert {g["game_id"] for g in _listed(client, players=3)} == {made[1], made[3]}
    seen, cursor = [], None
    while True:
        r = client.get("/v1/games", query_string={"limit": 2, **(
            {"cursor": cursor} if cursor else {})}).json
        seen += [g["game_id"] for g in r["games"]]
        cursor = r["next_cursor"]
        if cursor is None:
            break
    assert seen == made[::-1]
    assert client.get("/v1/games?cursor=nonsense").json["code"] == "invalid_cursor"


def test_an_expired_game_is_skipped_by_the_lobby_and_pruned_by_the_sweeper(
    client: FlaskClient, app: Flask, redis_db: Any,
) -> None:
    game_id = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": None}]}
                          ).json["game_id"]
    redis_db.delete(f"ttt:{{{game_id}}}:game")  # as an expiry does
    assert _listed(client) == []
    assert redis_db.zcard("ttt:{lobby}:open") == 1  # the read wrote nothing
    stores = app.extensions["three_thirteen"].stores
    later = time.time() + PRUNE_GRACE_SECONDS  # (a game just listed may be on its way)
    assert play.prune_listing(stores, "open", None, 10, later) == (1, None)
    assert redis_db.zcard("ttt:{lobby}:open") == 0


def _as(seek: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {seek['token']}"}


def _seek(client: FlaskClient, name: str, rules: Any = "classic", players: int = 4,
          timeout: float = 0) -> dict[str, Any]:
    r = client.post(f"/v1/seeks?timeout={timeout}",
                    json={"rules": rules, "players": players, "name": name})
    assert r.status_code == 201, r.json
    return r.json  # type: ignore[no-any-return]


def test_forty_seekers_arriving_at_once_end_in_exactly_ten_games_one_seat_each(
    app: Flask,
) -> None:
    results: dict[int, dict[str, Any]] = {}
    start = threading.Barrier(40)

    def seeker(n: int) -> None:
        client = app.test_client()
        start.wait()
        seek = _seek(client, f"s{n}", timeout=3)
        if seek["status"] == "waiting":  # woken late: read it once more
            seek = client.get(f"/v1/seeks/{seek['seek_id']}?timeout=3", headers=_as(seek)).json
        results[n] = seek

    threads = [threading.Thread(target=seeker, args=(n,)) for n in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(PATIENCE)
    assert len(results) == 40 and all(s["status"] == "matched" for s in results.values())
    games = Counter(s["game_id"] for s in results.values())
    assert len(games) == 10 and set(games.values()) == {4}
    client = app.test_client()
    for game_id in games:
        seats = sorted(s["seat"] for s in results.values() if s["game_id"] == game_id)
        assert seats == [0, 1, 2, 3]
        view = client.get(f"/v1/games/{game_id}").json
        assert view["seeded_by_creator"] is False and not view.get("open_seats")
        names = {s["name"] for s in results.values() if s["game_id"] == game_id}
        assert {p["name"] for p in view["players"]} == names
    for seek in results.values():  # each token is its own seat's, in its own game
        me = client.get(f"/v1/games/{seek['game_id']}",
                        headers={"Authorization": f"Bearer {seek['token']}"}).json
        assert me["you"]["seat"] == seek["seat"]


def test_a_seek_is_read_only_with_its_own_token_which_is_not_derived_from_its_id(
        client: FlaskClient) -> None:
    a, b = _seek(client, "a", "classic", 3), _seek(client, "b", "classic", 3)
    assert a["token"] and a["token"] != b["token"]
    assert client.get(f"/v1/seeks/{a['seek_id']}").status_code == 401
    assert client.get(f"/v1/seeks/{a['seek_id']}", headers=_as(b)).json["code"] == "invalid_token"
    assert client.get(f"/v1/seeks/{a['seek_id']}", headers=_as(a)).json["token"] == a["token"]


def test_seekers_with_different_rules_are_never_matched_together(client: FlaskClient) -> None:
    a = _seek(client, "a", "classic", 2)
    b = _seek(client, "b", "bga", 2)
    c = _seek(client, "c", {"preset": "classic", "jokers": 2}, 2)
    assert {a["status"], b["status"], c["status"]} == {"waiting"}
    d = _seek(client, "d", {"preset": "classic", "jokers": 0}, 2)  # resolves as a's rules
    assert d["status"] == "matched"
    a = client.get(f"/v1/seeks/{a['seek_id']}", headers=_as(a)).json
    assert a["status"] == "matched" and a["game_id"] == d["game_id"]
    for other in (b, c):
        assert client.get(f"/v1/seeks/{other['seek_id']}",
                          headers=_as(other)).json["status"] == "waiting"


def test_a_waiting_seeker_is_woken_by_the_seeker_that_completes_its_game(
    client: FlaskClient, app: Flask,
) -> None:
    first: dict[str, Any] = {}
    waiter = threading.Thread(target=lambda: first.update(
        _seek(app.test_client(), "a", "family", 2, timeout=3)))
    waiter.start()
    time.sleep(0.3)
    # it waits too: should the thread's seek land second, this one is the seeker woken
    second = _seek(client, "b", "family", 2, timeout=3)
    waiter.join(PATIENCE)
    assert first["status"] == "matched" and first["game_id"] == second["game_id"]
    assert {first["seat"], second["seat"]} == {0, 1} and first["token"] != second["token"]


def test_a_removed_seek_is_gone_and_never_matched(client: FlaskClient) -> None:
    a = _seek(client, "a", "classic", 2)
    assert client.delete(f"/v1/seeks/{a['seek_id']}").status_code == 401  # not without
    assert client.delete(f"/v1/seeks/{a['seek_id']}", headers=_as(a)).status_code == 204
    assert client.get(f"/v1/seeks/{a['seek_id']}", headers=_as(a)).json["code"] == "unknown_seek"
    assert _seek(client, "b", "classic", 2)["status"] == "waiting"
    matched = _seek(client, "c", "classic", 2)
    assert matched["status"] == "matched"
    assert client.delete(f"/v1/seeks/{matched['seek_id']}",
                         headers=_as(matched)).json["code"] == "seek_matched"


@pytest.fixture
def short_seeks(config: Config) -> Config:
    return Config(**{**{f: getattr(config, f) for f in config.__slots__},  # type: ignore[attr-defined]
                     "seek_ttl_seconds": 1})


def test_an_expired_seek_is_gone_and_never_matched(short_seeks: Config, redis_db: Any) -> None:
    from service.app import create_app

    client = create_app(short_seeks).test_client()
    old = _seek(client, "old", "classic", 2)
    time.sleep(1.2)
    assert client.get(f"/v1/seeks/{old['seek_id']}", headers=_as(old)).json["code"] == "unknown_seek"
    assert _seek(client, "new", "classic", 2)["status"] == "waiting"  # not matched with old


def test_a_game_with_unclaimed_seats_is_gone_after_open_game_ttl_seconds(
    config: Config, redis_db: Any,
) -> None:
    from service.app import create_app

    short = Config(**{**{f: getattr(config, f) for f in config.__slots__},  # type: ignore[attr-defined]
                      "open_game_ttl_seconds": 3})  # room for the two POSTs and a listing
    client = create_app(short).test_client()
    body = {"players": [{"name": "ann"}, {"name": None}]}
    open_game = client.post("/v1/games", json=body).json["game_id"]
    full = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}]}).json
    assert [g["game_id"] for g in _listed(client)] == [open_game]
    time.sleep(3.3)
    assert client.get(f"/v1/games/{open_game}").json["code"] == "unknown_game"
    assert _listed(client) == []
    assert client.get(f"/v1/games/{full['game_id']}").status_code == 200


def test_a_seek_carries_its_clock_and_rated_and_the_game_has_the_agreed_clock(
        client: FlaskClient) -> None:
    def seek(name: str, **body: Any) -> dict[str, Any]:
        r = client.post("/v1/seeks", json={"players": 2, "name": name, **body})
        assert r.status_code == 201, r.json
        return r.json  # type: ignore[no-any-return]

    slow = seek("slow", turn_seconds=3600)
    assert (slow["turn_seconds"], slow["rated"]) == (3600, False)
    assert seek("dee")["turn_seconds"] == play.SEEK_TURN_SECONDS  # the default clock
    anyone = seek("any", turn_seconds=None)  # meets the oldest agreeing group: slow's
    assert anyone["status"] == "matched" and anyone["turn_seconds"] is None
    view = client.get(f"/v1/games/{anyone['game_id']}").json
    assert view["clock"]["turn_seconds"] == 3600
    assert {p["name"] for p in view["players"]} == {"slow", "any"}


def test_a_rated_seek_needs_an_account_key_and_a_clock_and_clocks_have_a_range(
        client: FlaskClient) -> None:
    r = client.post("/v1/seeks", json={"players": 2, "name": "anon", "rated": True})
    assert r.status_code == 401 and r.json["code"] == "invalid_token"
    key = client.post("/v1/accounts", json={"handle": "ann", "bot": False}).json["key"]
    r = client.post("/v1/seeks", json={"players": 2, "rated": True, "turn_seconds": None},
                    headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 422 and r.json["code"] == "invalid_seek"
    for clock in (0, play.MAX_TURN_SECONDS + 1, "60", True):
        r = client.post("/v1/seeks", json={"players": 2, "name": "a", "turn_seconds": clock})
        assert r.status_code == 422 and r.json["code"] == "invalid_body", clock
    r = client.post("/v1/seeks", json={"players": 2, "name": "a", "rated": "yes"})
    assert r.status_code == 422 and r.json["code"] == "invalid_body"
    r = client.post("/v1/seeks", json={"players": 2, "rated": True},
                    headers={"Authorization": f"Bearer {key}"})
    assert r.status_code == 201 and r.json["rated"] is True and r.json["name"] == "ann"
