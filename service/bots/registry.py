"""The reference bots by name: what a bot seat, the match runner and ``GET /v1/bots`` name."""

from __future__ import annotations

from .base import Bot
from .expert import ExpertBot
from .simple import GreedyBot, RandomBot, SimpleBot
from .strong import StrongBot

__all__ = ["BOTS", "make_bot"]

BOTS: dict[str, type[Bot]] = {"random": RandomBot, "simple": SimpleBot, "greedy": GreedyBot,
                              "strong": StrongBot, "expert": ExpertBot}


def make_bot(name: str, seed: int | str | None = None) -> Bot:
    """A fresh bot of the named kind (one per seat per game)."""
    try:
        cls = BOTS[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(BOTS)}") from None
    return cls(seed)
