"""The CPU cost of analysing whole games (``make bench-analysis``).

Plays 4-seat classic games (11 rounds) of reference bots in this process, then judges
every decision of each record at the default setting (``service/analysis``) on one core,
timing each decision in CPU time: the decisions per game, the game's CPU seconds (the
bound asked for is 60 s per game on one core), and the median and p99 of one decision.
Then each decision again: with another sampling seed (untimed; the share whose judgement
changed, the bound asked for: under 1%), at the ``QUICK`` setting (timed; the bound: 10 s
a game, and the same judgement as the default on at least 95% of decisions), and with
``--greedy``, by the judge of ``greedy`` playouts to the round's end (``GREEDY``, timed:
what the default replaced).

Usage: ``python -m tests.bench.bench_analysis [--worlds N] [--candidates N] [--lookahead N]
[--relook N] [--greedy] [--show]`` (the quick setting is the one measured without look-ahead).
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

from service.analysis.game import Decision, decisions_of
from service.analysis.judge import DEFAULT, GREEDY, QUICK, Settings, Verdict, judge, key_of
from service.match.inprocess import record_in_process

TABLES = [["greedy"] * 4, ["strong", "greedy", "simple", "strong"], ["simple"] * 4]


def _timed(d: Decision, settings: Settings, times: list[float]) -> Verdict:
    started = time.process_time()
    verdict = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, settings,
                    drawn=d.drawn)
    times.append((time.process_time() - started) * 1000)
    return verdict


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--worlds", type=int, default=DEFAULT.worlds)
    p.add_argument("--candidates", type=int, default=DEFAULT.candidates)
    p.add_argument("--lookahead", type=int, default=DEFAULT.lookahead)
    p.add_argument("--relook", type=int, default=DEFAULT.relook)
    p.add_argument("--greedy", action="store_true",
                   help="also judge by greedy playouts to the round's end (the old default)")
    p.add_argument("--show", action="store_true",
                   help="list the decisions another sampling seed judged otherwise")
    args = p.parse_args()
    settings = replace(DEFAULT, worlds=args.worlds, candidates=args.candidates,
                       lookahead=args.lookahead, relook=args.relook)
    quick_settings = replace(settings, lookahead=QUICK.lookahead)  # QUICK of this setting
    print(f"settings: {settings.to_dict()}\nquick: {quick_settings.to_dict()}")
    other = replace(settings, seed=f"{settings.seed}/another")
    print(f"{'bots':<28} {'decisions':>9} {'CPU s':>6} {'median ms':>9} {'p99 ms':>7} "
          f"{'other seed':>10} {'quick s':>7} {'as quick':>8}"
          + (f" {'greedy s':>8} {'as greedy':>9}" if args.greedy else ""))
    sums = {"total": 0, "seed": 0, "quick": 0, "greedy": 0}
    for n, bots in enumerate(TABLES):
        record = record_in_process(bots, f"bench-analysis-{n}", {"preset": "classic"})
        times: list[float] = []
        quick: list[float] = []
        greedy: list[float] = []
        differ = {"seed": 0, "quick": 0, "greedy": 0}
        for d in decisions_of(record):
            verdict = _timed(d, settings, times)
            again = _timed(d, other, [])
            differ["seed"] += verdict.judgement != again.judgement
            if args.show and verdict.judgement != again.judgement:
                print(f"  v{d.state.version} seat {d.seat} {key_of(d.action)}: "
                      + " / ".join(f"{v.judgement} ({v.regret:.1f} ± {v.standard_error:.1f}"
                                   f"{', relooked' if v.relooked else ''})"
                                   for v in (verdict, again)))
            differ["quick"] += verdict.judgement != _timed(d, quick_settings, quick).judgement
            if args.greedy:
                differ["greedy"] += verdict.judgement != _timed(d, GREEDY, greedy).judgement
        count = len(times)
        sums = {k: v + (count if k == "total" else differ[k]) for k, v in sums.items()}
        ordered = sorted(times)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
        row = (f"{','.join(bots):<28} {count:>9} {sum(times) / 1000:>6.1f} "
               f"{statistics.median(times):>9.1f} {p99:>7.1f} "
               f"{_share(differ['seed'], count):>10} {sum(quick) / 1000:>7.1f} "
               f"{_share(count - differ['quick'], count):>8}")
        if args.greedy:
            row += (f" {sum(greedy) / 1000:>8.1f} "
                    f"{_share(count - differ['greedy'], count):>9}")
        print(row)
    total = sums["total"]
    print(f"judged otherwise with another sampling seed: {sums['seed']} of {total} decisions "
          f"({_share(sums['seed'], total)})")
    print(f"the same judgement at the quick setting: {total - sums['quick']} of {total} "
          f"({_share(total - sums['quick'], total)})")
    if args.greedy:
        print(f"the same judgement by greedy playouts to the round's end: "
              f"{total - sums['greedy']} of {total} ({_share(total - sums['greedy'], total)})")


if __name__ == "__main__":
    main()
