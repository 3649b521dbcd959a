"""``strong`` with other weights, against ``strong`` by duplicate deals (issue 35: is
there a cheaper way to an expert than more search? Measured in docs/strength.md).

``strong`` values a discard as ``now_weight`` of the penalty it keeps now, the rest of the
expected best penalty after the next stock draw, plus ``feed_malus`` for a card the next
player could use, and looks at its ``candidates`` best discards by present penalty. Its
defaults (0.3, 2.0, 4) were set by hand. Each variant here changes one of them and is
registered as a bot for the run only:

    python -m tests.bench.bench_tuning now0 strong --deals 200 --jobs 2
"""

from __future__ import annotations

from service.bots.strong import StrongBot
from tests.bench.bench_duplicate import main_with, variant

__all__ = ["VARIANTS"]


#: One setting changed each, by the name it plays under.
VARIANTS: dict[str, type[StrongBot]] = {
    "now0": variant(StrongBot, "now0", now_weight=0.0),
    "now5": variant(StrongBot, "now5", now_weight=0.5),
    "feed0": variant(StrongBot, "feed0", feed_malus=0.0),
    "feed4": variant(StrongBot, "feed4", feed_malus=4.0),
    "cand2": variant(StrongBot, "cand2", candidates=2),
    "cand6": variant(StrongBot, "cand6", candidates=6),
}


if __name__ == "__main__":
    main_with(VARIANTS)
