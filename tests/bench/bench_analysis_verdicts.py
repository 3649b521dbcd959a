"""What the analysis says of the reference bots (``make bench-analysis-verdicts``).

Plays ``--deals`` deals of a 5-seat game of ``random``, ``simple``, ``greedy``,
``strong`` and ``expert``, each deal once per seat rotation (duplicate: every bot plays every seat of
every deal), and ``--own`` games of four ``greedy`` bots (the analyser's own policy),
in-process; analyses every record at the default setting, on ``--jobs`` processes; and
prints per bot its decisions, its accuracy (the mean over its decisions) and its
inaccuracies, mistakes and blunders per 100 decisions, then the blunders found in the
policy's own games. What is asked of it: the accuracy orders ``random`` <
``simple``/``greedy`` < ``strong`` < ``expert``, and the analyser's own policy has no
blunders.

Usage: ``python -m tests.bench.bench_analysis_verdicts [--deals N] [--own N] [--jobs N]``
"""

from __future__ import annotations

import argparse
import math
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from service.analysis.game import analyse
from service.analysis.judge import accuracy
from service.match.inprocess import record_in_process

BOTS = ["random", "simple", "greedy", "strong", "expert"]
#: four rounds of growing hands: a deal's five rotations take about a minute and a half of
#: CPU
RULES = {"preset": "classic", "hand_sizes": [3, 5, 7, 9]}


def _analysed(job: tuple[list[str], str]) -> tuple[list[str], dict[str, Any]]:
    bots, seed = job
    return bots, analyse(record_in_process(bots, seed, RULES))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--deals", type=int, default=5)
    p.add_argument("--own", type=int, default=5)
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    jobs = [(BOTS[r:] + BOTS[:r], f"verdicts-{d}") for d in range(args.deals)
            for r in range(len(BOTS))]
    jobs += [(["greedy"] * 4, f"own-{g}") for g in range(args.own)]
    started = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(_analysed, jobs))
    regrets: dict[str, list[float]] = defaultdict(list)
    words: dict[str, dict[str | None, int]] = defaultdict(lambda: defaultdict(int))
    own_blunders = own_mistakes = own_decisions = 0
    for n, (bots, result) in enumerate(results):
        own = n >= args.deals * len(BOTS)
        for d in result["decisions"]:
            if own:
                own_decisions += 1
                own_blunders += d["judgement"] == "blunder"
                own_mistakes += d["judgement"] == "mistake"
                continue
            bot = bots[d["seat"]]
            regrets[bot].append(d["regret"])
            words[bot][d["judgement"]] += 1
    print(f"{args.deals} deals x {len(BOTS)} rotations of {', '.join(BOTS)} "
          f"({RULES['hand_sizes']}), analysed at the default setting in "
          f"{time.monotonic() - started:.0f} s on {args.jobs} processes")
    print(f"{'bot':<8} {'decisions':>9} {'accuracy':>9} {'± s.e.':>7} {'inaccuracies':>13} "
          f"{'mistakes':>9} {'blunders':>9}  (per 100 decisions)")
    for bot in sorted((b for b in BOTS if regrets[b]),
                      key=lambda b: sum(map(accuracy, regrets[b])) / len(regrets[b])):
        n = len(regrets[bot])
        scores = [accuracy(r) for r in regrets[bot]]
        mean = sum(scores) / n
        error = math.sqrt(sum((x - mean) ** 2 for x in scores) / (n - 1) / n)
        per = {w: 100 * words[bot][w] / n for w in ("inaccuracy", "mistake", "blunder")}
        print(f"{bot:<8} {n:>9} {mean:>9.2f} {error:>7.2f} {per['inaccuracy']:>13.1f} "
              f"{per['mistake']:>9.1f} {per['blunder']:>9.1f}")
    print(f"the analyser's own policy (greedy x4, {args.own} games): {own_blunders} "
          f"blunders and {own_mistakes} mistakes in {own_decisions} decisions")


if __name__ == "__main__":
    main()
