"""``expert``: ``strong``'s expectimax over the next draw, searched to the end.

What it searches: every decision ``strong`` makes by looking one draw ahead (which
discard, whether to take the pile's top) is a one-ply expectimax: for each candidate,
the average over the card the next stock draw brings of the exact solver's best
penalty after it. ``strong`` fits that search into ``STRONG_BUDGET`` by trying at most
40 kinds of unseen card, and in classic games its budget runs out before the last kind
in about two decisions of five, so it compares its candidates on a sample. ``expert``
tries every kind of unseen card, weighted by the copies left, on every candidate, within
``EXPERT_BUDGET``, enough for some 99 classic decisions in 100 (the rest, 14-card
discards, compare their candidates on the kinds tried, as ``strong`` does): its
expectations are exact where ``strong``'s are estimates.
Everything else (the card counting, the defence, going out at once) is ``strong``'s.

Why not determinized Monte Carlo (playing candidates out in worlds sampled from the
seat's knowledge): measured against ``strong`` by duplicate deals, playouts by the
fast ``greedy`` policy pull the search towards ``greedy``'s moves, and the deeper they go
the worse it plays (docs/strength.md has the figures). The exact one-draw expectation,
at 4x ``strong``'s cost, is what beat it.

The budget is counted in solver steps (:mod:`.budget`), not time, so the same inputs
give the same move on any machine, and the service's move worker and a verifier agree.
"""

from __future__ import annotations

from .strong import StrongBot

__all__ = ["EXPERT_BUDGET", "ExpertBot"]

#: Work units of look-ahead per decision (about 4.5 µs of CPU each with a cold cache:
#: 0.7 s at most; ``make bench-decisions``): what 99% of classic decisions need to
#: search to the end (the costliest measured, 14-card discards, needed up to 185,000).
EXPERT_BUDGET = 150_000
#: Every kind of card there is (52 and the joker): no sample, the whole expectation.
EVERY_KIND = 53


class ExpertBot(StrongBot):
    """``strong`` with its look-ahead over every unseen card, within ``EXPERT_BUDGET``."""

    name = "expert"
    budget: int | None = EXPERT_BUDGET

    def __init__(self, seed: int | str | None = None, *,
                 budget: int | None = EXPERT_BUDGET) -> None:
        super().__init__(seed, max_kinds=EVERY_KIND, budget=budget)
