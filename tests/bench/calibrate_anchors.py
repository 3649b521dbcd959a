"""The measurement behind the ladder's anchors (``service/ratings/anchors.py``): the
reference bots play classic games against each other in this process (2 to 4 seats,
seats shuffled, ``strong`` given its events as the service gives them) and the share of
pairings each finishes ahead of each other is printed, with the rating gap Glicko's
expectation ``1 / (1 + 10^(-d/400))`` reads into it.

``python -m tests.bench.calibrate_anchors --games 150`` (tens of minutes: ``strong``
spends up to a second a decision). Run it again when a reference bot's play changes
(a new ``version``) and give the new version its anchor.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
from collections import Counter

from service.match.inprocess import play_in_process

TABLES = [["greedy", "random"], ["strong", "greedy"], ["strong", "random"],
          ["strong", "greedy", "random"], ["strong", "greedy", "greedy", "random"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    ahead, met = Counter[tuple[str, str]](), Counter[tuple[str, str]]()
    for i in range(args.games):
        bots = list(rng.choice(TABLES))
        rng.shuffle(bots)
        totals = play_in_process(bots, f"calibrate-{args.seed}-{i}")
        for a, b in itertools.permutations(range(len(bots)), 2):
            if bots[a] != bots[b]:
                met[bots[a], bots[b]] += 1
                ahead[bots[a], bots[b]] += (1.0 if totals[a] < totals[b]
                                            else 0.5 if totals[a] == totals[b] else 0.0)
    for pair in sorted(met):
        share = ahead[pair] / met[pair]
        gap = 400 * math.log10(share / (1 - share)) if 0 < share < 1 else math.inf
        print(f"{pair[0]:>7} ahead of {pair[1]:<7} {share:6.1%} of {met[pair]:>4} "
              f"pairings: {gap:+.0f} points")


if __name__ == "__main__":
    main()
