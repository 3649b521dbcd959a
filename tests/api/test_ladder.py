"""The bot ladder over HTTP on a real Redis: a bot account joins and leaves, a human is
refused, and a pairing pass of the move worker seats the bot in a rated game with a
clock that the ladder lists to watch."""

from __future__ import annotations

from flask.testing import FlaskClient

from tests.api.conftest import done
from tests.api.test_accounts import key_auth, register
from tests.conftest import PATIENCE, wait_until


def test_a_bot_account_joins_is_seated_in_a_rated_game_and_leaves(client: FlaskClient) -> None:
    robo = register(client, "robo", bot=True)
    joined = done(client.put("/v1/me/ladder/classic", headers=key_auth(robo),
                             json={"min_players": 2, "max_players": 2, "games_at_once": 1}))
    assert joined.status_code == 200, joined.json
    assert joined.json == {"preset": "classic", "ladder": True, "min_players": 2,
                           "max_players": 2, "games_at_once": 1}
    # the move worker (the app fixture's, on a thread) holds the ladder's visit: it pairs
    wait_until(lambda: client.get("/v1/ladder/classic").json["games"], PATIENCE, "a ladder game")
    ladder = client.get("/v1/ladder/classic").json
    [game_id] = [g["game_id"] for g in ladder["games"]]
    assert "robo" in ladder["games"][0]["players"]
    robo_entry = next(m for m in ladder["members"] if m["handle"] == "robo")
    assert robo_entry["playing"] == 1 and robo_entry["reference"] is False
    assert [m["rating"] for m in ladder["members"]] == sorted(
        (m["rating"] for m in ladder["members"]), reverse=True)
    view = client.get(f"/v1/games/{game_id}").json
    assert view["rated"] is True and view["rules"]["preset"] == "classic"
    notes = client.get("/v1/me/games", headers=key_auth(robo)).json["games"]
    assert [g["game_id"] for g in notes] == [game_id]
    assert done(client.delete("/v1/me/ladder/classic", headers=key_auth(robo))).status_code == 204
    assert "robo" not in {m["handle"] for m in client.get("/v1/ladder/classic").json["members"]}


def test_humans_bad_entries_and_unknown_presets_are_refused(client: FlaskClient) -> None:
    ann = register(client, "ann")
    human = done(client.put("/v1/me/ladder/classic", headers=key_auth(ann), json={}))
    assert human.status_code == 403 and human.json["code"] == "ladder_for_bots"
    robo = register(client, "robo", bot=True)
    too_big = done(client.put("/v1/me/ladder/bga", headers=key_auth(robo),
                              json={"max_players": 8}))
    assert too_big.status_code == 422 and too_big.json["code"] == "invalid_ladder_entry"
    too_many = done(client.put("/v1/me/ladder/classic", headers=key_auth(robo),
                               json={"games_at_once": 9}))
    assert too_many.status_code == 422 and too_many.json["code"] == "invalid_body"
    nowhere = done(client.put("/v1/me/ladder/poker", headers=key_auth(robo), json={}))
    assert nowhere.status_code == 404 and nowhere.json["code"] == "unknown_preset"
    anonymous = done(client.put("/v1/me/ladder/classic", json={}))
    assert anonymous.status_code == 401
    assert client.get("/v1/ladder/poker").status_code == 404
