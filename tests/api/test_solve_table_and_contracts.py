"""``POST /v1/solve`` refuses what it cannot honour: a table meld that is not a meld under
the rules and wild rank, and rules whose contracts no hand of their round can meet; game
creation refuses those rules too."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient


def solve(client: FlaskClient, **body: object):
    return client.post("/v1/solve", json=body)


@pytest.mark.parametrize(
    ("table", "bad"),
    [
        ([["7H", "8H", "9H"], ["2C", "5D", "9S"]], 1),  # neither a set nor a run
        ([["7H", "8H"]], 0),  # two cards
        ([[]], 0),
        ([["7H", "8H", "9H"], ["KS", "AS", "2S"]], 1),  # K-A-2 only under aces "wrap"
    ],
)
def test_an_invalid_table_meld_is_422_naming_its_index_and_cards(
    client: FlaskClient, table: list[list[str]], bad: int
) -> None:
    r = solve(client, hand=["TH", "2C"], wild_rank="3", table=table, rules={"lay_off": True})
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    assert r.json["code"] == "invalid_body"
    assert r.json["meld"] == bad and r.json["cards"] == table[bad]
    assert list(r.json["errors"]["table"]) == [str(bad)]


def test_table_melds_are_judged_under_the_requests_rules_and_wild_rank(client: FlaskClient) -> None:
    wrap = solve(client, hand=["QS"], wild_rank="3", table=[["KS", "AS", "2S"]],
                 rules={"lay_off": True, "aces": "wrap"})
    assert wrap.status_code == 200 and wrap.json["layoffs"] == [{"meld": 0, "cards": ["QS"]}]
    wild = solve(client, hand=["2C"], wild_rank="9", table=[["7H", "9S", "9D"]],
                 rules={"lay_off": True})
    assert wild.status_code == 200
    round_wild = solve(client, hand=["2C"], round=7, table=[["7H", "9S", "9D"]],
                       rules={"lay_off": True})  # round 7 deals 9: nines are wild
    assert round_wild.status_code == 200
    tame = solve(client, hand=["2C"], round=6, table=[["7H", "9S", "9D"]],
                 rules={"lay_off": True})
    assert tame.status_code == 422 and tame.json["meld"] == 0


@pytest.mark.parametrize(
    "rules",
    [
        {"hand_sizes": [3], "contracts": [{"sets": 5, "runs": 5}]},
        {"contracts": [{"sets": 2}, *[None] * 10]},
        {"preset": "bga", "hand_sizes": [6, 9], "contracts": [None, {"sets": 2, "runs": 2}]},
    ],
)
def test_rules_with_a_contract_no_hand_can_meet_are_422_invalid_rules(
    client: FlaskClient, rules: dict[str, object]
) -> None:
    r = solve(client, hand=["7H", "7S", "7D", "2C"], round=1, rules=rules)
    assert (r.status_code, r.json["code"], r.json["option"]) == (422, "invalid_rules", "contracts")
    created = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}],
                                             "rules": rules})
    assert created.status_code == 422 and created.json["code"] == "invalid_rules"
    assert created.json["option"] == "contracts"
