"""What a seat knows (``service/research/knowledge.py``) is exactly what it could see, and
the worlds drawn from it (``service/research/worlds.py``) are consistent with it and owe
nothing to the true deal (a χ² test over 100 positions, and the same test failing a
sampler that peeks)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from service.engine import apply, view
from service.engine.seats import SERVICE
from service.engine.shoe import build_shoe
from service.engine.state import GameState
from service.research.knowledge import Knowledge
from service.research.worlds import World, in_state, sample_worlds

from .games import decision_points

CONFIGS: list[tuple[list[str], dict[str, Any]]] = [
    (["greedy", "random"], {"preset": "classic", "hand_sizes": [3, 5, 7]}),
    (["random", "greedy", "strong", "random"], {"preset": "bga", "hand_sizes": [4, 6]}),
    (["greedy", "random", "random"], {"preset": "classic", "hand_sizes": [5, 9], "lay_off": True,
                                      "decks": 2, "jokers": 4}),
    # a tight shoe: the pile goes back into the stock
    (["random", "random", "random", "random", "random", "random", "random", "random"],
     {"preset": "classic", "hand_sizes": [5], "decks": 1, "jokers": 0,
      "stock_exhausted": "reshuffle"}),
]


def positions(limit: int = 10_000) -> list[tuple[GameState, int, Knowledge]]:
    out = []
    for i, (bots, rules) in enumerate(CONFIGS):
        for state, seat, events in decision_points(bots, f"k{i}", rules):
            out.append((state, seat, Knowledge.of(view(state, seat, SERVICE), events)))
            if len(out) >= limit * (i + 1) // len(CONFIGS):
                break
    return out


POSITIONS = positions()


def test_the_positions_cover_reshuffles_lay_offs_and_cards_taken_from_the_pile() -> None:
    assert any(k.reshuffled for _, _, k in POSITIONS)
    assert any(k.table for _, _, k in POSITIONS)
    assert any(k.known[s] for _, seat, k in POSITIONS for s in range(len(k.known)) if s != seat)


def test_a_seat_knows_its_hand_the_pile_and_the_table_and_counts_the_rest_exactly() -> None:
    for state, seat, k in POSITIONS:
        assert k.hand == state.hands[seat] and k.pile == state.discard
        assert k.stock == len(state.stock)
        truth: Counter[int] = Counter(state.stock)
        for s, hand in enumerate(state.hands):
            if s == seat:
                continue
            assert not Counter(k.known[s]) - Counter(hand), "known cards are really held"
            assert k.hidden[s] == len(hand) - len(k.known[s])
            truth.update(Counter(hand) - Counter(k.known[s]))
        assert Counter(k.unseen) == truth


def test_every_world_is_consistent_with_what_the_seat_knows() -> None:
    rng = random.Random(1)
    for state, seat, k in POSITIONS[::7]:
        shoe = Counter(build_shoe(state.rules.decks_for(state.players), state.rules.jokers))
        for world in sample_worlds(k, 3, rng):
            assert world.hands[seat] == state.hands[seat]
            assert len(world.stock) == len(state.stock)
            for s, hand in enumerate(world.hands):
                assert len(hand) == len(state.hands[s])
                assert not Counter(k.known[s]) - Counter(hand)
            cards = Counter(world.stock) + Counter(state.discard) + Counter(k.table)
            for hand in world.hands:
                cards.update(hand)
            assert cards == shoe


def test_a_world_plays_on_to_the_end_of_its_round() -> None:
    rng = random.Random(2)
    for state, _seat, k in POSITIONS[::50]:
        world = in_state(state, sample_worlds(k, 1, rng)[0], "w")
        round_index = world.round_index
        while not world.finished and world.round_index == round_index:
            mover = world.current_seat
            assert mover is not None
            from service.bots import decide
            action = decide("greedy", "x", view(world, mover, SERVICE), [])
            world, _ = apply(world, mover, action, SERVICE)


Sampler = Callable[[Knowledge, GameState, int, random.Random], list[World]]


def fair(k: Knowledge, state: GameState, n: int, rng: random.Random) -> list[World]:
    return sample_worlds(k, n, rng)


def peeking(k: Knowledge, state: GameState, n: int, rng: random.Random) -> list[World]:
    """A sampler that returns the true deal one time in five: what the test must catch."""
    return [World(state.hands, state.stock) if rng.random() < 0.2 else w
            for w in sample_worlds(k, n, rng)]


def chi_square(sampler: Sampler) -> tuple[float, int]:
    """Over 100 single-deck positions (no card twice), for the next seat: how many of its
    true unknown cards land among its sampled ones, against the hypergeometric law a
    sampler blind to the deal gives, standardised and squared, summed over positions."""
    rng = random.Random(3)
    total, used = 0.0, 0
    bots = ["greedy", "random", "random"]
    rules = {"preset": "classic", "hand_sizes": [5, 7, 9], "decks": 1, "jokers": 0}
    for g in range(40):
        for state, seat, events in decision_points(bots, f"chi{g}", rules):
            if used == 100:
                return total, used
            k = Knowledge.of(view(state, seat, SERVICE), events)
            other = (seat + 1) % state.players
            h, n = k.hidden[other], len(k.unseen)
            if h == 0 or h == n or state.version % 5:
                continue
            true_unknown = set(Counter(state.hands[other]) - Counter(k.known[other]))
            draws = 40
            hits = 0
            for w in sampler(k, state, draws, rng):
                hits += len(set(w.hands[other]) & true_unknown)
            mean = h * h / n
            var = h * h * (n - h) * (n - h) / (n * n * (n - 1))
            total += (hits - draws * mean) ** 2 / (draws * var)
            used += 1
    return total, used


def test_worlds_owe_nothing_to_the_true_deal_by_a_chi_square_test_over_100_positions() -> None:
    statistic, used = chi_square(fair)
    assert used == 100
    # χ² with 100 degrees of freedom: its 0.1% upper point is 149.4
    assert statistic < 149.4, statistic


def test_the_chi_square_test_catches_a_sampler_that_peeks_one_time_in_five() -> None:
    statistic, used = chi_square(peeking)
    assert used == 100 and statistic > 149.4 * 3, statistic


def test_knowledge_needs_a_seats_view_and_all_its_events() -> None:
    state, _, _ = POSITIONS[0]
    with pytest.raises(ValueError):
        Knowledge.of(view(state, None), [])
    later = POSITIONS[5]
    with pytest.raises(ValueError):
        Knowledge.of(view(later[0], later[1], SERVICE), [])
