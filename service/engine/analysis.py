"""The going-out test of a position, cached.

``legal_actions`` lists the go-outs of the hand on turn after every draw; a
following ``go_out`` without melds needs the solver's arrangement. The first asks
only which discards leave the rest melded, and ``going_out`` answers that by a
feasibility search far cheaper than the solver's optimisation (exactly, under rules
without wild limits and without a contract); the solver runs only to confirm the
candidates under other rules, and for the arrangement itself (``analysis_of``),
both behind small LRU caches, so a request that reloads a state pays once.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache

from .arrangement import Analysis
from .deadwood_bound import may_go_out
from .going_out import go_out_discards
from .melds import context
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
    """The cards whose discard lets ``hand`` go out (under the round's contract): the
    same cards as the solver's ``go_out``, without running it unless needed."""
    return _go_out_cards(hand, state.wild_rank, state.rules, state.contract)


@lru_cache(maxsize=4096)
def _go_out_cards(
    hand: tuple[int, ...], wild_rank: int, rules: Rules, contract: tuple[int, int] | None
) -> frozenset[int]:
    found = go_out_discards(hand, wild_rank, rules.aces)
    if found is None:  # a hand the search leaves to the solver (many wilds)
        if not may_go_out(hand, wild_rank):
            return frozenset()
    elif not found or (contract is None and not context(rules, wild_rank).limits):
        return found
    # the search's candidates are a superset here: the solver decides
    return frozenset(_analysis(hand, wild_rank, rules, contract).go_out)

