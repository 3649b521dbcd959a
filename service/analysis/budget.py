"""An analysis' work, counted in engine steps: the actions its playouts apply.

Why steps and not playouts: a playout runs a round to its end, and how long that is
depends on the game, not on the analysis. A round where nobody goes out runs to the
rules' ``turn_limit`` (up to 100 turns each), so a count of playouts let one request on
a stalled game cost ten times what a whole ordinary game does. An engine step (one
draw, discard or going out applied, with the policy's choice of it) costs within a few
times the same whatever the game (the hands' size and wild cards set it: 460 to 1,900
steps a CPU-second measured, docs/analysis.md#cost), where a playout's length varies a
hundredfold; so a bound in steps is a bound in CPU time.

How it is enforced: the :class:`StepBudget` is passed down to every playout, which
charges it one step before each action it applies; a charge past the limit raises
:class:`StepsSpent`, which abandons the decision being judged. Each decision is also
charged :data:`DECISION_STEPS` for its work outside playouts (blinding, ranking the
candidates, the policy's move, a final discard's exact scores). So the steps an analysis
takes never pass its limit, whatever the game.

How it degrades: before each decision, :meth:`StepBudget.fit` gives it the setting that
fits an even share of what is left (the steps left over the decisions left), from the
steps the decisions' playouts have taken so far in this game: fewer worlds first, then
fewer candidate discards, then smaller second looks. When not every decision left fits even the least
setting, those that do are spread over the rest of the game (not the first ones
taken), and the others are not judged (``unjudged``). The choice reads only step
counts, never a clock, so the same record and settings still give the same analysis.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from service.core.rules import Rules

from .judge import Settings

__all__ = ["DECISION_STEPS", "HARD_STEP", "PRIOR_UNIT_STEPS", "RELOOK_SHARE", "UNITS_PER_STEP",
           "StepBudget", "StepsSpent", "playouts", "step_weight"]

#: What a decision's work outside its playouts is charged, in steps: measured at one to
#: two steps' worth of CPU (13- and 14-card hands, its replay and the seat's view
#: included), charged well above that for the decisions that solve more (a final
#: discard's exact scores solve the hand once per card).
DECISION_STEPS = 10
#: The playout steps a decision takes per playout :func:`playouts` counts, assumed before
#: any decision of this game has been judged (4-seat classic games average 13: most
#: decisions have fewer candidates than the most, and no second look).
PRIOR_UNIT_STEPS = 13.0
#: At most this share of a game's decisions get a second look (``Settings.relook``); the
#: rest keep their first look's verdict. ``random``'s play ends at 5.8 mistakes and
#: blunders in 100 decisions, the other reference bots' under 0.2 (``make
#: bench-analysis-verdicts``).
RELOOK_SHARE = 0.1


#: What one playout step is charged where the rules make the solver's work per step
#: several times larger: 460 steps a CPU-second measured with 14-card hands, 8 jokers and
#: lay-offs, against 1,300 to 1,900 in 13-card and classic games; so a budget of steps is
#: the same bound in CPU whatever the rules.
HARD_STEP = 4


def step_weight(rules: Rules) -> int:
    """The charge of one playout step under ``rules``: :data:`HARD_STEP` where hands pass
    13 cards, jokers are more than two or cards are laid off onto table melds, else 1."""
    return HARD_STEP if rules.hard_to_solve else 1


#: The work units of a playout move's look-ahead (:meth:`StepBudget.work`) charged as one
#: step: what a CPU-second of either buys in a 4-seat classic game at the default setting,
#: so a step costs the same CPU whether it is an action or a search (measured with ``make
#: bench-analysis``, docs/analysis.md#cost).
UNITS_PER_STEP = 500


class StepsSpent(Exception):
    """The analysis' steps are spent: the decision being judged is abandoned."""


def playouts(settings: Settings) -> float:
    """The most playouts one decision costs at ``settings``: its candidates, the move
    taken and going out in each world, and a second look (at most :data:`RELOOK_SHARE`
    of the decisions get one) of the move taken, the best and the policy's."""
    return settings.worlds * (settings.candidates + 2 + RELOOK_SHARE * 3 * settings.relook)


@dataclass(slots=True)
class StepBudget:
    """The steps an analysis may take (``limit``; ``None``: no limit) and those taken:
    ``spent`` in all, ``playout_steps`` of them in playouts; ``planned``: the
    :func:`playouts` of the settings the decisions were judged at, summed."""

    limit: int | None = None
    #: what one playout step is charged (:func:`step_weight`)
    weight: int = 1
    spent: int = 0
    playout_steps: int = 0
    planned: float = 0.0
    #: decisions owed a judgement when not all of those left fit (:meth:`fit`)
    credit: float = 0.0
    #: look-ahead work units not yet charged as a whole step (:meth:`work`)
    units: int = 0

    def charge(self, steps: int = 1) -> None:
        """Take ``steps`` more, or raise :class:`StepsSpent` (taking none) if that would
        pass the limit."""
        if self.limit is not None and self.spent + steps > self.limit:
            raise StepsSpent
        self.spent += steps

    def step(self) -> None:
        """One action of a playout (the hook :func:`service.bots.playout.play_out` calls
        before each it applies), charged :attr:`weight`."""
        self.charge(self.weight)
        self.playout_steps += self.weight

    def work(self, units: int) -> None:
        """A playout move's look-ahead took ``units`` work units of solver search (the
        ``strong`` policy's, :class:`service.bots.budget.DecisionBudget`): charged as
        :data:`UNITS_PER_STEP` units a step (times :attr:`weight`), the remainder carried
        to the next, so a move's search is paid in the same steps its actions are."""
        self.units += units
        steps = self.units // UNITS_PER_STEP
        if steps:
            self.units -= steps * UNITS_PER_STEP
            self.charge(steps * self.weight)
            self.playout_steps += steps * self.weight

    def judged(self, settings: Settings) -> None:
        """A decision was judged at ``settings`` (with playouts): what :meth:`fit`
        learns this game's cost of a playout from."""
        self.planned += playouts(settings)

    @property
    def per_unit(self) -> float:
        """The playout steps a decision has taken in this game so far per playout
        :func:`playouts` counts at its setting (:data:`PRIOR_UNIT_STEPS` before any)."""
        return self.playout_steps / self.planned if self.planned else PRIOR_UNIT_STEPS

    def fit(self, settings: Settings, decisions_left: int, exact: bool = False,
            ) -> Settings | None:
        """The setting the next of ``decisions_left`` decisions is judged at: the largest,
        from ``settings`` down, whose expected steps fit an even share of the steps left;
        ``None`` when even the least does not (the decision is left unjudged). An
        ``exact`` one (a final discard) runs no playout."""
        if self.limit is None:
            return settings
        left = self.limit - self.spent
        if exact:
            return settings if left >= DECISION_STEPS else None
        share = left / max(1, decisions_left)

        def cost(s: Settings) -> float:
            return DECISION_STEPS + playouts(s) * self.per_unit

        s = settings
        while s.worlds > 1 and cost(s) > share:
            s = replace(s, worlds=s.worlds - 1)
        while s.candidates > 1 and cost(s) > share:
            s = replace(s, candidates=s.candidates - 1)
        while s.relook > 1 and cost(s) > share:
            s = replace(s, relook=s.relook - 1)
        if cost(s) <= share:
            return s
        # not every decision left fits even the least setting: judge the share of them
        # that does, spread over the rest of the game (a credit of share / cost a
        # decision, one judged per whole credit), not the first ones only
        self.credit += share / cost(s)
        if self.credit < 1 or cost(s) > left:
            return None
        self.credit -= 1
        return s
