"""Engine benchmark: random full 4-player games in-process (``make bench-engine``).

Times, per action, ``legal_actions`` (which includes the going-out check) plus
``apply`` of the chosen action, the work an HTTP request does around the
engine. Not a unit test: it prints a table and always exits 0. The solver keeps
nothing between calls, so every position is solved afresh.

Usage: ``python -m tests.bench.bench_engine [games per preset]``
"""

from __future__ import annotations

import random
import sys
import time

from service.core.rules import resolve_rules
from service.engine import apply, legal_actions, new_game
from tests.bench.procs import percentile

PRESETS = {
    "classic": {"preset": "classic"},
    "bga": {"preset": "bga"},
    "family": {"preset": "family"},
    "classic+lay_off": {"preset": "classic", "lay_off": True},
}


Row = tuple[str, int, int, float, float, float]


def run(name: str, spec: dict[str, object], games: int) -> Row:
    rules = resolve_rules(spec)
    rng = random.Random(name)
    timings: list[float] = []
    actions = 0
    start = time.perf_counter()
    for g in range(games):
        state = new_game(rules, ["a", "b", "c", "d"], seed=f"bench-{name}-{g}")
        while state.status != "finished":
            seat = state.current_seat
            t0 = time.perf_counter()
            legal = legal_actions(state, seat)
            go = [a for a in legal if a["type"] == "go_out"]
            action = go[0] if go else rng.choice(legal)
            state, _ = apply(state, seat, action)
            timings.append(time.perf_counter() - t0)
            actions += 1
    wall = time.perf_counter() - start
    timings.sort()
    return (name, games, actions, actions / wall, percentile(timings, 0.5) * 1e3,
            percentile(timings, 0.99) * 1e3)


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    print(f"random full 4-player games, {games} per preset; time = legal_actions + apply")
    header = f"{'preset':<18}{'games':>6}{'actions':>9}{'actions/s':>11}{'p50 ms':>9}{'p99 ms':>9}"
    print(header)
    print("-" * len(header))
    for name, spec in PRESETS.items():
        row = run(name, spec, games)
        print(f"{row[0]:<18}{row[1]:>6}{row[2]:>9}{row[3]:>11.0f}{row[4]:>9.3f}{row[5]:>9.3f}")


if __name__ == "__main__":
    main()
