"""The going-out test of a position, cached.

``legal_actions`` lists the go-outs of the hand on turn, and a following
``go_out`` without melds needs the same analysis: both ask the solver once per
(hand, wild rank, rules, contract), which a small LRU cache makes true even
across requests that reload the same state.
"""

from __future__ import annotations

from functools import lru_cache

from .arrangement import Analysis
from .rules import Rules
from .solver import analyze
from .state import GameState

__all__ = ["analysis_of"]


@lru_cache(maxsize=4096)
def _analysis(
    hand: tuple[int, ...], wild_rank: int, rules: Rules, contract: tuple[int, int] | None
) -> Analysis:
    return analyze(list(hand), wild_rank, rules, (), contract)


def analysis_of(state: GameState, hand: tuple[int, ...]) -> Analysis:
    """The solver's analysis of ``hand`` (after drawing) under the round's contract."""
    return _analysis(hand, state.wild_rank, state.rules, state.contract)
