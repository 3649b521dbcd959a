"""The going-out test: the group search bounded at zero deadwood.

Why: ``legal_actions`` needs, after every draw, the discards that leave the rest of
the hand entirely melded. The full search (``search.GroupSearch.best``) finds the
cost of the hand without each card, however high; this asks only which of those
costs are 0, so every branch that leaves a card out as deadwood (other than the one
discard) is cut at once. It is a branch-and-bound of the same search with the bound
0: the same states, normal form, groups, lay-offs and wild-pool placement
(inherited from ``GroupSearch``); only the recurrence differs.

The recurrence, for a state ``S`` with lowest natural ``x`` (costs are at least 1 a
card, so a cost is 0 exactly when no card is deadwood):

* ``melds(S)``: some option of ``S`` leaves a state that melds (a deadwood option
  never does); with no natural left, the wild pool places every wild.
* ``zeros(S)``, per kind of card ``c``, whether ``S - c`` melds: for ``c = x`` it is
  ``melds(S - x)`` (the deadwood option's successor); for any other ``c``, some
  option's successor has ``c`` in its ``zeros``. This is ``GroupSearch``'s per-card
  cost vector with every cost above 0 cut: the deadwood option's own vector (each
  entry ``cost[x] + ...``, never 0) is never needed, and with it the whole search of
  the hand with cards thrown away.

Both are memoised per call; ``zeros`` is a bit mask over ``GroupSearch``'s per-card
fields (``field_of``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from . import multiset as ms
from .search import GroupSearch, State

__all__ = ["GoingOutSearch"]

T = TypeVar("T")


class GoingOutSearch(GroupSearch):
    """One hand's going-out test (its rules, wild pool and contract; no table)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._melds: dict[State, bool] = {}
        self._zeros: dict[State, int] = {}

    def melds(self, state: State) -> bool:
        """Whether every card of ``state`` melds (meeting the contract still needed)."""
        return self._memoised(self._melds, state, self._melds_of)

    def zeros(self, state: State) -> int:
        """The fields (bits) of the kinds of card whose removal leaves ``state`` melding."""
        return self._memoised(self._zeros, state, self._zeros_of)

    def _memoised(self, memo: dict[State, T], state: State, compute: Callable[[State], T]) -> T:
        """``compute`` of the normal form of ``state``, kept under the state as reached
        and as normalised (as ``GroupSearch.best`` keeps its results)."""
        hit = memo.get(state)
        if hit is None:
            normal = self._normal(state)
            hit = memo.get(normal)
            if hit is None:
                hit = memo[normal] = compute(normal)
            memo[state] = hit
        return hit

    def _melds_of(self, state: State) -> bool:
        x, wb, _cap, _mask, need = state
        i = ms.lowest_natural(x)
        if i == ms.NATURAL_SLOTS:
            return self._place(state)[0] == 0 or any(
                self.melds(child) for _g, child in self.base_options(state)
            )
        if self._all_meld(x, wb, need):
            return True
        options = self.options(state, i)
        self.budget.spend(1 + len(options))
        return any(self.melds(child) for _g, child in options)

    def _zeros_of(self, state: State) -> int:
        x, wb, _cap, _mask, need = state
        i = ms.lowest_natural(x)
        if i == ms.NATURAL_SLOTS:
            return self._base_zeros(state)
        if self._all_meld(x, wb, need):
            return self._held(x, -1)
        return self._expand_zeros(state, i)

    def _expand_zeros(self, state: State, i: int) -> int:
        x, wb, cap, mask, need = state
        options = self.options(state, i)
        self.budget.spend(1 + len(options))
        out = 1 << self.field[i] if self.melds((x - ms.ONE[i], wb, cap, mask, need)) else 0
        others = self._held(x, i)
        for _group, child in options:
            out |= self.zeros(child)
            if out & others == others:
                break  # every other card held already goes out, the most there can be
        return out

    def _base_zeros(self, state: State) -> int:
        """No natural left: which wild, taken out, lets the pool place the rest."""
        x, wb, cap, mask, need = state
        out = 0
        wr = [s for s in range(4) if ms.count(x, ms.WILD_RANK_SLOT + s)]
        if wr:  # the pool only counts wild-rank cards: one fewer of any suit is the same
            less = (x - ms.ONE[ms.WILD_RANK_SLOT + wr[0]], wb, cap, mask, need)
            if self._place(less)[0] == 0:
                out |= sum(1 << (self.n + s) for s in wr)
        if self.jokers and self._place(state, self.jokers - 1)[0] == 0:
            out |= 1 << self.joker_field
        for _group, child in self.base_options(state):
            out |= self.zeros(child)
        return out

    def _held(self, x: int, i: int) -> int:
        """The fields (bits) of the kinds held in ``x`` but slot ``i`` (and the jokers, if
        any): ``GroupSearch._present`` as bits."""
        out = sum(1 << k for j, k in self.field.items() if j != i and ms.count(x, j))
        if self.jokers:
            out |= 1 << self.joker_field
        return out
