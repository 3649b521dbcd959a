"""The solver's work is bounded by a step budget, deterministically.

The outside review's request (30 cards, a wild rank, ``lay_off`` and 39 table melds)
took 85 s of CPU; it is now refused after ``STEP_BUDGET`` steps, the same way every
time. Hands of the size a game deals are solved well inside the budget.
"""

from __future__ import annotations

import random

import pytest

from service.core.cards import JOKER, make_card, parse_cards
from service.core.errors import EngineError, SolverBudgetExceeded
from service.core.melds import context
from service.core.rules import resolve_rules
from service.solver import STEP_BUDGET, analyze
from service.solver.analysis import _search
from service.solver.budget import Budget
from tests.solver import reference_solver

KING = 13
LAY_OFF = resolve_rules({"preset": "classic", "lay_off": True})


def _review_request() -> tuple[list[int], list[list[int]]]:
    """30 cards of three decks and 39 valid table melds (runs and sets of every rank)."""
    rng = random.Random(85)
    hand = rng.sample(list(range(52)) * 3, 30)
    table = [[make_card(r, s) for r in range(start, start + 3)] for s in range(4) for start in (1, 4, 7, 10)]
    table += [[make_card(r, s) for s in range(3)] for r in range(1, 13)]
    table += [[make_card(r, 0), make_card(r, 1), JOKER] for r in range(1, 12)]
    return hand, table[:39]


def test_the_review_request_is_refused_after_the_budget_with_its_own_code() -> None:
    hand, table = _review_request()
    with pytest.raises(SolverBudgetExceeded) as refused:
        analyze(hand, KING, LAY_OFF, table)
    assert isinstance(refused.value, EngineError)
    assert refused.value.code == "solve_too_complex"


def test_the_refusal_comes_at_the_same_step_every_time() -> None:
    hand, table = _review_request()
    counts = []
    for _ in range(2):
        budget = Budget()
        with pytest.raises(SolverBudgetExceeded):
            _run(hand, table, budget)
        counts.append(budget.steps)
    assert counts[0] == counts[1] and STEP_BUDGET < counts[0] <= STEP_BUDGET + 100


def _run(hand: list[int], table: list[list[int]], budget: Budget) -> None:
    search, state = _search(context(LAY_OFF, KING), hand, table, None, budget)
    search.best(state)


@pytest.mark.parametrize("preset", ["classic", "bga", "family"])
def test_hands_after_the_draw_of_the_largest_round_stay_well_inside_the_budget(preset: str) -> None:
    """15 cards (a 14-card round after drawing) with up to 8 wilds, 200 hands each."""
    rules = resolve_rules({"preset": preset, "jokers": 8})
    rng = random.Random(preset)
    for _ in range(200):
        hand = rng.sample(list(range(52)) * 3 + [JOKER] * 8, 15)
        assert analyze(hand, 1, rules, steps=STEP_BUDGET // 4) is not None


def test_a_budget_of_none_is_unbounded() -> None:
    budget = Budget(None)
    budget.spend(10 * STEP_BUDGET)
    assert budget.steps == 10 * STEP_BUDGET


#: contract hands from the reference comparison that took 21 600 and 50 700 steps while
#: every go-out candidate had a contract search of its own
CONTRACT_HANDS = [
    (
        {"preset": "family", "aces": "high", "max_wilds_per_meld": 3, "min_naturals_per_meld": 1},
        "A",
        "QS KD KS AD AS QD KD KD AD KS JS JD QD AD",
        [],
        (0, 2),
    ),
    (
        {"preset": "bga", "aces": "both", "lay_off": True, "max_wilds_per_meld": 3},
        "Q",
        "JC JH AH KH QC QH QH AC AH KH KC AH",
        ["QH QC QS"],
        (2, 0),
    ),
]


@pytest.mark.parametrize("spec, wild, hand, table, contract", CONTRACT_HANDS)
def test_going_out_under_a_contract_is_decided_inside_the_budget(spec, wild, hand, table, contract) -> None:
    rules = resolve_rules(spec)
    cards = parse_cards(hand.split())
    melds = [parse_cards(m.split()) for m in table]
    wild_rank = reference_solver.parse_rank_char(wild)
    got = analyze(cards, wild_rank, rules, melds, contract)
    want = reference_solver.analyze(cards, wild_rank, rules, melds, contract)
    assert frozenset(got.go_out) == want.go_out
