"""The solver's work budget, counted in search steps so that answers stay deterministic.

Why steps and not time: the same request must get the same answer on any machine
and under any load. A step is one search state expanded, one option tried from a
state, or one candidate considered while enumerating groups; the work per step is
bounded by a few microseconds, so ``STEP_BUDGET`` steps bound the CPU a request can
hold (see the package docstring for the figures).
"""

from __future__ import annotations

from service.engine.errors import SolverBudgetExceeded

__all__ = ["STEP_BUDGET", "Budget"]

#: Steps one call of ``analyze`` or ``solve`` may take (see the package docstring).
STEP_BUDGET = 20_000


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
