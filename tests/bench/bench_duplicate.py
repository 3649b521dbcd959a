"""Duplicate evaluation against independent games (``make bench-duplicate``).

Plays ``--deals`` deals of bot A against bot B in this machine's processes (the engine,
every seat decided as the service decides it: ``service/match/inprocess.py``), each deal
once per seat rotation, and prints the duplicate report next to what the same number of
independent games would have told: the first rotation of each deal is an independent
game (a fresh deal, seats alternating from deal to deal), so the standard error of A's
total minus B's over those games is the independent figure, measured in the same run.
It also prints how many of the decisive rounds (A and B scored differently) A won, with
a 95% interval clustered by deal (the rounds of one deal share its cards), counted two
ways: every round of every game on its own, and every round of a deal over both
rotations (A's two penalties for it, one from each hand, summed against B's), the
duplicate count, where the luck of the cards cancels as it does in the totals.

Usage: ``python -m tests.bench.bench_duplicate strong greedy --deals 200 [--jobs 2]``
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Iterable, Mapping
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from service.bots.base import Bot
from service.bots.registry import BOTS
from service.match.duplicate import Deal, format_report, report, rotations
from service.match.inprocess import rounds_in_process
from service.match.runner import labels_of

RULES = {"preset": "classic"}

B = TypeVar("B", bound=Bot)


def variant(base: type[B], name: str, **kw: Any) -> type[B]:
    """``base`` with the settings ``kw`` fixed, playing under ``name``: a prototype or a
    tuning of a reference bot, for a run of this bench (:func:`main_with`)."""

    class Variant(base):  # type: ignore[valid-type,misc]
        def __init__(self, seed: int | str | None = None) -> None:
            super().__init__(seed, **kw)

    Variant.name = name
    return Variant


def main_with(variants: Mapping[str, type[Bot]]) -> None:
    """:func:`main` with ``variants`` registered as bots for the run only (forked workers
    inherit them)."""
    BOTS.update(variants)
    main()


Counts = tuple[int, int]


def won_and_decisive(pairs: Iterable[tuple[int, int]]) -> Counts:
    """Of ``(A's penalty, B's penalty)`` pairs: how many A won, and how many were not tied."""
    won = decisive = 0
    for mine, theirs in pairs:
        won += mine < theirs
        decisive += mine != theirs
    return won, decisive


def deal(args: tuple[str, str, str]) -> tuple[Deal, Counts, Counts]:
    """One deal once per rotation: the deal, the rounds A won and the decisive ones game
    by game, and the same over both rotations of each round."""
    a, b, seed = args
    labels = labels_of([a, b])
    by_label = dict(zip(labels, [a, b], strict=True))
    seatings = rotations(labels)
    totals, a_scores, b_scores = [], [], []
    for seats in seatings:
        scores = rounds_in_process([by_label[x] for x in seats], seed, RULES)
        totals.append(tuple(sum(s) for s in scores))
        a_scores.append(scores[seats.index(labels[0])])
        b_scores.append(scores[seats.index(labels[1])])
    by_game = won_and_decisive(
        pair for mine, theirs in zip(a_scores, b_scores, strict=True)
        for pair in zip(mine, theirs, strict=True))
    # a round's penalties summed over the rotations: one from each hand of it
    by_deal_round = won_and_decisive(zip(map(sum, zip(*a_scores, strict=True)),
                                         map(sum, zip(*b_scores, strict=True)), strict=True))
    return Deal(seed, tuple(tuple(s) for s in seatings), tuple(totals)), by_game, by_deal_round


def decisive_share(counts: list[Counts]) -> tuple[float, float]:
    """The share of decisive rounds A won, and its standard error clustered by deal (the
    ratio estimator's, over deals)."""
    won, decisive = sum(w for w, _ in counts), sum(d for _, d in counts)
    share = won / decisive
    n = len(counts)
    spread = sum((w - share * d) ** 2 for w, d in counts) * n / (n - 1)
    return share, math.sqrt(spread) / decisive


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--seed", default="bench")
    args = p.parse_args()
    started = time.perf_counter()
    work = [(args.a, args.b, f"{args.seed}-{i}") for i in range(args.deals)]
    with ProcessPoolExecutor(args.jobs) as pool:
        played = list(pool.map(deal, work))
    deals = [d for d, _, _ in played]
    wall = time.perf_counter() - started
    labels = list(deals[0].seats[0])
    summary = report(deals, labels)
    print(format_report(summary))
    # one rotation of each deal as an independent game, alternating so that A sits first
    # in every other game
    diffs = []
    for i, d in enumerate(deals):
        seats, totals = d.seats[i % 2], d.totals[i % 2]
        diffs.append(totals[seats.index(labels[0])] - totals[seats.index(labels[1])])
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (n - 1))
    independent = sd / math.sqrt(n)
    duplicate = summary["pairs"][0]["diff_se"]
    print()
    print(f"{'A - B over':<34}{'mean':>9}{'std. error':>12}")
    print(f"{f'{n} independent games':<34}{mean:>+9.2f}{independent:>12.2f}")
    print(f"{f'{n} duplicate deals ({2 * n} games)':<34}{summary['pairs'][0]['diff']:>+9.2f}"
          f"{duplicate:>12.2f}")
    print(f"ratio of the standard errors (duplicate / independent): {duplicate / independent:.2f}")
    by_game = [g for _, g, _ in played]
    by_deal_round = [r for _, _, r in played]
    for name, counts in (("rounds", by_game), ("deal-rounds over both rotations", by_deal_round)):
        share, error = decisive_share(counts)
        print(f"decisive {name} won by {labels[0]}: {sum(w for w, _ in counts)} of "
              f"{sum(d for _, d in counts)}, {share:.1%} "
              f"[{share - 1.96 * error:.1%}, {share + 1.96 * error:.1%}]")
    print(f"wall time {wall:.0f} s on {args.jobs} processes")


if __name__ == "__main__":
    main()
