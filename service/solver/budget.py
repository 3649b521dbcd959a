"""The solver's work budget, counted in search steps so that answers stay deterministic.

Why steps and not time: the same request must get the same answer on any machine
and under any load. A step is one search state expanded, one option tried from a
state, or one candidate considered while enumerating groups; the work per step is
bounded by a few microseconds, so ``STEP_BUDGET`` steps bound the CPU a request can
hold (see the package docstring for the figures).
"""

from __future__ import annotations

from service.core.errors import SolverBudgetExceeded

__all__ = ["GAME_STEP_BUDGET", "STEP_BUDGET", "Budget"]

#: Steps one call of ``analyze`` or ``solve`` may take (see the package docstring): the
#: bound for ``POST /v1/solve``, whose hands (up to 30 cards, 12 table melds) are anyone's.
STEP_BUDGET = 20_000
#: The bound for positions of a game (at most 15 cards in hand): a game must never be
#: refused its own legal position, so this is a safety net against a runaway search, not a
#: limit such hands meet. The costliest seen, 14 spades and a joker under bga with aces
#: wrapping and one natural per meld, takes between 100,000 and 1,000,000 steps (about
#: 70 ms); every preset's positions stay far below 20,000.
GAME_STEP_BUDGET = 1_000_000


class Budget:
    """Counts the steps of one solver call and refuses to go past ``limit``."""

    def __init__(self, limit: int | None = STEP_BUDGET) -> None:
        self.limit = limit
        self.steps = 0

    def spend(self, steps: int) -> None:
        self.steps += steps
        if self.limit is not None and self.steps > self.limit:
            raise SolverBudgetExceeded(
                f"this hand needs more than {self.limit} search steps; "
                "use fewer cards, wilds or table melds",
                steps=self.limit,
            )
