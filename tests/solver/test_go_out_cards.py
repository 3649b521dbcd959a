"""``go_out_cards``, the going-out test of a turn, against the brute-force reference.

``legal_actions`` lists a ``go_out`` for each card ``go_out_cards`` returns, so a
wrong answer hides or invents a legal action. These tests compare it with the
reference (``reference_solver.py``, which shares no code with the solver) on hands
built to go out or nearly, on random hands and on the hands of random games, under
every aces rule, wild limits, minimum naturals, jokers, duplicates and contracts.
"""

from __future__ import annotations

import random

import pytest

from service.core.cards import JOKER, make_card
from service.core.rules import resolve_rules
from service.engine import apply, new_game
from service.engine.legal import legal_actions
from service.solver import go_out_cards
from tests.solver import reference_solver as ref

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
CONTRACTS = [None, None, (1, 0), (0, 1), (1, 1), (2, 0), (0, 2)]


def _melded_hand(rng: random.Random, jokers: int, wild: int, size: int) -> list[int]:
    """A hand of ``size`` cards that is mostly melds: runs and sets of random cards,
    wilds sprinkled in, then filler; many of these can go out, some nearly."""
    hand: list[int] = []
    while len(hand) < size:
        kind = rng.random()
        if kind < 0.4:
            suit, start = rng.randrange(4), rng.randint(1, 11)
            hand += [make_card((start + k - 1) % 13 + 1, suit) for k in range(rng.randint(3, 5))]
        elif kind < 0.7:
            rank = rng.randint(1, 13)
            hand += [make_card(rank, rng.randrange(4)) for _ in range(rng.randint(3, 4))]
        elif kind < 0.85:
            hand.append(JOKER if jokers and rng.random() < 0.5 else make_card(wild, rng.randrange(4)))
        else:
            hand.append(rng.randrange(52))
    hand = hand[:size]
    if rng.random() < 0.5:  # knock a card out of a meld: nearly going out
        hand[rng.randrange(size)] = rng.randrange(52)
    return hand


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(map(str, o.values())))
def test_go_out_cards_are_the_references_on_random_and_built_hands(options: dict) -> None:
    rules = resolve_rules(options)
    rng = random.Random(str(options))
    can = 0
    for _ in range(150):
        size = rng.randint(3, 11)
        wild = rng.choice([1, *range(3, 14)])
        contract = rng.choice(CONTRACTS)
        if rng.random() < 0.6:
            hand = _melded_hand(rng, rules.jokers, wild, size)
        else:
            hand = rng.sample(list(range(52)) * rng.randint(1, 3) + [JOKER] * rules.jokers, size)
        expected = ref.analyze(hand, wild, rules, (), contract).go_out
        assert go_out_cards(hand, wild, rules, contract) == expected, (ref.cards_text(hand), wild, contract)
        can += bool(expected)
    assert 15 < can < 135  # hands that go out and hands that do not were both tried


@pytest.mark.parametrize(
    "spec",
    [
        {"preset": "classic", "hand_sizes": [9]},
        {"preset": "bga", "hand_sizes": [8]},
        {"preset": "classic", "hand_sizes": [7], "contracts": [{"sets": 1, "runs": 1}]},
    ],
    ids=["classic-9", "bga-8", "contract-7"],
)
def test_every_legal_go_out_of_random_games_is_the_references(spec: dict) -> None:
    """After each draw from the stock, the listed go-outs are the reference's; then the
    lowest card is discarded, so hands that can go out keep coming."""
    rules = resolve_rules(spec)
    compared = 0
    for game in range(2):
        state = new_game(rules, ["a", "b"], f"go-out-{game}")
        for _turn in range(40):
            if state.finished:
                break
            seat = state.current_seat
            state, _ = apply(state, seat, {"type": "draw", "source": "stock"})
            hand = state.hands[seat]
            listed = {a["discard"] for a in legal_actions(state, seat) if a["type"] == "go_out"}
            expected = ref.analyze(hand, state.wild_rank, rules, (), state.contract).go_out
            assert listed == {ref.card_text(c) for c in expected}, ref.cards_text(hand)
            compared += 1
            discard = next(a for a in legal_actions(state, seat) if a["type"] == "discard")
            state, _ = apply(state, seat, discard)
    assert compared >= 40


CLASSIC = resolve_rules({"preset": "classic"})


def test_a_hand_that_melds_without_a_wild_goes_out_with_any_discard() -> None:
    # KS is the wild: without it 3H 4H 5H 6H, 9S 9D 9C melds; any card can take its place
    hand = ref.parse_many("3H 4H 5H 6H 9S 9D 9C KS")
    assert go_out_cards(hand, 13, CLASSIC) == set(hand)


def test_a_run_may_put_a_wild_where_a_duplicate_card_is_used_elsewhere() -> None:
    # two decks: 3H 4H 5H and 3H KS 5H (the wild for the second 4H, which is not held)
    hand = ref.parse_many("3H 3H 4H 5H 5H KS 9C")
    assert go_out_cards(hand, 13, CLASSIC) == {make_card(9, 3)}


def test_two_wilds_alone_do_not_meld_and_three_do() -> None:
    assert go_out_cards(ref.parse_many("KS KH 9C"), 13, CLASSIC) == frozenset()
    three = ref.parse_many("KS KH KD 9C")
    assert go_out_cards(three, 13, CLASSIC) == set(three)


def test_a_contract_refuses_a_go_out_the_melds_alone_would_allow() -> None:
    hand = ref.parse_many("3H 4H 5H 6H 9S 9D 9C 2C")
    assert go_out_cards(hand, 13, CLASSIC) == {make_card(2, 3)}
    assert go_out_cards(hand, 13, CLASSIC, (0, 2)) == frozenset()
