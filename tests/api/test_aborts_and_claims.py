"""Leaving a game that barely began, over HTTP: ``abort`` before a seat's first turn
ends the game with no result, and ``claim_victory`` after the opponent's clock ran out
twice in a row ends a two-player game with the claimer the winner; both records verify
(the ``redis_db`` fixture replays every finished game's record)."""

from __future__ import annotations

import time

import pytest
from flask.testing import FlaskClient

from service.bots import GreedyBot
from service.engine.seats import AWAY_AFTER
from tests.conftest import PATIENCE

from .conftest import new_table


def test_a_seat_that_has_not_played_aborts_the_game_and_it_ends_with_no_result(
    client: FlaskClient,
) -> None:
    table = new_table(client, seed="abort")
    first = table.view()["round"]["current_seat"]
    other = 1 - first
    assert table.view(first)["you"]["can_abort"] and table.view(other)["you"]["can_abort"]
    assert all(a["type"] != "abort" for a in table.view(first)["legal_actions"])
    assert table.act(first, {"type": "draw", "source": "stock"}).status_code == 200
    assert not table.view(first)["you"]["can_abort"]
    refused = table.act(first, {"type": "abort"})
    assert refused.status_code == 409 and refused.json["code"] == "illegal_action"
    r = table.act(other, {"type": "abort"})
    assert r.status_code == 200, r.json
    view = r.json
    assert (view["status"], view["finish_reason"], view["winners"]) == (
        "finished", "aborted", [])
    assert view["seed"] == "abort" and view["legal_actions"] == []
    assert not view["you"]["can_abort"]
    kinds = [e["type"] for e in table.events()[-2:]]
    assert kinds == ["game_aborted", "game_finished"]
    record = client.get(f"/v1/games/{table.game_id}/record").json
    assert (record["finish_reason"], record["winners"]) == ("aborted", [])
    assert record["actions"][-1] == {"seat": other, "by": "player", "type": "abort"}
    sheet = client.get(f"/v1/games/{table.game_id}/record",
                       headers={"Accept": "text/plain"}).get_data(as_text=True)
    assert "No result: the game was aborted" in sheet


def test_an_open_seat_game_cannot_be_aborted_until_every_seat_is_taken(
    client: FlaskClient,
) -> None:
    table = new_table(client, players=[{"name": "ann"}, {"name": None}])
    assert not table.view(0)["you"]["can_abort"]
    r = table.act(0, {"type": "abort"})
    assert r.status_code == 409 and r.json["code"] == "seats_open"


def test_a_malformed_claim_is_a_422_and_a_claim_against_a_present_seat_a_409(
    client: FlaskClient,
) -> None:
    table = new_table(client, seed="present")
    r = table.act(0, {"type": "claim_victory", "against": "1"})
    assert r.status_code == 422 and r.json["code"] == "invalid_action"
    r = table.act(0, {"type": "claim_victory"})
    assert r.status_code == 422 and r.json["code"] == "invalid_action"
    r = table.act(0, {"type": "claim_victory", "against": 1})
    assert r.status_code == 409 and r.json["code"] == "illegal_action"


@pytest.mark.slow
def test_after_two_time_outs_in_a_row_the_opponent_claims_the_game_which_ends_at_once(
    client: FlaskClient,
) -> None:
    # the absent seat never sends a thing; its 2 s clock runs out twice (a move worker)
    table = new_table(client, players=[{"name": "ann"}, {"name": "gone"}], turn_seconds=2,
                      rules={"preset": "classic", "hand_sizes": [5, 7, 9]}, seed="claim")
    view = table.view(0)
    deadline = time.monotonic() + PATIENCE
    while view["players"][1]["kind"] != "away":
        assert time.monotonic() < deadline, "the absent seat never went away"
        if view["legal_actions"] and not any(a["type"] == "claim_victory"
                                             for a in view["legal_actions"]):
            r = table.act(0, GreedyBot().choose(view))
            assert r.status_code == 200, r.json
            view = r.json
            continue
        view = client.get(f"/v1/games/{table.game_id}?wait_version={view['version']}"
                          "&timeout=5", headers=table.auth(0)).json
    timed_out = [e for e in table.events() if e["type"] == "turn_timed_out"]
    assert [e["seat"] for e in timed_out] == [1] * AWAY_AFTER
    view = client.get(f"/v1/games/{table.game_id}?wait=turn&timeout=5",
                      headers=table.auth(0)).json
    assert view["legal_actions"][-1] == {"type": "claim_victory", "against": 1}
    assert view["legal_actions"][0]["type"] in ("draw", "discard"), "a turn move first"
    r = table.act(0, {"type": "claim_victory", "against": 1})
    assert r.status_code == 200, r.json
    final = r.json
    assert (final["status"], final["finish_reason"], final["winners"]) == (
        "finished", "resigned", [0])
    assert final["players"][1]["kind"] == "resigned"
    assert [e["type"] for e in table.events()[-2:]] == ["victory_claimed", "game_finished"]
    record = client.get(f"/v1/games/{table.game_id}/record").json
    assert record["actions"][-1] == {"seat": 0, "by": "player", "type": "claim_victory",
                                     "against": 1}
