"""What the analysis says of the reference bots (``make bench-analysis-verdicts``).

Plays ``--deals`` deals of a 5-seat game of ``random``, ``simple``, ``greedy``,
``strong`` and ``expert``, each deal once per seat rotation (duplicate: every bot plays every seat of
every deal), and ``--own`` games of four ``greedy`` bots (the analyser's own policy),
in-process; analyses every record at the default setting, on ``--jobs`` processes; and
prints per bot its decisions, its accuracy (the mean over its decisions) and its
inaccuracies, mistakes and blunders per 100 decisions, then the blunders found in the
policy's own games. Then ``--luck`` 2-seat games of ``--luck-bot`` against itself, each
a deal of its own (a deal played again with the seats swapped is the same game when both
seats are the same bot: the same cards, the same choices): the mean luck of a seat's
game and the mean difference of the two seats' luck-adjusted totals, each with its 95%
interval over the games. What is asked of it: the accuracy orders ``random`` <
``simple``/``greedy`` < ``strong`` < ``expert``, the analyser's own policy has no
blunders, and between a bot and itself both luck figures are 0 within their intervals
(luck is the card drawn less the mean of those it could have been, so it averages out;
the adjusted totals differ by skill only, and there is none between a bot and itself).

Usage: ``python -m tests.bench.bench_analysis_verdicts [--deals N] [--own N] [--luck N]
[--luck-bot BOT] [--jobs N]``
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
    p.add_argument("--luck", type=int, default=10, help="games of a bot against itself")
    p.add_argument("--luck-bot", default="strong")
    p.add_argument("--jobs", type=int, default=2)
    args = p.parse_args()
    jobs = [(BOTS[r:] + BOTS[:r], f"verdicts-{d}") for d in range(args.deals)
            for r in range(len(BOTS))]
    jobs += [(["greedy"] * 4, f"own-{g}") for g in range(args.own)]
    jobs += [([args.luck_bot] * 2, f"luck-{g}") for g in range(args.luck)]
    started = time.monotonic()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(_analysed, jobs))
    regrets: dict[str, list[float]] = defaultdict(list)
    words: dict[str, dict[str | None, int]] = defaultdict(lambda: defaultdict(int))
    own_blunders = own_mistakes = own_decisions = 0
    played = args.deals * len(BOTS)
    lucky = results[played + args.own:]
    for n, (bots, result) in enumerate(results[:played + args.own]):
        own = n >= played
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
    if lucky:
        _print_luck(args.luck_bot, [r for _, r in lucky])


def _print_luck(bot: str, games: list[dict[str, Any]]) -> None:
    """The luck figures of games of ``bot`` against itself: the mean luck of a seat's
    game (both seats of every game; a game's two seats are not independent, so the
    interval is over games, each the mean of its two) and the mean difference of a game's
    adjusted totals (seat 0 less seat 1), each with its 95% interval."""
    lucks = [sum(s["luck"] for s in g["seats"]) / 2 for g in games]
    differences = [g["seats"][0]["adjusted_total"] - g["seats"][1]["adjusted_total"]
                   for g in games]
    print(f"{bot} against itself, {len(games)} games of 2 seats")
    print(f"{'figure':<38} {'mean':>8} {'95% interval':>20} {'0 inside':>9}")
    for name, values in (("luck of a seat's game", lucks),
                         ("adjusted total, seat 0 less seat 1", differences)):
        n = len(values)
        mean = sum(values) / n
        error = math.sqrt(sum((x - mean) ** 2 for x in values) / (n - 1) / n) if n > 1 else 0.0
        low, high = mean - 1.96 * error, mean + 1.96 * error
        print(f"{name:<38} {mean:>8.2f} {f'[{low:.2f}, {high:.2f}]':>20} "
              f"{'yes' if low <= 0 <= high else 'NO':>9}")

if __name__ == "__main__":
    main()
