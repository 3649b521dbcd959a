"""Final turns with lay-offs are solved inside the solver's normal step budget.

A final turn lays the hand's optimal arrangement onto a table that holds every
earlier player's melds, so the last final turns of a round with many players see
the most table melds. The game flow runs that solve under ``STEP_BUDGET`` like
every other (a refusal would leave the game stuck), so random full games with
``lay_off`` on, many wilds and up to eight players must never reach it; each of
those final turns is also checked against the brute-force reference.
"""

from __future__ import annotations

import random

import pytest

from service.core.cards import parse_cards
from service.core.melds import context
from service.core.rules import Rules, resolve_rules
from service.engine import apply, new_game
from service.engine.state import FINAL_DISCARD, FINISHED
from service.solver import STEP_BUDGET, Arrangement
from service.solver.analysis import _search
from service.solver.budget import Budget
from tests.engine.game_helpers import NAMES, choose
from tests.solver import reference_solver as ref

SIX_FOURTEEN = list(range(6, 15))

#: every preset, with the most wilds it allows and hands of up to 14 cards
GAMES = {
    "family": {"preset": "family", "lay_off": True, "hand_sizes": SIX_FOURTEEN},
    "classic, 8 jokers": {"preset": "classic", "jokers": 8, "lay_off": True, "hand_sizes": SIX_FOURTEEN},
    "bga, 8 jokers": {"preset": "bga", "jokers": 8, "lay_off": True, "hand_sizes": SIX_FOURTEEN},
}
GAMES_EACH = 3


def _solve(hand: list[int], wild_rank: int | None, rules: Rules, table) -> tuple[int, Arrangement]:
    """The final turn's solve, with the steps it takes (counted without a limit)."""
    budget = Budget(None)
    search, state = _search(context(rules, wild_rank), hand, table, None, budget)
    arrangement = search.arrangement(state)
    return budget.steps, arrangement


@pytest.mark.slow  # whole 5-8 player games with the strong bot: make test, not test-fast
@pytest.mark.parametrize("name", GAMES)
def test_every_final_turn_of_random_lay_off_games_is_optimal_and_inside_the_budget(name: str) -> None:
    rules = resolve_rules(GAMES[name])
    most = 0
    final_turns = 0
    for game in range(GAMES_EACH):
        rng = random.Random(f"{name} {game}")
        state = new_game(rules, NAMES[: rng.randint(5, rules.max_players)], seed=f"{name} {game}")
        while state.status != FINISHED:
            seat = state.current_seat
            action = choose(state, rng, "smart")
            if state.phase == FINAL_DISCARD:
                hand = list(state.hands[seat])
                hand.remove(parse_cards([action["card"]])[0])
                table = [m.all_cards for m in state.table]
                steps, arrangement = _solve(hand, state.wild_rank, rules, table)
                most = max(most, steps)
                final_turns += 1
                want = ref.analyze(hand, state.wild_rank, rules, table).penalty
                problems = ref.arrangement_problems(hand, arrangement, state.wild_rank, rules, table, want)
                assert problems == [], (ref.cards_text(hand), [ref.cards_text(m) for m in table])
            state, _ = apply(state, seat, action)  # past the budget this raises
    assert final_turns > 50
    assert most <= STEP_BUDGET
