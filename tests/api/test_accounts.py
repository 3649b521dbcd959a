"""Accounts over HTTP on a real Redis: creation, keys shown once and rotated, closing,
profiles, one key for every seat, "my games" and the account stream."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from tests.api.conftest import done
from tests.api.test_streams import ndjson_lines

NDJSON = {"Accept": "application/x-ndjson"}


def register(client: FlaskClient, handle: str, bot: bool = False) -> str:
    r = client.post("/v1/accounts", json={"handle": handle, "bot": bot})
    assert r.status_code == 201, r.json
    assert r.headers["Location"] == f"/v1/accounts/{handle}"
    assert r.headers["Cache-Control"] == "no-store"
    return r.json["key"]  # type: ignore[no-any-return]


def key_auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def play_out(client: FlaskClient, game_id: str, keys: dict[int, str]) -> dict[str, Any]:
    """Play ``game_id`` to its end with the account keys of its seats (first legal
    action each turn); its last public view."""
    while True:
        view = client.get(f"/v1/games/{game_id}").json
        if view["status"] == "finished":
            return view  # type: ignore[no-any-return]
        seat = view["round"]["current_seat"]
        mine = client.get(f"/v1/games/{game_id}", headers=key_auth(keys[seat])).json
        assert mine["you"]["seat"] == seat
        r = done(client.post(f"/v1/games/{game_id}/actions", json=mine["legal_actions"][0],
                             headers=key_auth(keys[seat])))
        assert r.status_code == 200, r.json


def test_an_account_is_created_with_a_key_shown_once_and_read_back_with_it(
        client: FlaskClient) -> None:
    key = register(client, "Ann_1")
    assert key.startswith("Ann_1.")
    me = client.get("/v1/me", headers=key_auth(key))
    assert me.status_code == 200
    assert me.json["handle"] == "Ann_1" and me.json["bot"] is False
    assert key not in me.get_data(as_text=True)
    profile = client.get("/v1/accounts/ann_1")
    assert profile.status_code == 200
    fresh = {"rating": 1500.0, "deviation": 350.0, "games": 0, "provisional": True}
    assert profile.json == {"handle": "Ann_1", "bot": False, "reference": False,
                            "ratings": {"classic": fresh, "bga": fresh, "family": fresh}}


@pytest.mark.parametrize("taken", ["ANN", "ann", "aNn"])
def test_a_handle_is_refused_when_it_differs_from_one_taken_only_by_case(
        client: FlaskClient, taken: str) -> None:
    register(client, "Ann")
    r = client.post("/v1/accounts", json={"handle": taken})
    assert r.status_code == 409 and r.json["code"] == "handle_taken"


@pytest.mark.parametrize("handle", ["random", "Greedy", "STRONG", "me"])
def test_the_reference_bots_names_are_reserved(client: FlaskClient, handle: str) -> None:
    r = client.post("/v1/accounts", json={"handle": handle, "bot": True})
    assert r.status_code == 409 and r.json["code"] == "handle_taken"


@pytest.mark.parametrize("handle", ["a", "x" * 25, "ann smith", "ánn", "ann.b", "аnn", ""])
def test_a_handle_outside_the_ascii_alphabet_or_length_is_422(
        client: FlaskClient, handle: str) -> None:
    r = client.post("/v1/accounts", json={"handle": handle})
    assert r.status_code == 422 and r.json["code"] == "invalid_body"


def test_the_reference_bots_have_public_profiles(client: FlaskClient) -> None:
    for bot in ("random", "simple", "greedy", "strong", "expert"):
        r = client.get(f"/v1/accounts/{bot}")
        assert r.status_code == 200 and r.json["reference"] is True and r.json["bot"] is True


def test_a_rotated_key_is_refused_at_once_and_the_new_one_works(client: FlaskClient) -> None:
    old = register(client, "ann")
    r = client.post("/v1/me/key", headers=key_auth(old))
    assert r.status_code == 201 and r.headers["Cache-Control"] == "no-store"
    new = r.json["key"]
    assert new != old
    assert client.get("/v1/me", headers=key_auth(old)).status_code == 401
    assert client.get("/v1/me", headers=key_auth(new)).status_code == 200


def test_a_closed_account_refuses_its_key_and_keeps_its_handle_taken(
        client: FlaskClient) -> None:
    key = register(client, "ann")
    assert client.delete("/v1/me", headers=key_auth(key)).status_code == 204
    assert client.get("/v1/me", headers=key_auth(key)).status_code == 401
    assert client.get("/v1/accounts/ann").status_code == 404
    again = client.post("/v1/accounts", json={"handle": "Ann"})
    assert again.status_code == 409 and again.json["code"] == "handle_taken"


@pytest.mark.parametrize("bearer", [None, "ann.forged", "seat-token-like", "nobody.x"])
def test_me_needs_a_valid_key(client: FlaskClient, bearer: str | None) -> None:
    register(client, "ann")
    headers = {} if bearer is None else key_auth(bearer)
    r = client.get("/v1/me", headers=headers)
    assert r.status_code == 401 and r.json["code"] == "invalid_token"


def test_settings_change_who_may_challenge(client: FlaskClient) -> None:
    key = register(client, "ann")
    r = client.patch("/v1/me", json={"challenges_from": "bots"}, headers=key_auth(key))
    assert r.status_code == 200 and r.json["challenges_from"] == "bots"
    bad = client.patch("/v1/me", json={"challenges_from": "friends"}, headers=key_auth(key))
    assert bad.status_code == 422


def test_a_bot_account_plays_a_whole_game_with_its_key_alone_and_is_shown_as_a_bot(
        client: FlaskClient) -> None:
    key = register(client, "botty", bot=True)
    r = done(client.post("/v1/games", json={"players": [{"account": "botty"},
                                                        {"bot": "random"}],
                                            "rules": {"preset": "classic", "hand_sizes": [3, 4]}},
                         headers=key_auth(key)))
    assert r.status_code == 201, r.json
    assert r.json["seats"][0]["token"] is None
    game_id = r.json["game_id"]
    view = client.get(f"/v1/games/{game_id}").json
    assert view["players"][0]["account"] == "botty" and view["players"][0]["account_bot"]
    listed = client.get("/v1/me/games", headers=key_auth(key)).json["games"]
    assert [g["game_id"] for g in listed] == [game_id]
    while (view := client.get(f"/v1/games/{game_id}?wait=turn&timeout=5",
                              headers=key_auth(key)).json)["status"] != "finished":
        assert view["you"]["seat"] == 0
        r = done(client.post(f"/v1/games/{game_id}/actions", json=view["legal_actions"][0],
                             headers=key_auth(key)))
        assert r.status_code == 200, r.json
    finished = client.get("/v1/me/games?status=finished", headers=key_auth(key)).json
    assert finished["games"][0]["game_id"] == game_id
    assert finished["games"][0]["status"] == "finished"
    record = client.get(f"/v1/games/{game_id}/record").json
    assert record["players"][0]["account"] == "botty"
    assert record["players"][0]["account_bot"] is True


def test_a_game_is_created_with_the_bearers_own_account_seat_only(client: FlaskClient) -> None:
    ann, bob = register(client, "ann"), register(client, "bob")
    other = client.post("/v1/games", json={"players": [{"account": "bob"}, {"name": "x"}]},
                        headers=key_auth(ann))
    assert other.status_code == 403 and other.json["code"] == "not_your_account"
    keyless = client.post("/v1/games", json={"players": [{"account": "ann"}, {"name": "x"}]})
    assert keyless.status_code == 401
    twice = client.post("/v1/games", json={"players": [{"account": "bob"},
                                                       {"account": "bob"}]},
                        headers=key_auth(bob))
    assert twice.status_code == 422


def test_an_account_claims_a_seat_with_its_key_and_holds_one_seat_per_game(
        client: FlaskClient) -> None:
    ann, bob = register(client, "ann"), register(client, "bob")
    r = done(client.post("/v1/games", json={"players": [{"account": "ann"}, {"name": None},
                                                        {"name": None}]},
                         headers=key_auth(ann)))
    game_id = r.json["game_id"]
    again = client.post(f"/v1/games/{game_id}/seats/1/claim", json={}, headers=key_auth(ann))
    assert again.status_code == 409 and again.json["code"] == "already_seated"
    claim = done(client.post(f"/v1/games/{game_id}/seats/1/claim", json={},
                             headers=key_auth(bob)))
    assert claim.status_code == 200, claim.json
    assert claim.json["token"] is None and claim.json["name"] == "bob"
    assert client.get(f"/v1/games/{game_id}", headers=key_auth(bob)).json["you"]["seat"] == 1


def test_a_key_sees_and_acts_for_its_own_seat_only(client: FlaskClient) -> None:
    ann, bob, eve = register(client, "ann"), register(client, "bob"), register(client, "eve")
    r = done(client.post("/v1/games", json={"players": [{"account": "ann"}, {"name": None}]},
                         headers=key_auth(ann)))
    game_id = r.json["game_id"]
    done(client.post(f"/v1/games/{game_id}/seats/1/claim", json={}, headers=key_auth(bob)))
    ann_view = client.get(f"/v1/games/{game_id}", headers=key_auth(ann)).json
    bob_view = client.get(f"/v1/games/{game_id}", headers=key_auth(bob)).json
    assert ann_view["you"]["seat"] == 0 and bob_view["you"]["seat"] == 1
    assert bob_view["you"]["hand"] != ann_view["you"]["hand"]
    # an account of no seat of this game: refused on actions, a spectator nowhere
    eve_act = client.post(f"/v1/games/{game_id}/actions", json={"type": "draw",
                                                                 "source": "stock"},
                          headers=key_auth(eve))
    assert eve_act.status_code == 401
    eve_view = client.get(f"/v1/games/{game_id}", headers=key_auth(eve))
    assert eve_view.status_code == 401
    # the seat not on turn cannot act for the one on turn
    waiting = {0: bob, 1: ann}[ann_view["round"]["current_seat"]]
    off_turn = client.post(f"/v1/games/{game_id}/actions",
                           json={"type": "draw", "source": "stock"}, headers=key_auth(waiting))
    assert off_turn.status_code == 409 and off_turn.json["code"] == "not_your_turn"


def test_the_account_stream_carries_each_note_once_across_a_reconnect(
        client: FlaskClient, config: Config, redis_db: Any) -> None:
    app = create_app(replace(config, stream_max_seconds=0.5, stream_heartbeat_seconds=0.2))
    app.config["TESTING"] = True
    http = app.test_client()
    ann, bob = register(http, "ann"), register(http, "bob")
    r = done(http.post("/v1/games", json={"players": [{"account": "ann"}, {"name": None}],
                                          "rules": {"preset": "classic", "hand_sizes": [3]}},
                       headers=key_auth(ann)))
    game_id = r.json["game_id"]
    done(http.post(f"/v1/games/{game_id}/seats/1/claim", json={}, headers=key_auth(bob)))
    play_out(http, game_id, {0: ann, 1: bob})

    def notes(after: int | None = None) -> list[dict[str, Any]]:
        headers = {**NDJSON, **key_auth(ann)}
        if after is not None:
            headers["Last-Event-ID"] = str(after)
        response = http.get("/v1/me/stream", headers=headers)
        assert response.status_code == 200
        out = []
        for line in ndjson_lines(response):
            if line is None:
                continue
            if line["type"] == "end":
                break
            out.append(line["event"])
        response.close()
        return out

    everything = notes()
    kinds = [n["type"] for n in everything]
    assert kinds[0] == "game_started" and kinds[-1] == "game_finished"
    assert set(kinds[1:-1]) == {"your_turn"}
    assert [n["seq"] for n in everything] == list(range(1, len(everything) + 1))
    cut = len(everything) // 2
    assert notes(after=cut) == everything[cut:]
    assert notes(after=len(everything)) == []
    beyond = http.get("/v1/me/stream", headers={**NDJSON, **key_auth(ann),
                                                "Last-Event-ID": "999"})
    assert beyond.status_code == 422 and beyond.json["code"] == "invalid_cursor"


def test_an_account_stream_ticket_opens_one_stream_without_the_key(
        client: FlaskClient, app: Flask) -> None:
    key = register(client, "ann")
    r = client.post("/v1/me/stream-tickets", headers=key_auth(key))
    assert r.status_code == 201
    ticket = r.json["ticket"]
    assert key not in r.get_data(as_text=True)
    first = client.get(f"/v1/me/stream?ticket={ticket}", headers=NDJSON)
    assert first.status_code == 200
    first.close()
    again = client.get(f"/v1/me/stream?ticket={ticket}", headers=NDJSON)
    assert again.status_code == 401
