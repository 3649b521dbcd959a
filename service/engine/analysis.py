"""The going-out test of a position, cached.

``legal_actions`` lists the go-outs of the hand on turn, and a following
``go_out`` without melds needs the same analysis: both ask the solver once per
(hand, wild rank, rules, contract), which a small LRU cache makes true even
across requests that reload the same state. Most hands cannot go out at all,
and a relaxed test of some ten microseconds (``deadwood_bound``) says so
before the solver is asked.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache

from .arrangement import Analysis
from .deadwood_bound import may_go_out
from .rules import Rules
from .solver import analyze
from .state import GameState

__all__ = ["analysis_of", "go_out_cards"]


@lru_cache(maxsize=4096)
def _analysis(
    hand: tuple[int, ...], wild_rank: int, rules: Rules, contract: tuple[int, int] | None
) -> Analysis:
    return analyze(list(hand), wild_rank, rules, (), contract)


def analysis_of(state: GameState, hand: tuple[int, ...]) -> Analysis:
    """The solver's analysis of ``hand`` (after drawing) under the round's contract."""
    return _analysis(hand, state.wild_rank, state.rules, state.contract)


def go_out_cards(state: GameState, hand: tuple[int, ...]) -> Collection[int]:
    """The cards whose discard lets ``hand`` go out; the solver only runs when the cheap
    relaxed test of ``deadwood_bound`` leaves going out possible."""
    return _go_out_cards(hand, state.wild_rank, state.rules, state.contract)


@lru_cache(maxsize=4096)
def _go_out_cards(
    hand: tuple[int, ...], wild_rank: int, rules: Rules, contract: tuple[int, int] | None
) -> frozenset[int]:
    if not may_go_out(hand, wild_rank):
        return frozenset()
    return frozenset(_analysis(hand, wild_rank, rules, contract).go_out)
