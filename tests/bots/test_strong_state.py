"""``strong``'s moves made from the engine's state (``service/bots/strong_state.py``) are
``StrongBot``'s on the seat's view and events: on every turn of in-process games, with
the look-ahead unbounded and every kind of unseen card tried (so that neither the budget
nor the sample of kinds, which a seeded bot draws in another order, can tell them apart),
``strong_move`` with the cards each seat took from the pile followed by ``StrongPlayout``
chooses what the bot that heard every event chooses."""

from __future__ import annotations

from typing import Any

import pytest

from service.bots.strong import StrongBot
from service.bots.strong_state import StrongPlayout, strong_move
from service.core.rules import resolve_rules
from service.engine import apply, new_game, opening_events, view
from service.engine.seats import SERVICE

TABLES: list[Any] = [
    (2, {"preset": "classic", "hand_sizes": [4, 7]}),
    # four seats: seven times the two's CPU, so make test's only (make test-fast keeps two)
    pytest.param(4, {"preset": "classic", "hand_sizes": [5, 8]}, marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("players", "rules"), TABLES, ids=["2", "4"])
def test_strongs_moves_from_the_state_are_the_bots_moves_on_its_view_and_events(
        players: int, rules: dict[str, Any]) -> None:
    state = new_game(resolve_rules(rules), [None] * players, "strong-state",
                     bots=["strong"] * players)
    bots = [StrongBot(budget=None, max_kinds=60) for _ in range(players)]
    for s, bot in enumerate(bots):
        bot.start(view(state, s, SERVICE))
        bot.observe([e.for_seat(s) for e in opening_events(state)])
    playout = StrongPlayout()
    compared = taken = 0
    while state.current_seat is not None:
        seat = state.current_seat
        expected = bots[seat].choose(view(state, seat, SERVICE))
        assert strong_move(state, seat, playout.taken, None, 60) == expected, state.version
        compared += 1
        taken += expected == {"type": "draw", "source": "discard"}
        playout.made(state, seat, expected)
        round_index = state.round_index
        state, events = apply(state, seat, expected, SERVICE)
        for s, bot in enumerate(bots):
            bot.observe([e.for_seat(s) for e in events])
        if state.round_index != round_index:
            playout = StrongPlayout()  # a new round: nothing taken yet
    assert compared > 30 and taken > 0
