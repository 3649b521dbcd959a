"""The playout policy's moves made from the engine's state: ``greedy``'s decisions without
building a view for each step (the analysis' playouts and ``expert``'s).

Why: an analysis plays tens of thousands of moves (every candidate, in every world, to
the end of its round), and going through :func:`service.engine.view` and
:class:`service.bots.GreedyBot` costs each move a view (its legal actions, the going-out
test among them), the rules resolved again from their JSON and the cards parsed again
from their names: about a third of a playout (``make bench-analysis``). The moves are
``greedy``'s, decided from the same facts its view gives it (its hand, the pile's top,
the table melds, the round's wild rank and contract), by the same analyses (the bots'
cached solver); ``tests/bots/test_playout.py`` checks them against ``GreedyBot`` on
thousands of positions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from service.client.types import Action
from service.engine import apply
from service.engine.rounds import penalty_score
from service.engine.seats import actor_of
from service.engine.state import DISCARD, DRAW, FINAL_DISCARD, FINAL_DRAW, GameState
from service.solver import Analysis

from .base import discard, draw, go_out
from .budget import DecisionBudget

__all__ = ["STATE_POLICIES", "greedy_move", "leaf_score", "play_out"]


def greedy_move(state: GameState, seat: int) -> Action:
    """The move ``greedy`` makes for ``seat`` on its turn in ``state``."""
    hand, wild, rules, contract = state.hands[seat], state.wild_rank, state.rules, state.contract
    final = state.phase in (FINAL_DRAW, FINAL_DISCARD)
    # a view's table melds are their own cards (no lay-offs); they count in final turns
    table = tuple(m.cards for m in state.table) if final and rules.lay_off else ()
    budget = DecisionBudget(0)

    def analyze(cards: tuple[int, ...]) -> Analysis:
        a = budget.analyze(cards, wild, rules, table, contract)
        assert a is not None  # a required analysis is never refused
        return a

    if state.phase in (DRAW, FINAL_DRAW):
        if state.discard:
            top = state.discard[-1]
            now = analyze(hand).penalty
            taken = analyze((*hand, top))
            if (taken.go_out and state.phase == DRAW) or taken.discards[0][1] < now:
                return draw("discard")
        return draw("stock")
    a = analyze(hand)
    if state.phase == DISCARD and a.go_out:
        return go_out(next(iter(a.go_out)))
    return discard(a.discards[0][0])


#: The policies an analysis can play from the state, by bot name (others go through
#: their bot and a view).
STATE_POLICIES: dict[str, Callable[[GameState, int], Action]] = {"greedy": greedy_move}


def play_out(state: GameState, seat: int, first: Mapping[str, Any],
             policy: Callable[[GameState, int], Action] = greedy_move,
             on_step: Callable[[], None] | None = None,
             watch: Callable[[GameState, int, Mapping[str, Any]], None] | None = None,
             turns: int = 0) -> int:
    """``seat``'s score for the round in play after it makes ``first`` in ``state``, every
    later move of the round (every seat's) made by ``policy``. ``on_step`` is called
    before each action is applied: what an analysis counts its work by (it may raise to
    abandon the playout; :mod:`service.analysis.budget`); ``watch(state, seat, move)``
    before each move is applied, ``first`` included (what a policy with a memory of the
    round follows it by: :class:`.strong_state.StrongPlayout`).

    ``turns`` (0: none) truncates the playout: once ``seat`` has played that many turns
    after the one in play, while nobody has gone out, its score is read off the leaf
    (:func:`leaf_score`) rather than played to the round's end."""
    before = sum(state.scores[seat])
    round_index = state.round_index
    move: Mapping[str, Any] = first
    discards = 0
    while True:
        mover = state.current_seat
        assert mover is not None
        if on_step is not None:
            on_step()
        if watch is not None:
            watch(state, mover, move)
        state, _ = apply(state, mover, move, actor_of(state, mover))
        if state.current_seat is None or state.round_index != round_index:
            return sum(state.scores[seat]) - before
        if mover == seat and move["type"] == "discard":
            discards += 1
            if turns and discards > turns and state.went_out is None:
                if on_step is not None:
                    on_step()  # the leaf's solve, charged as a step
                return leaf_score(state, seat)
        move = policy(state, state.current_seat)


def leaf_score(state: GameState, seat: int) -> int:
    """What ``seat`` would score if the round ended now, between its turns: the penalty
    of its hand at its best arrangement (the solver's, the final round's multiplier
    included). Why it stands for the rest of the round: a truncated playout compares
    candidates on the same worlds, and the seat's hand a turn or two on is most of what
    a candidate changes; the exact solver reads it without a policy's errors."""
    budget = DecisionBudget(0)
    a = budget.analyze(state.hands[seat], state.wild_rank, state.rules, (), state.contract)
    assert a is not None  # a required analysis is never refused
    return penalty_score(state, a.penalty)
