"""The lay-off search stays small on the tables a real game builds, and stays exact.

Each table meld a lay-off uses is remembered by the search state, so positions with
many table melds (the last final turns of a round) used to need hundreds of
thousands of steps. The positions below come from random full games with
``lay_off`` on; each is solved inside the normal step budget and agrees with the
brute-force reference.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from service.core.cards import parse_cards
from service.core.melds import context
from service.core.rules import resolve_rules
from service.solver import STEP_BUDGET, analyze, solve
from service.solver.analysis import _search
from service.solver.budget import Budget
from service.solver.table import LayOffTarget
from tests.solver import reference_solver as ref


@dataclass(frozen=True)
class Position:
    spec: dict
    wild_rank: int
    hand: str
    table: tuple[str, ...]

    def cards(self) -> tuple[list[int], list[list[int]]]:
        return parse_cards(self.hand.split()), [parse_cards(m.split()) for m in self.table]


#: family, kings wild, 13 table melds: 671 000 steps when wild-rank cards were tried
#: as themselves onto every table meld (family has no wild limit per meld)
FAMILY_KINGS = Position(
    {"preset": "family", "lay_off": True},
    13,
    "2S 7S JS AH 2H 9H TH KH JD KD 3C 7C KC",
    (
        "AH 2H 3H 4H", "3S 3C KH", "4D 5D 6D 7D 2D 3D", "7H 8H 9H", "5S 5S 5D 5H",
        "5C 6C 7C 4C", "QH QD KC", "3S 3S 3D", "8C 9C TC", "TC KS QC", "AC KD 3C 4C 5C",
        "3H 4H 5H", "7H 7D KS",
    ),
)  # fmt: skip

#: family (Six-Fourteen), aces wild, 22 table melds: 337 000 steps before
FAMILY_ACES = Position(
    {"preset": "family", "lay_off": True, "hand_sizes": list(range(6, 15))},
    1,
    "AS JS 9H 9H JH KH 2D 6D 8D 9D JD AC 9C KC",
    (
        "2H AC 4H AH 6H 5H 7H", "TS TH TD", "QH QH AS QD QC", "KS KS KD KS", "2C 3C 4C",
        "4S 4H 4C 4D", "8C 9C TC", "KH KD KD", "4H 5H 6H 7H", "5D 5D AH", "7D 7D 7D",
        "JH JD JC", "6S 6S 6S 6C", "7C 7C 7C", "9S 9S 9D 9C 9D", "3H AD AS", "5S 5D 5C",
        "JH JC JC", "2H 2C AC", "5S 5S 5C", "9S AD JS", "TH TD TC",
    ),
)  # fmt: skip

#: classic with 8 jokers, aces wild, 20 table melds: 34 000 steps while table melds no
#: card left could go onto (the sets of ranks already passed) still split the states
CLASSIC_JOKERS = Position(
    {"preset": "classic", "jokers": 8, "lay_off": True, "hand_sizes": list(range(6, 15))},
    1,
    "5S 9S 9S KS 2H 9H KH 2D 2D 3D AC 7C 9C JK",
    (
        "4S 4H 4H 4C 4D", "6S 6H 6H 6D 6C 6H 6S 6C", "9S 9D AD 9C 9C", "JH JC AS JD JC",
        "2D AC AD 2H 2C 2S 2S 2C", "8H 8H 8D 8C 8S", "TS JS AH", "QD AS JK QC QC QH QD",
        "5S 5H AS 5D", "3D JK JK 6D", "7H 8H 9H TH", "3H 3D 3C 3S 3S", "9H 9D 9D",
        "TS TS AC TH TC TH", "QH QH QC", "6S 7S JK", "JD QD KD TD", "3S 4S AD",
        "5H 5D 5C 5C", "6C 7C AH JK TC",
    ),
)  # fmt: skip

#: family, aces wrapping, aces wild: 23 000 steps while each lay-off onto a run tried
#: one wild count after another instead of the fewest that fit
FAMILY_WRAP = Position(
    {"preset": "family", "lay_off": True, "aces": "wrap", "hand_sizes": list(range(6, 15))},
    1,
    "QS 2H 3H 4H AD 3D 4D 4D 6D 8D QD AC 2C 5C",
    ("5S 5H 5D AC 5S", "7S 7H 7C 7S 7D", "JD AH KD AD 9D", "QH QC AS", "2D 2D 2C", "8H 8H 8H"),
)

POSITIONS = {
    "family, kings wild": FAMILY_KINGS,
    "family, aces wild": FAMILY_ACES,
    "classic, 8 jokers": CLASSIC_JOKERS,
    "family, aces wrap": FAMILY_WRAP,
}


def _steps(position: Position) -> int:
    rules = resolve_rules(position.spec)
    hand, table = position.cards()
    budget = Budget(None)
    search, state = _search(context(rules, position.wild_rank), hand, table, None, budget)
    search.best(state)
    return budget.steps


@pytest.mark.parametrize("name", POSITIONS)
def test_a_final_turn_onto_many_table_melds_is_solved_inside_the_budget(name: str) -> None:
    assert _steps(POSITIONS[name]) <= STEP_BUDGET


@pytest.mark.parametrize("name", POSITIONS)
def test_a_final_turn_onto_many_table_melds_agrees_with_the_reference(name: str) -> None:
    position = POSITIONS[name]
    rules = resolve_rules(position.spec)
    hand, table = position.cards()
    got = solve(hand, position.wild_rank, rules, table)
    want = ref.analyze(hand, position.wild_rank, rules, table)
    assert got.penalty == want.penalty
    assert ref.arrangement_problems(hand, got, position.wild_rank, rules, table, want.penalty) == []


# -- found by the reference comparison under other seeds -------------------------------------


def test_a_table_run_whose_wild_rank_card_may_stand_for_itself_takes_one_more_wild() -> None:
    """6D 8D 9D TD JD with sixes wild and one wild per meld: read with 6D as a wild it
    is full, but 6D may stand for itself, so a wild fits as the 7D (6D 7D 8D 9D TD JD,
    one wild). The hand's 6S goes there: penalty 0, as the reference finds."""
    spec = {"preset": "bga", "lay_off": True, "max_wilds_per_meld": 1}
    rules = resolve_rules(spec)
    table = [parse_cards(["6D", "8D", "9D", "TD", "JD"])]
    assert LayOffTarget(context(rules, 6), table[0]).spare == 1
    hand = parse_cards(["6S"])
    got = solve(hand, 6, rules, table)
    want = ref.analyze(hand, 6, rules, table)
    assert got.penalty == want.penalty == 0
    assert ref.arrangement_problems(hand, got, 6, rules, table, 0) == []


@dataclass(frozen=True)
class ContractPosition(Position):
    contract: tuple[int, int] = (0, 0)


#: Going-out tests under a contract that went past the budget (20 000 steps, in the
#: lay-off enumeration: every subset of the suit's held cards, each card twice under
#: ``wrap``, tried and filtered; 28 000 to 102 000 steps).
CONTRACT_POSITIONS = {
    "classic, aces wrap, onto a run": ContractPosition(
        {"ace_penalty": 15, "aces": "wrap", "lay_off": True, "preset": "classic"},
        13,
        "QH 2H 9H 2H QH TH 2H KH AH KH JH QH 2H 9H",
        ("3H 4H 5H 6H 7H",),
        (0, 0),
    ),
    "bga, aces wrap, one wild per meld, onto wilds only": ContractPosition(
        {"aces": "wrap", "lay_off": True, "max_wilds_per_meld": 1, "preset": "bga"},
        5,
        "7H 6H JK 7H 5S 8H 9H 4H 7H 5H 4H 3H 3H",
        ("5S 5H 5C 5C JK",),
        (1, 1),
    ),
    "bga, aces wrap, no wild per meld, onto a wrapping run": ContractPosition(
        {"aces": "wrap", "lay_off": True, "max_wilds_per_meld": 0, "preset": "bga"},
        12,
        "9D QD JK 3D 5D 6D 4D 3D 4D 4D 4D 7D 5D",
        ("QD KD AD",),
        (2, 1),
    ),
    "bga, aces wrap, one natural per meld, onto wild-rank aces": ContractPosition(
        {"aces": "wrap", "lay_off": True, "min_naturals_per_meld": 1, "preset": "bga"},
        1,
        "6H 6H 4H 7H 2H AH 6H 5H 7H 3H 7H 4H 4H AH",
        ("AS AD AS AC AH",),
        (1, 2),
    ),
    "family, 4 jokers, onto wild-rank kings": ContractPosition(
        {"jokers": 4, "lay_off": True, "preset": "family"},
        13,
        "9H QH KS 9S 8S JK 8H 9S QS 8S 8H KH TH KH",
        ("KH KS KS KC KC",),
        (2, 0),
    ),
}


@pytest.mark.parametrize("name", CONTRACT_POSITIONS)
def test_a_going_out_test_under_a_contract_is_inside_the_budget_and_agrees(name: str) -> None:
    position = CONTRACT_POSITIONS[name]
    rules = resolve_rules(position.spec)
    hand, table = position.cards()
    got = analyze(hand, position.wild_rank, rules, table, position.contract)  # default budget
    want = ref.analyze(hand, position.wild_rank, rules, table, position.contract)
    assert (got.penalty, frozenset(got.go_out)) == (want.penalty, want.go_out)
