"""Bot decision benchmark: the CPU time of single decisions (``make bench-decisions``).

Why: a bot move holds the process that makes it, so the costliest decision matters more
than the mean. Positions come from games played by ``greedy`` at every seat (seeded, so
every run sees the same positions); each decision is made through
:func:`service.bots.decide` with the seat's view and events, with a cold cache (the
slowest case: a fresh move worker), and timed in CPU time (``time.process_time``), so
other work on the machine slows it less than it would wall time (it still does: on a
busy machine, run it twice). Not a unit test: it prints a table and always exits 0.

Scenarios: ordinary games (classic, 2 and 4 players), and the worst cases the rules
allow for the solver: 8 players with 14-card hands, 8 jokers, 3 decks and lay-offs (then
final turns search lay-offs onto up to two dozen table melds), also with aces wrapping.
For ``strong`` and ``expert`` it also prints the work units (``service/bots/budget.py``) a
decision spent and how often its budget ran out.

Usage: ``python -m tests.bench.bench_decisions [positions per scenario]``
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import time
from typing import Any

from service.bots import EXPERT_BUDGET, STRONG_BUDGET, decide, make_bot
from service.bots.budget import clear_cache
from tests.bench.procs import percentile
from tests.bots.positions import WORST, positions

#: name: (rules, players, games played to draw positions from)
SCENARIOS: dict[str, tuple[dict[str, Any], int, int]] = {
    "classic 2p": ({"preset": "classic"}, 2, 2),
    "classic+lay_off 4p": ({"preset": "classic", "lay_off": True}, 4, 1),
    "worst 8p 14c": (WORST, 8, 3),
    "worst 8p 14c wrap": ({**WORST, "aces": "wrap"}, 8, 3),
}
BOTS = ("random", "greedy", "strong", "expert")
#: The bots whose decisions spend a budget of work units.
BUDGETED = ("strong", "expert")

def spent(name: str, seed: str, seat_view: dict[str, Any], events: list[dict[str, Any]],
          ) -> tuple[int, bool]:
    """The units a decision of bot ``name`` spent and whether its budget ran out (the
    same decision again, untimed: the cache is warm, and the charge the same either way)."""
    bot = make_bot(name, seed=seed)
    bot.start(seat_view)  # type: ignore[arg-type]
    bot.observe(events)
    bot.choose(seat_view)  # type: ignore[arg-type]
    assert bot.last_budget is not None
    return bot.last_budget.spent, bot.last_budget.refused


def main() -> None:
    sample = int(sys.argv[1]) if len(sys.argv) > 1 else 120
    print(f"single decisions, CPU ms, cold cache, {sample} positions per scenario; "
          f"budgets: strong {STRONG_BUDGET} units, expert {EXPERT_BUDGET}")
    header = (f"{'scenario':<20}{'bot':<8}{'decisions':>10}{'median':>9}{'p99':>9}{'max':>9}"
              f"{'mean units':>12}{'ran out':>9}")
    print(header)
    print("-" * len(header))
    for name, (spec, players, games) in SCENARIOS.items():
        found = positions(spec, players, games, f"bench-{name}")
        chosen = random.Random(name).sample(found, min(sample, len(found)))
        gc.collect()
        gc.freeze()  # the positions held here are no garbage collection's work to time
        for bot in BOTS:
            times: list[float] = []
            units: list[int] = []
            ran_out = 0
            for i, (seat_view, events) in enumerate(chosen):
                clear_cache()
                t0 = time.process_time()
                decide(bot, f"bench:{i}", seat_view, events)
                times.append((time.process_time() - t0) * 1e3)
                if bot in BUDGETED:
                    used, refused = spent(bot, f"bench:{i}", seat_view, events)
                    units.append(used)
                    ran_out += refused
            times.sort()
            extra = (f"{statistics.mean(units):>12.0f}{ran_out / len(chosen):>9.0%}"
                     if units else f"{'':>12}{'':>9}")
            print(f"{name:<20}{bot:<8}{len(times):>10}{statistics.median(times):>9.1f}"
                  f"{percentile(times, 0.99):>9.1f}{times[-1]:>9.1f}{extra}", flush=True)
    clear_cache()


if __name__ == "__main__":
    main()
