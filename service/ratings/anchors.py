"""The ladder's anchors: each reference bot's fixed rating, per bot and version.

Why fixed: a rating only means something against a scale that stays put. The reference
bots are frozen programs (a change of play is a new ``version``, :class:`service.bots.Bot`),
so their strength does not drift, and pinning their ratings pins the scale: a bot rated
1600 today and one rated 1600 in a year finish ahead of ``greedy`` equally often. A
reference bot is rated against like any player, but its own rating never moves.

The numbers come from the reference bots' games against each other (classic, 2 to 4
seats, seats shuffled; ``tests/bench/calibrate_anchors.py`` replays the measurement):
``strong`` finished ahead of ``greedy`` in 69% of 115 pairings, which Glicko's
expectation ``1 / (1 + 10^(-d/400))`` reads as 140 points (± 30); ``greedy`` and ``strong``
finished ahead of ``random`` every time, a gap past what a rating can measure, so
``random`` sits 700 below ``greedy`` (a 98% expectation). ``simple`` finished ahead of
``greedy`` in 54.6% of 400 duplicate deals of two seats (``python -m service.match
--duplicate --in-process --bots simple,greedy --deals 400 --seed anchor``): 32 points
(+14 to +51), so it sits at 1530. ``expert`` finished ahead of ``strong``
in 51.2% of 500 such deals (``make bench-duplicate BOTS="expert strong" DEALS=500``):
9 points (-2 to +19), so it sits at 1649. ``greedy``, the bot every
other bot is first measured against, is the scale's 1500: a new account starts there.
The deviation is small (:data:`ANCHOR_DEVIATION`): results against an anchor are
informative, as results against a well-known player are.
"""

from __future__ import annotations

from .glicko2 import Rating

__all__ = ["ANCHORS", "ANCHOR_DEVIATION", "anchor"]

#: The deviation an anchor is rated against with.
ANCHOR_DEVIATION = 50.0
#: name -> version -> fixed rating.
ANCHORS: dict[str, dict[int, float]] = {
    "random": {1: 800.0},
    "simple": {1: 1530.0},
    "greedy": {1: 1500.0},
    "strong": {1: 1640.0},
    "expert": {1: 1649.0},
}


def anchor(name: str, version: int) -> Rating:
    """The fixed rating of reference bot ``name`` at ``version`` (KeyError: none yet)."""
    return Rating(ANCHORS[name][version], ANCHOR_DEVIATION, 0.06)
