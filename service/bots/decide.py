"""One decision the service makes for a bot seat, as a pure function of what the seat saw.

Why one entry point: a bot move is made by a process of the service (a move worker)
and checked after the game by a verifier that re-runs it from the record. Both must
get the same action from the same inputs, so everything a decision depends on is an
argument of :func:`decide`: the bot's name, the seed of its RNG, the seat's view and
the seat's events, all plain JSON data. Nothing else goes in: the bot object is built
afresh (``strong`` replays the seat's events for its card counting), its look-ahead
is bounded in solver steps rather than time (``service/bots/budget.py``), and the
process-wide cache of analyses changes only how fast it decides, never what.

Why :func:`decision_seed` hashes the salt in: a bot's random choices are visible to
everyone at the table, and a seed may be guessable (a creator may choose it, like
``"61"``). An RNG seeded from the seed alone would let an observer try guessed seeds
until one reproduces the bot's choices, and a seed found that way deals every hand
and the stock. The salt is 128 random bits that stay secret until the end, so the RNG
seed cannot be searched for while the game runs, whatever the seed; once the record
reveals both, a verifier recomputes it exactly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from service.client.types import Action, BotView

from .registry import make_bot

__all__ = ["DECISION_SEED_LABEL", "decide", "decision_seed"]

#: Names what the hash is for, so that it can equal no other hash of the same secrets.
DECISION_SEED_LABEL = "three-thirteen/bot-decision/v1"


def decision_seed(seed_salt: str, seed: str, seat: int, version: int) -> str:
    """The RNG seed of the bot decision of ``seat`` at game ``version``: sha256 hex of the
    label, the salt, the seed, the seat and the version (a JSON list, so no two inputs
    can run together into the same string)."""
    text = json.dumps([DECISION_SEED_LABEL, seed_salt, seed, seat, version],
                      ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def decide(bot: str, rng_seed: str, seat_view: BotView,
           seat_events: Sequence[Mapping[str, Any]]) -> Action:
    """The action the reference bot ``bot`` chooses from what its seat may see, only.

    ``seat_view`` is the engine's view of the seat (the dict a client gets) and
    ``seat_events`` that seat's share of the game's events from the start (only a bot
    that ``wants_events`` reads them). The work is bounded by the bot's budget; the
    action is always one of ``seat_view["legal_actions"]``.
    """
    player = make_bot(bot, seed=rng_seed)
    player.start(seat_view)
    if player.wants_events:
        player.observe(seat_events)
    return player.choose(seat_view).copy()
