"""``go_out_cards`` gives exactly the solver's go-out discards, for every hand and rule.

``legal_actions`` lists a ``go_out`` for each card ``go_out_cards`` returns, and it no
longer asks the solver for them (``going_out`` searches for them directly). So these
tests compare it with the definition it replaced,
``frozenset(analyze(hand, wild_rank, rules, (), contract).go_out)``, on random
hands, on hands built to go out or nearly, and on the hands of random games, under
every aces rule, wild limits, jokers, one to three decks and contracts.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from service.engine import apply, new_game
from service.engine.analysis import go_out_cards
from service.engine.cards import JOKER, make_card
from service.engine.legal import legal_actions
from service.engine.rules import Rules, resolve_rules
from service.engine.solver import analyze
from service.engine.state import GameState

from .test_go_out_bound import OPTION_SETS, _melded_hand

#: The option sets of the relaxed test, and contracts (a contract only refuses more).
RULE_SETS = [
    *OPTION_SETS,
    {"preset": "classic", "contracts": "each hand"},
    {"preset": "bga", "contracts": "each hand"},
    {"preset": "family", "contracts": "each hand"},
]
CONTRACTS = [(1, 0), (0, 1), (1, 1), (2, 0), (0, 2), (2, 1), (1, 2), (3, 0)]

_STATES: dict[tuple[Rules, int, tuple[int, int] | None], GameState] = {}


def _state(rules: Rules, wild: int, contract: tuple[int, int] | None) -> GameState:
    """A game state whose round has this wild rank and contract (its hands unused)."""
    key = (rules, wild, contract)
    if key not in _STATES:
        size = 14 if wild == 1 else wild  # the rank equal to the hand size is wild
        round_rules = replace(
            rules, hand_sizes=(size,), contracts=None if contract is None else (contract,)
        )
        _STATES[key] = new_game(round_rules, ["a", "b"], "go-out-cards")
    return _STATES[key]


def _solver_go_out(state: GameState, hand: list[int]) -> frozenset[int]:
    """The definition ``go_out_cards`` replaced."""
    return frozenset(analyze(list(hand), state.wild_rank, state.rules, (), state.contract).go_out)


@pytest.mark.parametrize("options", RULE_SETS, ids=lambda o: "-".join(map(str, o.values())))
def test_go_out_cards_are_the_solvers_on_random_and_built_hands(options: dict) -> None:
    spec = {k: v for k, v in options.items() if k != "contracts"}
    rules = resolve_rules(spec)
    rng = random.Random(str(options))
    can = 0
    for _ in range(500):
        size = rng.randint(3, 15)
        wild = rng.choice([1, *range(3, 14)])
        contract = rng.choice(CONTRACTS) if "contracts" in options else None
        decks = rng.randint(1, 3)
        if rng.random() < 0.6:
            hand = _melded_hand(rng, rules, wild, size)
        else:
            hand = rng.sample(list(range(52)) * decks + [JOKER] * rules.jokers, size)
        state = _state(rules, wild, contract)
        expected = _solver_go_out(state, hand)
        assert go_out_cards(state, tuple(sorted(hand))) == expected, (hand, wild, contract)
        can += bool(expected)
    assert 50 < can < 450  # hands that go out and hands that do not were both tried


@pytest.mark.parametrize(
    ("spec", "games"),
    [
        ({"preset": "classic", "hand_sizes": [13]}, 6),
        ({"preset": "classic", "hand_sizes": [8]}, 4),
        ({"preset": "bga", "hand_sizes": [11]}, 4),
        ({"preset": "family", "hand_sizes": [10]}, 3),
        ({"preset": "classic", "hand_sizes": [9], "contracts": [{"sets": 1, "runs": 1}]}, 3),
        ({"preset": "classic", "hand_sizes": [12], "decks": 3, "jokers": 2}, 3),
    ],
    ids=["classic-13", "classic-8", "bga-11", "family-10", "contract-9", "three-decks-12"],
)
def test_go_out_cards_are_the_solvers_on_every_hand_of_random_games(
    spec: dict, games: int
) -> None:
    """The hands of the HTTP benchmark's games: after each draw from the stock, compare;
    then discard the lowest card, so hands that can go out keep coming."""
    rules = resolve_rules(spec)
    compared = 0
    for game in range(games):
        state = new_game(rules, ["a", "b"], f"go-out-{game}")
        for _turn in range(60):
            if state.finished:
                break
            seat = state.current_seat
            state, _ = apply(state, seat, {"type": "draw", "source": "stock"})
            hand = state.hands[seat]
            assert go_out_cards(state, hand) == _solver_go_out(state, list(hand)), hand
            compared += 1
            discard = next(a for a in legal_actions(state, seat) if a["type"] == "discard")
            state, _ = apply(state, seat, discard)
    assert compared >= 30 * games


def _cards(text: str) -> tuple[int, ...]:
    ranks = "A23456789TJQK"
    return tuple(
        sorted(
            JOKER if name == "JK" else make_card(ranks.index(name[0]) + 1, "SHDC".index(name[1]))
            for name in text.split()
        )
    )


CLASSIC = resolve_rules({"preset": "classic"})


def test_a_hand_that_melds_without_a_wild_goes_out_with_any_discard() -> None:
    # KS is the wild: without it 3H 4H 5H 6H, 9S 9D 9C melds; any card can take its place
    hand = _cards("3H 4H 5H 6H 9S 9D 9C KS")
    state = _state(CLASSIC, 13, None)
    assert go_out_cards(state, hand) == set(hand) == _solver_go_out(state, list(hand))


def test_a_run_may_put_a_wild_where_a_duplicate_card_is_used_elsewhere() -> None:
    # two decks: 3H 4H 5H and 3H KS 5H (the wild for the second 4H, which is not held)
    hand = _cards("3H 3H 4H 5H 5H KS 9C")
    state = _state(CLASSIC, 13, None)
    assert go_out_cards(state, hand) == {make_card(9, 3)} == _solver_go_out(state, list(hand))


def test_two_wilds_alone_do_not_meld_and_three_do() -> None:
    state = _state(CLASSIC, 13, None)
    two = _cards("KS KH 9C")
    three = _cards("KS KH KD 9C")
    assert go_out_cards(state, two) == frozenset() == _solver_go_out(state, list(two))
    assert go_out_cards(state, three) == {make_card(9, 3)} | {
        make_card(13, s) for s in range(3)
    }


def test_a_contract_refuses_a_go_out_the_search_alone_would_allow() -> None:
    hand = _cards("3H 4H 5H 6H 9S 9D 9C 2C")
    rules = resolve_rules({"preset": "classic"})
    assert go_out_cards(_state(rules, 13, None), hand) == {make_card(2, 3)}
    assert go_out_cards(_state(rules, 13, (0, 2)), hand) == frozenset()
