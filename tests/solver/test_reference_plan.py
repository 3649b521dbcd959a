"""The plan of the solver's comparison with the brute-force reference, split over three
files (tests/solver/reference_hands.py): together they compare every scenario once, at
least 20,000 hands, at least 500 of them with 12-14 cards, as each file's last test
checks of its own share."""

from __future__ import annotations

from collections import Counter

from tests.solver import (
    test_reference_clumped_hands,
    test_reference_plain_and_wild_hands,
    test_reference_runs_and_lay_offs,
)
from tests.solver.reference_hands import FULL_PLAN, FULL_VOLUME, LARGE_AT_LEAST

FILES = (test_reference_clumped_hands, test_reference_plain_and_wild_hands,
         test_reference_runs_and_lay_offs)


def test_the_files_compare_every_scenario_of_the_plan_once() -> None:
    compared = Counter(name for module in FILES for name in module.SCENARIOS)
    assert set(compared) == set(FULL_PLAN) == set(LARGE_AT_LEAST)
    assert set(compared.values()) == {1}


def test_the_plan_compares_twenty_thousand_hands_and_five_hundred_large_ones() -> None:
    assert FULL_VOLUME == 20_000
    assert sum(examples * batch for examples, batch in FULL_PLAN.values()) >= FULL_VOLUME
    assert sum(LARGE_AT_LEAST.values()) >= 500
