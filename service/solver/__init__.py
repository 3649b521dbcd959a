"""The optimal meld solver: the exact minimum-deadwood arrangement of a hand.

It decides every score, the going-out test and the legal ``go_out`` actions, and it
is what ``POST /v1/solve`` serves. What a valid meld is comes from the engine's one
meld model (``service.core.melds``); this package only searches.

Public face: :func:`analyze` (best arrangement, go-out discards, the penalty after
each discard), :func:`solve` (the best arrangement alone, with lay-offs),
:func:`go_out_cards` (the going-out test), :func:`can_lay_off`, the result values
:class:`Arrangement` and :class:`Analysis`, and the bounds below.

Algorithm
---------
Cards are split into *naturals* (not of the wild rank), *wild-rank cards* and
printed jokers; jokers and wild-rank cards form the wild pool (under a wild limit a
wild-rank card may also stand for itself, as a natural). A memoised search
(``search``) takes the lowest natural left (by rank, then suit) and tries every way
to dispose of it: as deadwood, or as the lowest natural of a group (a set of its
rank, a run of its suit, a lay-off onto one table meld; ``groups``, ``table``)
taking exactly the wilds it needs. When no natural is left the wild pool is placed
(``wildpool``). Each state also returns the cost of the state without one card of
each kind, so one search gives the penalty after every discard, and the go-out
discards with it. The going-out test (``going_out``) is the same search bounded at
zero deadwood: it cuts every branch that leaves a card out, other than the discard.
The cards left are one integer (``multiset``), the per-card costs
another (``costs``). What is minimised is ``penalty * 64 + deadwood cards``: going
out means no deadwood card at all (cards worth 0 included).

Tie-break
---------
Among optimal arrangements the read-back keeps, for the lowest card, the first
option that reaches the minimum in the search's fixed order (deadwood, then runs,
then sets, each larger first, then lay-offs): the result depends only on the hand
as a multiset, never on the order the cards were given in.

Bound
-----
Exponential in the worst case (the problem generalises exact cover), so the work is
bounded: a call may take at most ``STEP_BUDGET`` search steps (a state expanded, an
option tried, a candidate group considered) and raises ``SolverBudgetExceeded``
(``code`` ``solve_too_complex``) past them. Steps, not time, so an answer (or the
refusal) is the same on every machine. From outside a game (``POST /v1/solve``) a
hand has at most ``MAX_HAND`` (30) cards and at most ``MAX_TABLE_MELDS`` (12) table
melds. The game flow runs every solve under the same budget, final turns with
lay-offs included: a table meld that no card left can go onto stops counting in
the state (``search``), and wild-rank cards are laid off as themselves only under a
wild limit per meld, so random full games with ``lay_off`` (up to 8 players, 14-card
hands, 8 jokers, 24 table melds) stay below a third of the budget
(``tests/engine/test_final_turns_with_lay_offs.py``). Figures (measured by
``make bench-solve`` and the budget tests): see ``tests/solver/test_budget.py``.
"""

from __future__ import annotations

from service.core.melds import can_lay_off

from .analysis import MAX_HAND, MAX_TABLE_MELDS, analyze, go_out_cards, solve
from .arrangement import Analysis, Arrangement
from .budget import GAME_STEP_BUDGET, STEP_BUDGET

__all__ = [
    "GAME_STEP_BUDGET",
    "MAX_HAND",
    "MAX_TABLE_MELDS",
    "STEP_BUDGET",
    "Analysis",
    "Arrangement",
    "analyze",
    "can_lay_off",
    "go_out_cards",
    "solve",
]
