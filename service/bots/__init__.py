"""Reference bots that play over HTTP, each seeing only its own seat's view.

* ``random``: uniform over the legal actions.
* ``greedy``: the exact solver, one decision at a time.
* ``strong``: greedy plus card counting and a one-draw look-ahead.

``make_bot("greedy", seed=…)`` builds one by name; :data:`BOTS` lists them.
A bot is any object with ``choose(view) -> action`` (see :class:`Bot`).
"""

from __future__ import annotations

from .base import Bot
from .simple import GreedyBot, RandomBot
from .strong import StrongBot

__all__ = ["BOTS", "Bot", "GreedyBot", "RandomBot", "StrongBot", "make_bot"]

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot, "strong": StrongBot}


def make_bot(name: str, seed: int | str | None = None) -> Bot:
    """A fresh bot of the named kind (one per seat per game)."""
    try:
        cls = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOTS)}") from None
    return cls(seed)  # type: ignore[call-arg]
