"""The baseline bots: ``random``, ``simple`` and ``greedy``.

``random`` is the floor any bot must beat. ``simple`` is this game's port of Neller's
SimpleGinRummyPlayer, the baseline every entry of the EAAI-2021 gin rummy challenge was
measured against, so a bot's strength here reads on a scale others know. ``greedy`` is
the obvious solver-driven player (one decision at a time, no memory), the bar the
``strong`` bot is measured against.
"""

from __future__ import annotations

import random as _random

from service.client.types import Action, BotView
from service.core.cards import card_name

from .base import Bot, Position, discard, draw

__all__ = ["GreedyBot", "RandomBot", "SimpleBot"]


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


class SimpleBot(Bot):
    """Neller's SimpleGinRummyPlayer, ported: takes the discard only when the card joins a
    meld of the solver's best arrangement of the hand with it (or goes out with it),
    discards the highest-valued deadwood card of its best arrangement (ties: at random,
    seeded), and goes out as soon as it can. Unlike ``greedy`` it never weighs what a
    draw or a discard does to its penalty beyond that."""

    name = "simple"
    budget = 0  # two solver questions at most, both required

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = _random.Random(seed)

    def choose(self, view: BotView) -> Action:
        pos = self.position(view)
        if pos.drawing:
            if pos.top is not None and pos.can_take_discard:
                taken = pos.analyze((*pos.hand, pos.top))
                if (taken.go_out and pos.phase == "draw") or any(
                        pos.top in meld for meld in taken.best.melds):
                    return draw("discard")
            return draw("stock")
        a = pos.analyze(pos.hand)
        if pos.phase == "discard" and a.go_out:
            action = pos.go_out_for(a)
            if action is not None:
                return action
        return discard(self._highest_deadwood(pos, a.best.deadwood, a.discards))

    def _highest_deadwood(self, pos: Position, deadwood: tuple[int, ...],
                          ranked: tuple[tuple[int, int], ...]) -> int:
        """The legal discard of highest penalty among the deadwood; with none (all of
        the hand melds, yet it cannot go out), the solver's best discard."""
        legal = {x["card"] for x in pos.legal if x["type"] == "discard"}
        values = pos.rules.penalty_table(pos.wild)
        cards = sorted({c for c in deadwood if card_name(c) in legal})
        if not cards:
            return next(c for c, _ in ranked if card_name(c) in legal)
        top = max(values[c] for c in cards)
        return self.rng.choice([c for c in cards if values[c] == top])
