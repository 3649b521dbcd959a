"""A position built from a seat's view and knowledge (``service/research/position.py``) is
the true state as far as the seat can tell: given the true hands and stock back, it shows
the seat the same view and plays on to the same round, and without them it holds nothing
of the true deal."""

from __future__ import annotations

from typing import Any

import pytest

from service.bots.playout import greedy_move
from service.engine import apply, view
from service.engine.seats import PLAYER, SERVICE
from service.research.knowledge import Knowledge
from service.research.position import position
from service.research.worlds import World, deal, in_state

from .games import decision_points
from .test_knowledge_and_worlds import CONFIGS, POSITIONS


def _comparable(v: Any) -> dict[str, Any]:
    """A seat's view less what a frame does not carry: the seed's commitment, the last
    round's result and the seats' kinds (a frame's seats are all players)."""
    out = {k: x for k, x in v.items() if k not in ("seed_commitment", "players", "last_round",
                                                   "legal_actions", "you")}
    out["players"] = [{k: x for k, x in p.items() if k not in ("kind", "bot", "name")}
                      for p in v["players"]]
    out["hand"] = v["you"]["hand"]
    return out


def test_a_position_with_the_true_cards_shows_the_seat_its_own_view() -> None:
    for state, seat, knowledge in POSITIONS:
        frame = position(view(state, seat, SERVICE), knowledge)
        true = in_state(frame, World(state.hands, state.stock), state.seed)
        assert _comparable(view(true, seat, PLAYER)) == _comparable(view(state, seat, SERVICE))
        assert {str(a) for a in view(true, seat, PLAYER)["legal_actions"]} >= {
            str(a) for a in view(state, seat, SERVICE)["legal_actions"]
            if a["type"] not in ("resign",)}


@pytest.mark.parametrize("config", range(4))
def test_a_position_with_the_true_cards_plays_the_round_out_as_the_true_state(config: int,
                                                                               ) -> None:
    """Up to a reshuffle of the pile: its order is drawn from the seed, which the position
    does not know (a playout in a world shuffles with the world's own seed)."""
    bots, rules = CONFIGS[config]
    checked = 0
    for state, seat, events in decision_points(bots, f"p{config}", rules):
        if state.version % 3:
            continue
        knowledge = Knowledge.of(view(state, seat, SERVICE), events)
        frame = position(view(state, seat, SERVICE), knowledge)
        a = in_state(frame, World(state.hands, state.stock), state.seed)
        b = state
        round_index = state.round_index
        while b.current_seat is not None and b.round_index == round_index:
            s = b.current_seat
            move = greedy_move(b, s)
            assert greedy_move(a, s) == move
            a, _ = apply(a, s, move, PLAYER)
            b, shown = apply(b, s, move, SERVICE)
            if any(e.type == "reshuffled" for e in shown):
                break
        else:
            assert a.scores == b.scores
            checked += 1
    assert checked >= 5


def test_a_position_deals_the_unseen_cards_in_a_fixed_order_whatever_the_true_deal() -> None:
    for state, seat, knowledge in POSITIONS[:300]:
        frame = position(view(state, seat, SERVICE), knowledge)
        fixed = deal(knowledge, list(knowledge.unseen))
        assert (frame.hands, frame.stock) == (fixed.hands, fixed.stock)
        assert (frame.seed, frame.seed_salt) == ("position", "position")


def test_a_position_is_of_a_game_in_play() -> None:
    state, seat, knowledge = POSITIONS[0]
    over = {**view(state, seat, SERVICE), "status": "finished"}
    with pytest.raises(ValueError, match="in play"):
        position(over, knowledge)
