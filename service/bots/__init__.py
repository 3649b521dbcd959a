"""Reference bots that play over HTTP, each seeing only its own seat's view.

* ``random``: uniform over the legal actions.
* ``simple``: Neller's SimpleGinRummyPlayer ported (the EAAI-2021 challenge's baseline).
* ``greedy``: the exact solver, one decision at a time.
* ``strong``: greedy plus card counting and a one-draw look-ahead, within a budget.
* ``expert``: ``strong``'s look-ahead over every unseen card (an exact expectimax).

``make_bot("greedy", seed=…)`` builds one by name; :data:`BOTS` lists them.
A bot is any object with ``choose(view) -> action`` (see :class:`Bot`).
:func:`decide` is the one way the service makes a bot seat's move (a pure function of
the bot's name, its RNG seed from :func:`decision_seed`, and what the seat saw).
"""

from __future__ import annotations

from .base import Bot
from .budget import DecisionBudget
from .decide import decide, decision_seed
from .expert import EXPERT_BUDGET, ExpertBot
from .registry import BOTS, make_bot
from .simple import GreedyBot, RandomBot, SimpleBot
from .strong import STRONG_BUDGET, StrongBot

__all__ = [
    "BOTS",
    "EXPERT_BUDGET",
    "STRONG_BUDGET",
    "Bot",
    "DecisionBudget",
    "ExpertBot",
    "GreedyBot",
    "RandomBot",
    "SimpleBot",
    "StrongBot",
    "decide",
    "decision_seed",
    "make_bot",
]
