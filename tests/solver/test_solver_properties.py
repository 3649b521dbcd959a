"""Properties of the solver that the reference comparison does not cover.

The result depends on the hand as a multiset only; hands larger than 30 cards are
refused; and the inputs built to make a search run away (all wilds, 30 cards of
one suit, many identical cards) still give exact answers that are easy to state.
Speed is measured in ``make bench-solve``, never here.
"""

from __future__ import annotations

import random

import pytest

from service.core.cards import JOKER, make_card
from service.core.rules import resolve_rules
from service.solver import MAX_HAND, analyze, solve

CLASSIC = resolve_rules({"preset": "classic"})
KING = 13


def _signature(result):
    return (
        result.penalty,
        result.best.melds,
        result.best.deadwood,
        result.discards,
        {card: (a.melds, a.deadwood) for card, a in result.go_out.items()},
    )


@pytest.mark.parametrize("seed", range(40))
def test_the_result_does_not_depend_on_the_order_of_the_hand(seed: int) -> None:
    rng = random.Random(seed)
    shoe = list(range(52)) * 2 + [JOKER] * 2
    hand = rng.sample(shoe, rng.randint(3, 14))
    rules = resolve_rules({"preset": rng.choice(["classic", "bga", "family"])})
    wild = rng.choice([None, *range(1, 14)])
    shuffled = list(hand)
    rng.shuffle(shuffled)
    assert _signature(analyze(hand, wild, rules)) == _signature(analyze(shuffled, wild, rules))


def test_a_hand_of_more_than_thirty_cards_is_refused() -> None:
    with pytest.raises(ValueError, match="at most 30"):
        analyze([make_card(7, 0)] * (MAX_HAND + 1), KING, CLASSIC)


def test_thirty_wilds_meld_completely() -> None:
    kings = [make_card(KING, s) for s in range(4)]
    result = analyze((kings * 8)[:30], KING, CLASSIC)
    assert result.penalty == 0
    assert set(result.go_out) == set(kings)


def test_thirty_printed_jokers_cannot_meld_when_a_meld_may_hold_one_wild() -> None:
    rules = resolve_rules({"preset": "bga", "max_wilds_per_meld": 1})
    result = analyze([JOKER] * 30, None, rules)
    assert result.penalty == 30 * rules.joker_penalty
    assert result.go_out == {}


@pytest.mark.parametrize("aces", ["low", "high", "both", "wrap"])
def test_thirty_cards_of_one_suit_meld_completely_under_every_aces_mode(aces: str) -> None:
    rules = resolve_rules({"aces": aces})
    hand = ([make_card(r, 0) for r in range(1, 14)] * 3)[:30]
    result = analyze(hand, KING, rules, steps=None)  # exactness, not the budget, is the point
    assert result.penalty == 0
    assert all(penalty == 0 for _card, penalty in result.discards)


def test_eight_identical_cards_are_one_set_and_any_of_them_can_be_discarded() -> None:
    seven = make_card(7, 1)
    result = analyze([seven] * 8, KING, CLASSIC)
    assert result.penalty == 0
    assert list(result.go_out) == [seven]
    assert solve([seven] * 2, KING, CLASSIC).penalty == 14
