"""The two baseline bots: ``random`` and ``greedy``.

``random`` is the floor any bot must beat; ``greedy`` is the obvious solver-driven
player (one decision at a time, no memory), the bar the ``strong`` bot is
measured against.
"""

from __future__ import annotations

import random as _random

from service.client.types import Action, BotView

from .base import Bot, discard, draw

__all__ = ["GreedyBot", "RandomBot"]


class RandomBot(Bot):
    """Uniform over the legal actions (seedable, so a match can be replayed)."""

    name = "random"
    budget = 0  # it never asks the solver

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = _random.Random(seed)

    def choose(self, view: BotView) -> Action:
        return self.rng.choice(view["legal_actions"]).copy()


class GreedyBot(Bot):
    """Draws the discard when it lowers its best penalty, discards to minimise the penalty,
    goes out whenever it can. Every judgement is the exact solver's."""

    name = "greedy"
    #: None beyond its two questions (its hand, and its hand with the discard pile's top),
    #: each bounded by the solver's ``GAME_STEP_BUDGET``.
    budget = 0

    def __init__(self, seed: int | str | None = None) -> None:
        self.seed = seed  # unused: greedy is deterministic

    def choose(self, view: BotView) -> Action:
        pos = self.position(view)
        if pos.drawing:
            if pos.top is not None and pos.can_take_discard:
                now = pos.analyze(pos.hand).penalty
                taken = pos.analyze((*pos.hand, pos.top))
                can_go_out = bool(taken.go_out) and pos.phase == "draw"
                if can_go_out or taken.discards[0][1] < now:
                    return draw("discard")
            return draw("stock")
        a = pos.analyze(pos.hand)
        if pos.phase == "discard" and a.go_out:
            action = pos.go_out_for(a)
            if action is not None:
                return action
        return discard(a.discards[0][0])
