"""The solver against the brute-force reference (tests/solver/reference_hands.py says how
and why): hands full of overlapping melds, many duplicates, aces at both ends of the suit
and the greedy trap; and the reference's own meld validator and meld enumeration."""

from __future__ import annotations

import random

from hypothesis import given

from service.core.melds import meld_kinds
from tests.solver import reference_solver as ref
from tests.solver.reference_hands import (
    PLAN,
    SEEDS,
    _clump_pool,
    _settings,
    _wild_pool,
    aces_hand,
    check_share,
    clumped_hand,
    duplicates_hand,
    greedy_trap_hand,
    make_rules,
    random_spec,
    run_batch,
    shoe,
    wild_heavy_hand,
)

#: the scenarios of reference_hands.FULL_PLAN this file compares
SCENARIOS = ("clumped", "duplicates", "aces", "greedy_trap")


@given(seed=SEEDS)
@_settings(PLAN["clumped"][0])
def test_hands_full_of_overlapping_melds_agree_with_the_reference(seed: int) -> None:
    run_batch("clumped", clumped_hand, seed, PLAN["clumped"][1])


@given(seed=SEEDS)
@_settings(PLAN["duplicates"][0])
def test_hands_with_many_duplicate_cards_agree_with_the_reference(seed: int) -> None:
    run_batch("duplicates", duplicates_hand, seed, PLAN["duplicates"][1])


@given(seed=SEEDS)
@_settings(PLAN["aces"][0])
def test_hands_with_aces_at_both_ends_agree_under_every_aces_mode(seed: int) -> None:
    run_batch("aces", aces_hand, seed, PLAN["aces"][1])


@given(seed=SEEDS)
@_settings(PLAN["greedy_trap"][0])
def test_hands_where_the_longest_meld_first_is_wrong_agree_with_the_reference(seed: int) -> None:
    run_batch("greedy_trap", greedy_trap_hand, seed, PLAN["greedy_trap"][1])


# -- meld_kinds -------------------------------------------------------------------------------


@given(seed=SEEDS)
@_settings(40)
def test_meld_kinds_agrees_with_the_reference_validator_on_small_groups(seed: int) -> None:
    """``meld_kinds`` on random groups of 2-7 cards (often nearly melds) under random rules."""
    rng = random.Random(seed)
    for _ in range(100):
        spec, rules = make_rules(random_spec(rng))
        wild = rng.choice([None, *range(1, 14)])
        full = shoe(rng, rules)
        pool = _clump_pool(rng, full) + _wild_pool(full, wild)
        cards = [rng.choice(pool) for _ in range(rng.randint(2, 7))]
        got = frozenset(meld_kinds(cards, wild, rules))
        want = ref.meld_kinds(cards, wild, rules)
        assert got == want, f"{dict(spec)} wild {wild}: {ref.cards_text(cards)}"


def test_the_pruned_meld_enumeration_of_the_reference_misses_no_meld() -> None:
    """The reference prunes its subset search; this checks it against all 2^n subsets."""
    rng = random.Random(2024)
    for _ in range(300):
        case = rng.choice([clumped_hand, wild_heavy_hand, duplicates_hand, aces_hand])(rng)
        cards = list(case.hand[:9])
        pruned = sorted(ref._meld_masks(cards, case.wild_rank, case.rules))
        every = sorted(ref._meld_masks_exhaustive(cards, case.wild_rank, case.rules))
        assert pruned == every, case.describe()


def test_every_hand_of_this_files_share_was_compared_and_enough_were_large() -> None:
    check_share(SCENARIOS)
