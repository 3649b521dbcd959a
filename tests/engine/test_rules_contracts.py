"""Contracts (docs/rules.md): a contract that the round's hand cannot hold is refused
when the rules are resolved, since a game under it could never finish its round."""

from __future__ import annotations

import pytest

from service.core.errors import InvalidRulesError
from service.core.rules import resolve_rules


@pytest.mark.parametrize(
    ("hand_sizes", "contract"),
    [
        ([3], {"sets": 5, "runs": 5}),
        ([3], {"sets": 2}),
        ([5], {"sets": 1, "runs": 1}),
        ([8], {"runs": 3}),
    ],
)
def test_a_contract_needing_more_cards_than_the_round_deals_is_invalid_rules(
    hand_sizes: list[int], contract: dict[str, int]
) -> None:
    with pytest.raises(InvalidRulesError) as refused:
        resolve_rules({"hand_sizes": hand_sizes, "contracts": [contract]})
    assert refused.value.details["option"] == "contracts"
    assert "round 1" in refused.value.message


def test_the_round_1_contract_of_two_sets_is_refused_in_an_eleven_round_game() -> None:
    contracts = [{"sets": 2}, *[None] * 10]
    with pytest.raises(InvalidRulesError, match="round 1"):
        resolve_rules({"contracts": contracts})


def test_a_contract_that_exactly_fills_the_melded_cards_is_accepted() -> None:
    # round 1 deals 3: one set of 3 (the fourth card is discarded); round 4 deals 6: two melds
    contracts = [{"sets": 1}, None, None, {"sets": 1, "runs": 1}, *[None] * 7]
    rules = resolve_rules({"contracts": contracts})
    assert rules.contract(0) == (1, 0) and rules.contract(3) == (1, 1)
