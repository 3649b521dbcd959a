"""The quick going-out test (``deadwood_bound``) never rules out a hand that can go out.

``legal_actions`` trusts a ``False`` from :func:`may_go_out` without asking the
solver, so a single unsound answer would hide a legal ``go_out``. These tests
compare it with the solver on hands built to go out (every option that changes
melds: aces modes, wild limits, minimum naturals, jokers, duplicates), on random
hands, and check the lower bound against the solver's own arrangements.
"""

from __future__ import annotations

import random

import pytest

from service.engine.cards import JOKER, make_card
from service.engine.deadwood_bound import deadwood_lower_bound, may_go_out
from service.engine.rules import resolve_rules
from service.engine.solver import analyze

OPTION_SETS = [
    {"preset": "classic"},
    {"preset": "classic", "aces": "high"},
    {"preset": "classic", "aces": "both"},
    {"preset": "classic", "aces": "wrap"},
    {"preset": "bga"},
    {"preset": "bga", "aces": "wrap", "max_wilds_per_meld": 1},
    {"preset": "family"},
    {"preset": "classic", "min_naturals_per_meld": 2},
]


def _melded_hand(rng: random.Random, rules, wild: int, size: int) -> list[int]:
    """A hand of ``size`` cards that is mostly melds: runs and sets of random cards,
    wilds sprinkled in, then filler; many of these can go out, some nearly."""
    hand: list[int] = []
    while len(hand) < size:
        kind = rng.random()
        if kind < 0.4:
            suit, start = rng.randrange(4), rng.randint(1, 11)
            length = rng.randint(3, 5)
            hand += [make_card((start + k - 1) % 13 + 1, suit) for k in range(length)]
        elif kind < 0.7:
            rank = rng.randint(1, 13)
            hand += [make_card(rank, rng.randrange(4)) for _ in range(rng.randint(3, 4))]
        elif kind < 0.85:
            hand.append(JOKER if rules.jokers and rng.random() < 0.5
                        else make_card(wild, rng.randrange(4)))
        else:
            hand.append(rng.randrange(52))
    hand = hand[:size]
    if rng.random() < 0.5:  # knock a card out of a meld: nearly going out
        hand[rng.randrange(size)] = rng.randrange(52)
    return hand


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(map(str, o.values())))
def test_a_hand_that_can_go_out_is_never_ruled_out(options: dict) -> None:
    rules = resolve_rules(options)
    rng = random.Random(str(options))
    can, ruled_out = 0, 0
    for _ in range(700):
        size = rng.choice([4, 5, 7, 9, 11, 12, 14])
        wild = rng.choice([size - 1 if size <= 14 else 1, rng.randint(1, 13)])
        hand = (_melded_hand(rng, rules, wild, size) if rng.random() < 0.7
                else rng.sample(list(range(52)) * 2 + [JOKER] * rules.jokers, size))
        goes_out = bool(analyze(hand, wild, rules).go_out)
        quick = may_go_out(hand, wild)
        can += goes_out
        ruled_out += not quick
        assert quick or not goes_out, (hand, wild)
    assert can > 100 and ruled_out > 100  # both kinds of hand were really tried


def test_the_bound_never_exceeds_the_deadwood_of_an_optimal_arrangement() -> None:
    rng = random.Random(11)
    for _ in range(1500):
        options = rng.choice(OPTION_SETS)
        rules = resolve_rules(options)
        size = rng.randint(3, 20)
        wild = rng.randint(1, 13)
        hand = rng.sample(list(range(52)) * 3 + [JOKER] * rules.jokers, size)
        best = analyze(hand, wild, rules).best
        assert deadwood_lower_bound(hand, wild) <= len(best.deadwood), (hand, wild)


def test_two_lone_cards_without_wilds_cannot_go_out() -> None:
    hand = [make_card(r, 0) for r in (1, 2, 3)] + [make_card(7, 1), make_card(11, 2)]
    assert deadwood_lower_bound(hand, 13) == 2
    assert not may_go_out(hand, 13)


def test_one_lone_card_is_the_discard() -> None:
    hand = [make_card(r, 0) for r in (1, 2, 3)] + [make_card(11, 2)]
    assert may_go_out(hand, 13)


def test_a_wild_rescues_two_cards_two_apart_in_a_suit() -> None:
    hand = [make_card(5, 1), make_card(7, 1), make_card(13, 0), make_card(9, 3)]
    assert may_go_out(hand, 13)  # 5H KS(as 6H) 7H, discard 9C
    assert not may_go_out([make_card(5, 1), make_card(7, 1), make_card(9, 3), make_card(2, 0)], 13)
