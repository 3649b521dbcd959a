"""``POST /v1/solve`` cannot hold a worker: at most 12 table melds, and a step budget."""

from __future__ import annotations

from flask.testing import FlaskClient

from service.core.cards import card_names, make_card
from tests.solver.test_budget import _review_request


def test_more_than_twelve_table_melds_are_422(client: FlaskClient) -> None:
    hand, table = _review_request()
    body = {"hand": card_names(hand), "wild_rank": "K", "rules": {"preset": "classic", "lay_off": True},
            "table": [card_names(m) for m in table]}
    r = client.post("/v1/solve", json=body)
    assert r.status_code == 422
    r = client.post("/v1/solve", json={**body, "table": body["table"][:12]})
    assert r.status_code in (200, 422)


def test_a_hand_past_the_step_budget_is_422_solve_too_complex(client: FlaskClient) -> None:
    # 30 cards of one suit (three of each rank but K), kings wild, aces wrapping: the
    # runs overlap every way round the corner (the review's lay-off request is now
    # solved inside the budget, see tests/solver/test_lay_off_search.py)
    one_suit = [make_card(rank, 0) for rank in range(1, 14)] * 3
    body = {"hand": card_names(one_suit[:30]), "wild_rank": "K", "rules": {"aces": "wrap"}}
    r = client.post("/v1/solve", json=body)
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["code"] == "solve_too_complex"
