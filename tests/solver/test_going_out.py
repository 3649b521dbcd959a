"""The going-out test (``solver/going_out.py``) against the full analysis it replaces.

``go_out_cards`` runs the group search bounded at zero deadwood; ``analyze`` runs it
unbounded and reads the go-out discards off the per-card costs. Both must give the
same set on every hand: random and built hands of 3 to 14 cards under every preset,
aces rule, wild limit, minimum naturals and contract, and every drawn hand of random
full games. (``test_go_out_cards.py`` and the reference comparisons hold both to the
brute-force reference on smaller hands.) The last test checks that the bound cuts:
the bounded search takes a fraction of the full one's steps.
"""

from __future__ import annotations

import random

import pytest

from service.core.errors import SolverBudgetExceeded
from service.core.melds import context, split
from service.core.rules import resolve_rules
from service.engine import apply, new_game
from service.engine.legal import legal_actions
from service.solver import analyze, go_out_cards
from service.solver.budget import Budget
from service.solver.going_out import GoingOutSearch
from service.solver.search import GroupSearch
from tests.solver import reference_hands as hands
from tests.solver import reference_solver as ref

MAKERS = [
    hands.random_hand,
    hands.clumped_hand,
    hands.wild_heavy_hand,
    hands.duplicates_hand,
    hands.long_run_hand,
    hands.aces_hand,
    hands.greedy_trap_hand,
    hands.self_standing_hand,
    hands.contract_hand,
]


def _full_analysis(hand, wild, rules, contract) -> frozenset[int] | None:
    try:
        return frozenset(analyze(hand, wild, rules, (), contract).go_out)
    except SolverBudgetExceeded:
        return None


#: the contracts a hand without one is given
CONTRACTS = [(1, 0), (0, 1), (1, 1), (2, 0), (0, 2)]


@pytest.mark.slow
def test_the_going_out_test_is_the_full_analysis_under_contracts_on_every_kind_of_hand() -> None:
    """Every hand has a contract (its own, else one drawn). Why only those: without a
    contract, the reference comparison (``reference_hands.py``) holds both ``go_out_cards``
    and ``analyze`` to the brute-force reference on 18,500 hands of these same makers, so
    they agree with each other there; what it compares under a contract is clumped hands
    only. 1,800 hands is as many contracted ones as the 5,000 mixed hands this test drew
    before, about a third of them going out and two thirds under a wild limit."""
    rng = random.Random("going-out")
    going_out = limited = 0
    for n in range(1800):
        case = MAKERS[n % len(MAKERS)](rng)
        hand, wild, rules = list(case.hand), case.wild_rank, case.rules
        contract = case.contract if case.contract not in (None, (0, 0)) else rng.choice(CONTRACTS)
        expected = _full_analysis(hand, wild, rules, contract)
        if expected is None:
            continue  # over the step budget for analyze: nothing to compare with
        assert go_out_cards(hand, wild, rules, contract) == expected, (case.describe(), contract)
        going_out += bool(expected)
        limited += bool(rules.max_wilds_per_meld is not None or rules.min_naturals_per_meld)
    assert going_out > 400 and limited > 800, (going_out, limited)


def test_the_going_out_test_is_the_full_analysis_on_14_card_hands() -> None:
    rng = random.Random("going-out-14")
    for spec in ({"preset": "classic"}, {"preset": "bga"}, {"preset": "family"},
                 {"preset": "bga", "max_wilds_per_meld": 1, "aces": "wrap"}):
        rules = resolve_rules(spec)
        shoe = list(range(52)) * 2 + [ref.JOKER_CARD] * rules.jokers
        for _ in range(60):
            hand = rng.sample(shoe, 14)
            contract = rng.choice([None, (1, 1), (0, 2)])
            assert go_out_cards(hand, 13, rules, contract) == _full_analysis(hand, 13, rules, contract)


GAME_SPECS = [
    {"preset": "classic"},
    {"preset": "bga"},
    {"preset": "family"},
    {"preset": "classic", "aces": "wrap", "max_wilds_per_meld": 1},
    {"preset": "bga", "min_naturals_per_meld": 2},
    {"preset": "classic", "contracts": [None] * 4 + [{"sets": 1, "runs": 1}] * 7},
]


@pytest.mark.slow
@pytest.mark.parametrize("spec", GAME_SPECS, ids=lambda s: "-".join(map(str, s.values()))[:40])
def test_every_drawn_hand_of_random_full_games_goes_out_as_the_full_analysis_says(spec: dict) -> None:
    """Every listed ``go_out`` after a draw is one of ``analyze``'s, and every one of
    ``analyze``'s is listed; a game goes out as soon as it can half of the time, so
    rounds end both ways. One game per rules: its 11 rounds give every hand size and
    between 800 and 2,500 drawn hands (a second game, as this test once played, only
    repeated the same sizes)."""
    rules = resolve_rules(spec)
    rng = random.Random(str(spec))
    compared = listed_any = 0
    state = new_game(rules, ["a", "b", "c"], "going-out-0")
    while state.status != "finished":
        seat = state.current_seat
        legal = legal_actions(state, seat)
        if state.phase == "discard":
            hand = state.hands[seat]
            listed = {a["discard"] for a in legal if a["type"] == "go_out"}
            expected = analyze(hand, state.wild_rank, rules, (), state.contract).go_out
            assert listed == {ref.card_text(c) for c in expected}, ref.cards_text(hand)
            compared += 1
            listed_any += bool(listed)
        go = [a for a in legal if a["type"] == "go_out"]
        action = go[0] if go and rng.random() < 0.5 else rng.choice(legal)
        state, _ = apply(state, seat, action)
    assert state.round_index == len(rules.hand_sizes) - 1  # every round was played
    assert compared > 500 and listed_any > 5, (compared, listed_any)


def _steps(search_class, hand, wild, rules) -> int:
    ctx = context(rules, wild)
    naturals, wild_rank_cards, jokers = split(hand, ctx.wild_rank)
    budget = Budget(None)
    search = search_class(ctx, naturals, wild_rank_cards, jokers, [], None, budget)
    state = search.start(naturals)
    if search_class is GoingOutSearch:
        search.zeros(state)
    else:
        search.best(state)
    return budget.steps


def test_the_bound_of_zero_deadwood_cuts_most_of_the_search() -> None:
    rules = resolve_rules({"preset": "classic"})
    rng = random.Random("cut")
    hands_14 = [rng.sample(list(range(52)) * 2, 14) for _ in range(100)]
    bounded = sum(_steps(GoingOutSearch, h, 13, rules) for h in hands_14)
    full = sum(_steps(GroupSearch, h, 13, rules) for h in hands_14)
    assert bounded < full / 3, (bounded, full)
