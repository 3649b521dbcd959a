"""The solver against the brute-force reference (tests/solver/reference_hands.py says how
and why): plain random hands of every round, hands with four to eight wilds, and going out
under contracts."""

from __future__ import annotations

from hypothesis import given

from tests.solver.reference_hands import (
    PLAN,
    SEEDS,
    _settings,
    check_share,
    contract_hand,
    random_hand,
    run_batch,
    wild_heavy_hand,
)

#: the scenarios of reference_hands.FULL_PLAN this file compares
SCENARIOS = ("random", "wild_heavy", "contract")


@given(seed=SEEDS)
@_settings(PLAN["random"][0])
def test_random_hands_of_every_round_agree_with_the_reference(seed: int) -> None:
    run_batch("random", random_hand, seed, PLAN["random"][1])


@given(seed=SEEDS)
@_settings(PLAN["wild_heavy"][0])
def test_hands_with_four_to_eight_wilds_agree_with_the_reference(seed: int) -> None:
    run_batch("wild_heavy", wild_heavy_hand, seed, PLAN["wild_heavy"][1])


@given(seed=SEEDS)
@_settings(PLAN["contract"][0])
def test_going_out_under_contracts_agrees_with_the_reference(seed: int) -> None:
    run_batch("contract", contract_hand, seed, PLAN["contract"][1])


def test_every_hand_of_this_files_share_was_compared_and_enough_were_large() -> None:
    check_share(SCENARIOS)
