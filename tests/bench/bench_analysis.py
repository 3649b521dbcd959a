"""The CPU cost of analysing whole games (``make bench-analysis``).

Plays 4-seat classic games (11 rounds) of reference bots in this process, then analyses
each record at the default setting (``service/analysis``) on one core, timing each
decision in CPU time: the decisions per game, the game's CPU seconds (the bound asked
for is 60 s per game on one core), and the median and p99 of one decision. Then each
record again with another sampling seed (untimed): the share of the decisions whose
judgement changed (the bound asked for: under 5%).

Usage: ``python -m tests.bench.bench_analysis [--worlds N] [--candidates N]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

from service.analysis.game import decisions_of
from service.analysis.judge import DEFAULT, Settings, judge
from service.match.inprocess import record_in_process

TABLES = [["greedy"] * 4, ["strong", "greedy", "simple", "strong"], ["simple"] * 4]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--worlds", type=int, default=DEFAULT.worlds)
    p.add_argument("--candidates", type=int, default=DEFAULT.candidates)
    args = p.parse_args()
    settings = Settings(worlds=args.worlds, candidates=args.candidates)
    print(f"settings: {settings.to_dict()}")
    other = replace(settings, seed=f"{settings.seed}/another")
    print(f"{'bots':<30} {'decisions':>9} {'CPU s':>7} {'median ms':>10} {'p99 ms':>8} "
          f"{'judged otherwise':>17}")
    changed = total = 0
    for n, bots in enumerate(TABLES):
        record = record_in_process(bots, f"bench-analysis-{n}", {"preset": "classic"})
        times, differ = [], 0
        for d in decisions_of(record):
            started = time.process_time()
            verdict = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, settings,
                            drawn=d.drawn)
            times.append((time.process_time() - started) * 1000)
            again = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, other)
            differ += verdict.judgement != again.judgement
        changed, total = changed + differ, total + len(times)
        ordered = sorted(times)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
        print(f"{','.join(bots):<30} {len(times):>9} {sum(times) / 1000:>7.1f} "
              f"{statistics.median(times):>10.1f} {p99:>8.1f} "
              f"{100 * differ / len(times):>16.1f}%")
    print(f"judged otherwise with another sampling seed: {changed} of {total} decisions "
          f"({100 * changed / total:.1f}%)")


if __name__ == "__main__":
    main()
