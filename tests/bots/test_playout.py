"""The analysis' playout policy played from the engine's state (``service/analysis/
policy.py``) makes ``greedy``'s moves: on every turn of in-process games under every
preset and the options that change a decision (lay-offs in final turns, contracts,
jokers, aces both ways), ``greedy_move(state, seat)`` is what ``GreedyBot`` chooses on
the seat's view."""

from __future__ import annotations

import os
from typing import Any

import pytest

from service.bots import GreedyBot
from service.bots.playout import greedy_move
from service.core.rules import resolve_rules
from service.engine import apply, new_game, view
from service.engine.seats import SERVICE

#: games played per table (fewer in the fast tier)
GAMES = int(os.environ.get("ANALYSIS_POLICY_GAMES", "6"))

TABLES: list[tuple[int, dict[str, Any]]] = [
    (2, {"preset": "classic", "hand_sizes": [3, 6, 9, 12]}),
    (4, {"preset": "classic", "hand_sizes": [5, 8, 11], "lay_off": True}),
    (3, {"preset": "bga", "hand_sizes": [4, 7, 10]}),
    (5, {"preset": "family", "hand_sizes": [6, 9]}),
    (3, {"preset": "classic", "hand_sizes": [4, 7, 10], "aces": "both", "jokers": 4,
         "contracts": [None, {"sets": 1, "runs": 0}, {"sets": 0, "runs": 1}]}),
]


@pytest.mark.parametrize(("players", "rules"), TABLES, ids=[str(r) for _, r in TABLES])
def test_greedys_moves_from_the_state_are_the_bots_moves_on_its_view(
        players: int, rules: dict[str, Any]) -> None:
    bot, compared = GreedyBot(), 0
    for g in range(GAMES):
        state = new_game(resolve_rules(rules), [None] * players, f"policy-{g}",
                         bots=["greedy"] * players)
        while state.current_seat is not None:
            seat = state.current_seat
            expected = bot.choose(view(state, seat, SERVICE))
            assert greedy_move(state, seat) == expected, (state.version, state.phase)
            compared += 1
            state, _ = apply(state, seat, expected, SERVICE)
    assert compared > 40 * GAMES
