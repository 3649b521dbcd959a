"""A game's own positions get the game's budget: a legal position is never refused."""

from __future__ import annotations

import pytest

from service import solver
from service.core.cards import parse_card, parse_rank
from service.core.errors import SolverBudgetExceeded
from service.core.rules import resolve_rules

#: 14 spades and a joker (bga, aces wrapping, one natural per meld): past the API's budget
SPADES = "3S KS 5S QS 6S AS 9S JK 4S TS 7S 8S 2S JS"


def test_a_hand_past_the_apis_budget_is_still_solved_with_the_games_budget() -> None:
    rules = resolve_rules({"preset": "bga", "aces": "wrap", "min_naturals_per_meld": 1})
    hand = [parse_card(c) for c in SPADES.split()]
    with pytest.raises(SolverBudgetExceeded):
        solver.analyze(hand, parse_rank("A"), rules)
    analysis = solver.analyze(hand, parse_rank("A"), rules, steps=solver.GAME_STEP_BUDGET)
    assert analysis.penalty == 0
    assert solver.go_out_cards(hand, parse_rank("A"), rules,
                               steps=solver.GAME_STEP_BUDGET) == frozenset(analysis.go_out)
