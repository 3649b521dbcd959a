"""``POST /v1/games/{id}/seats/{seat}/claim`` for seats the game does not have: every such
path is the service's own ``404 unknown_seat`` problem, never the router's generic 404."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from .conftest import new_table


@pytest.mark.parametrize("seat", ["2", "7", "9", "999", "1000", "-1", "x", "1.5", "%E2%91%A0"])
def test_a_seat_the_game_lacks_is_a_problem_json_404_unknown_seat(
    client: FlaskClient, seat: str
) -> None:
    table = new_table(client, players=[{"name": "ann"}, {"name": None}])
    r = client.post(f"/v1/games/{table.game_id}/seats/{seat}/claim", json={"name": "eve"})
    assert r.status_code == 404
    assert r.mimetype == "application/problem+json"
    assert r.json["code"] == "unknown_seat"


def test_an_open_seat_is_still_claimed_by_its_number(client: FlaskClient) -> None:
    table = new_table(client, players=[{"name": "ann"}, {"name": None}])
    r = client.post(f"/v1/games/{table.game_id}/seats/1/claim", json={"name": "eve"})
    assert r.status_code == 200
    assert r.json["seat"] == 1 and r.json["state"]["you"]["seat"] == 1
