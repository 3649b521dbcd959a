"""A final discard's regret (``service/analysis/final_turn.py``) is exactly what the engine
scores: on 500 final turns, every card the seat may discard is played through the engine
and the seat's round score read back, against the analysis' score and regret."""

from __future__ import annotations

import os
from typing import Any

import pytest

from service.analysis.final_turn import final_discard, final_discard_scores
from service.bots import decide
from service.core.cards import card_name, parse_card
from service.core.rules import resolve_rules
from service.engine import apply, new_game, view
from service.engine.seats import SERVICE
from service.engine.state import FINAL_DISCARD, GameState

#: final turns judged (the full count in `make test`; fewer in the fast tier)
FINAL_TURNS = int(os.environ.get("ANALYSIS_FINAL_TURNS", "500"))

TABLES: list[tuple[list[str], dict[str, Any]]] = [
    (["greedy", "random"], {"preset": "classic", "hand_sizes": [3, 5, 7, 9]}),
    (["greedy", "simple", "random"], {"preset": "classic", "hand_sizes": [4, 6, 8],
                                      "lay_off": True}),
    (["simple", "greedy", "greedy", "random"], {"preset": "bga", "hand_sizes": [5, 7, 9],
                                                "lay_off": True}),
    (["greedy", "random"], {"preset": "family", "hand_sizes": [6, 10]}),
]


def engine_score(state: GameState, seat: int, card: int) -> int:
    """The seat's score for the round after discarding ``card``, as the engine has it."""
    after, _ = apply(state, seat, {"type": "discard", "card": card_name(card)}, SERVICE)
    if (after.last_round is not None and after.round_index != state.round_index) \
            or after.finished:
        assert after.last_round is not None
        return after.last_round.results[seat].score
    # laid out already: what is left of the hand is the round's penalty
    penalties = after.rules.penalty_table(after.wild_rank)
    multiplier = after.rules.final_round_multiplier if after.is_last_round else 1
    return sum(penalties[c] for c in after.hands[seat]) * multiplier


def final_turns(limit: int) -> list[tuple[GameState, int]]:
    out: list[tuple[GameState, int]] = []
    for g in range(200):
        bots, rules = TABLES[g % len(TABLES)]
        state = new_game(resolve_rules(rules), [None] * len(bots), f"ft{g}", bots=bots)
        while not state.finished:
            seat = state.current_seat
            assert seat is not None
            if state.phase == FINAL_DISCARD:
                out.append((state, seat))
                if len(out) == limit:
                    return out
            action = decide(bots[seat], f"{g}:{state.version}", view(state, seat, SERVICE), [])
            state, _ = apply(state, seat, action, SERVICE)
    return out


def test_final_discard_regrets_are_the_engines_score_differences_on_500_final_turns() -> None:
    turns = final_turns(FINAL_TURNS)
    assert len(turns) == FINAL_TURNS
    costly = 0
    for state, seat in turns:
        scores = final_discard_scores(state, seat)
        assert set(scores) == set(state.hands[seat])
        truth = {card: engine_score(state, seat, card) for card in scores}
        assert scores == truth
        worst = max(truth, key=truth.__getitem__)  # and the best, as the verdict names it
        verdict = final_discard(state, seat, worst)
        assert verdict.regret == truth[worst] - min(truth.values()) >= 0
        assert truth[verdict.best] == min(truth.values()) == verdict.best_score
        assert final_discard(state, seat, verdict.best).regret == 0
        costly += max(truth.values()) > min(truth.values())
    assert costly > FINAL_TURNS // 5  # most final turns have a wrong discard to find


def test_a_final_discard_is_judged_only_on_its_own_turn() -> None:
    state, seat = final_turns(1)[0]
    with pytest.raises(ValueError):
        final_discard_scores(state, (seat + 1) % state.players)
    with pytest.raises(ValueError):
        final_discard(state, seat, parse_card("JK") if 52 not in state.hands[seat] else -1)
