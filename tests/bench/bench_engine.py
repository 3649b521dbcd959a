"""Engine benchmark: random full 4-player games in-process (``make bench-engine``).

Times, per action, ``legal_actions`` (which includes the going-out check) plus
``apply`` of the chosen action, the work an HTTP request does around the
engine. Then the same games through the PettingZoo environment (``service/research``):
steps per second with an observation and its action mask before every step, what a
learning agent pays. Not a unit test: it prints tables and always exits 0. The solver
keeps nothing between calls, so every position is solved afresh.

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


def run_env(name: str, spec: dict[str, object], games: int) -> Row:
    """The same games stepped through the environment: ``last()`` (the observation and
    the mask) then ``step`` for every move, random legal moves, going out when it can."""
    import numpy as np

    from service.research.env import env

    game = env(players=4, rules=spec)
    rng = random.Random(name)
    timings: list[float] = []
    steps = 0
    start = time.perf_counter()
    for g in range(games):
        game.reset(seed=g)
        for _agent in game.agent_iter():
            t0 = time.perf_counter()
            obs, _, terminated, truncated, _ = game.last()
            if terminated or truncated:
                game.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            outs = [a for a in legal if a >= 55]
            game.step(int(outs[0] if outs else rng.choice(legal)))
            timings.append(time.perf_counter() - t0)
            steps += 1
    wall = time.perf_counter() - start
    timings.sort()
    return (name, games, steps, steps / wall, percentile(timings, 0.5) * 1e3,
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
    print()
    print(f"the PettingZoo environment, 4 seats, {games} games per preset; time = last() "
          "(observation and mask) + step")
    header = f"{'preset':<18}{'games':>6}{'steps':>9}{'steps/s':>11}{'p50 ms':>9}{'p99 ms':>9}"
    print(header)
    print("-" * len(header))
    for name, spec in PRESETS.items():
        row = run_env(name, spec, games)
        print(f"{row[0]:<18}{row[1]:>6}{row[2]:>9}{row[3]:>11.0f}{row[4]:>9.3f}{row[5]:>9.3f}")


if __name__ == "__main__":
    main()
