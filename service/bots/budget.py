"""The work one bot decision may do, counted in solver steps so that decisions stay deterministic.

Why a budget: a ``strong`` decision used to ask the solver about every candidate discard
against up to 40 kinds of unseen card, up to 160 analyses: up to 0.3 s of CPU in classic
games, 2.7 s with 14-card hands, 8 jokers and lay-offs (``make bench-decisions``), all
of it holding the process that makes the move. Why steps and not time: a verifier
re-runs every bot move of a finished game from what its seat saw and must get the same
action, so the point where a decision stops looking must not depend on the machine, its
load or what an earlier decision left in the cache. The solver already counts its work
in steps (``service/solver/budget.py``); a decision adds up the steps of its analyses.

What one analysis is charged, in *work units*: its solver steps, times
``LAY_OFF_WEIGHT`` when it searches lay-offs onto table melds, plus
``EVALUATION_UNITS`` for setting up the search. The charge is a function of the
analysis' inputs alone (the same hand always takes the same steps), and a cached
analysis is charged exactly what computing it cost, so a warm cache changes how fast a
decision is, never what it decides. The two weights were measured on some 4,700
analyses of ``strong`` decisions (classic games, and 8 players with 14-card hands, 8
jokers and lay-offs): a step costs about 4.5 µs of CPU without a table and up to three
times that with 8 or more table melds (the search re-reads the open
table melds in every state it visits, which it does not count as steps), and a search
costs about 100 µs to set up whatever its size.

Two kinds of analysis:

* *required*: what the bot needs to move at all (its own hand, and with the discard
  pile's top card: greedy's two questions). Charged, never refused; each is bounded
  by the solver's ``GAME_STEP_BUDGET``, like every solve of the game flow.
* *optional*: the look-ahead. Refused (``None``) once its charge would take the
  decision past its limit; the solver itself is told the steps left, so a refused
  search stops where the budget ends rather than running to the end first. After one
  refusal the budget is spent: the decision stops looking and decides with what it
  has.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from service.core.errors import SolverBudgetExceeded
from service.core.rules import Rules
from service.solver import GAME_STEP_BUDGET, Analysis, analyze
from service.solver.budget import Budget

__all__ = [
    "CACHE_SIZE",
    "EVALUATION_UNITS",
    "LAY_OFF_WEIGHT",
    "DecisionBudget",
    "clear_cache",
    "units",
]

#: Work units charged per analysis for setting up its search (about 100 µs of CPU, the
#: cost of some 25 steps): what keeps many tiny analyses from being nearly free.
EVALUATION_UNITS = 25
#: A step of a search with table melds (a final turn under ``lay_off``) costs up to three
#: times one without: the open table melds are re-read in every state the search visits.
LAY_OFF_WEIGHT = 3
#: Analyses kept between decisions (per process): bots ask about the same hands often.
CACHE_SIZE = 200_000

Key = tuple[tuple[int, ...], int, Rules, tuple[tuple[int, ...], ...], tuple[int, int] | None]

_cache: OrderedDict[Key, tuple[Analysis, int]] = OrderedDict()
_lock = threading.Lock()


def units(steps: int, table: tuple[tuple[int, ...], ...] = ()) -> int:
    """The work units charged for an analysis that took ``steps`` solver steps."""
    return steps * (LAY_OFF_WEIGHT if table else 1) + EVALUATION_UNITS


def clear_cache() -> None:
    """Forget every analysis (benchmarks and tests start cold with it)."""
    with _lock:
        _cache.clear()


def _cached(key: Key) -> tuple[Analysis, int] | None:
    with _lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
        return hit


def _keep(key: Key, entry: tuple[Analysis, int]) -> None:
    with _lock:
        _cache[key] = entry
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)


class DecisionBudget:
    """The work units of one decision: ``limit`` for the optional analyses, ``spent`` so far.

    ``limit=None`` never refuses (measurements only: that is the unbounded bot of the
    strength comparison). One object serves one decision; it is not shared.
    """

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.spent = 0
        self.analyses = 0
        self.refused = False

    @property
    def left(self) -> int | None:
        """Units the optional analyses may still spend (``None``: no limit)."""
        if self.limit is None:
            return None
        return 0 if self.refused else max(0, self.limit - self.spent)

    def analyze(self, hand: tuple[int, ...] | list[int], wild: int, rules: Rules,
                table: tuple[tuple[int, ...], ...] = (),
                contract: tuple[int, int] | None = None, *,
                required: bool = True) -> Analysis | None:
        """The solver's analysis of ``hand`` (as a multiset), charged to this decision.

        ``required=False`` returns ``None`` instead when the budget cannot pay for it;
        whether it can depends only on the inputs and what this decision spent before.
        """
        key: Key = (tuple(sorted(hand)), wild, rules, table, contract)
        left = None if required else self.left
        entry = _cached(key)
        if entry is None:
            entry = self._compute(key, left)
            if entry is None:
                self._refuse()
                return None
            _keep(key, entry)
        analysis, steps = entry
        charge = units(steps, table)
        if left is not None and charge > left:
            self._refuse()
            return None
        self.spent += charge
        self.analyses += 1
        return analysis

    def _compute(self, key: Key, left: int | None) -> tuple[Analysis, int] | None:
        """Run the solver, stopped where the units ``left`` run out (``None``: refused)."""
        hand, wild, rules, table, contract = key
        limit = GAME_STEP_BUDGET
        if left is not None:
            # the steps whose charge still fits: units(s) <= left  <=>  s <= this
            limit = min(limit, (left - EVALUATION_UNITS) // (LAY_OFF_WEIGHT if table else 1))
            if limit < 0:
                return None
        counter = Budget(limit)
        try:
            analysis = analyze(list(hand), wild, rules, table, contract, budget=counter)
        except SolverBudgetExceeded:
            if left is None:
                raise  # a required analysis past GAME_STEP_BUDGET: the game's own limit
            return None
        return analysis, counter.steps

    def _refuse(self) -> None:
        """Spend what is left: the decision stops looking from here on."""
        if self.limit is not None:
            self.spent = max(self.spent, self.limit)
        self.refused = True
