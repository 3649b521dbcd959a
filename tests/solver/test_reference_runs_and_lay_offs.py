"""The solver against the brute-force reference (tests/solver/reference_hands.py says how
and why): long runs, a wild-rank card standing for itself under wild limits, and lay-offs
onto table melds."""

from __future__ import annotations

from hypothesis import given

from tests.solver.reference_hands import (
    PLAN,
    SEEDS,
    _settings,
    check_share,
    lay_off_hand,
    long_run_hand,
    run_batch,
    self_standing_hand,
)

#: the scenarios of reference_hands.FULL_PLAN this file compares
SCENARIOS = ("long_run", "self_standing", "lay_off")


@given(seed=SEEDS)
@_settings(PLAN["long_run"][0])
def test_hands_with_long_runs_agree_with_the_reference(seed: int) -> None:
    run_batch("long_run", long_run_hand, seed, PLAN["long_run"][1])


@given(seed=SEEDS)
@_settings(PLAN["self_standing"][0])
def test_a_wild_rank_card_standing_for_itself_under_wild_limits_agrees(seed: int) -> None:
    run_batch("self_standing", self_standing_hand, seed, PLAN["self_standing"][1])


@given(seed=SEEDS)
@_settings(PLAN["lay_off"][0])
def test_lay_offs_onto_table_melds_agree_with_the_reference(seed: int) -> None:
    run_batch("lay_off", lay_off_hand, seed, PLAN["lay_off"][1])


def test_every_hand_of_this_files_share_was_compared_and_enough_were_large() -> None:
    check_share(SCENARIOS)
