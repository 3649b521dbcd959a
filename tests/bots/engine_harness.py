"""Play bots against each other on the engine directly, without HTTP.

Why: tuning a bot or checking thousands of its decisions over HTTP would make
the tests slow; here each bot still gets exactly what the server would show
its seat (``engine.view`` for that seat, ``Event.for_seat`` for its events),
so a bot cannot tell the difference. The HTTP path is tested separately.

``python -m tests.bots.engine_harness strong greedy 200`` prints a head-to-head.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from service.bots import make_bot
from service.core.rules import resolve_rules
from service.engine import apply, new_game, opening_events, view


def play_local(bot_names: list[str], preset: str = "classic", seed: str = "0",
               bot_seed: str = "0", rules_spec: dict[str, Any] | None = None,
               check: Callable[[Any, int, Any], None] | None = None) -> dict[str, Any]:
    """One game; returns the final spectator view (totals, winners).

    ``check(bot, seat, state)`` is called before each decision (tests use it to compare
    a bot's beliefs with the hidden truth)."""
    rules = resolve_rules({"preset": preset, **(rules_spec or {})})
    names = [f"{n}{i}" for i, n in enumerate(bot_names)]
    state = new_game(rules, names, seed)
    bots = [make_bot(n, seed=f"{bot_seed}:{i}") for i, n in enumerate(bot_names)]
    pending: list[list[dict[str, Any]]] = [[] for _ in bots]
    for e in opening_events(state):
        for s in range(len(bots)):
            pending[s].append(e.for_seat(s))
    for s, bot in enumerate(bots):
        bot.start({"game_id": "local", **view(state, s)})  # type: ignore[arg-type]
    actions = 0
    while not state.finished:
        seat = state.current_seat
        assert seat is not None
        bot = bots[seat]
        if bot.wants_events:
            bot.observe(pending[seat])
        pending[seat] = []
        if check is not None:
            check(bot, seat, state)
        action = bot.choose({"game_id": "local", **view(state, seat)})  # type: ignore[arg-type]
        state, events = apply(state, seat, action)
        actions += 1
        for e in events:
            for s in range(len(bots)):
                pending[s].append(e.for_seat(s))
    out = view(state, None)
    out["actions"] = actions
    return out


def _one(args: tuple[list[str], str, int]) -> tuple[list[int], list[int]]:
    names, preset, i = args
    # alternate seats so neither bot always plays first
    order = names if i % 2 == 0 else list(reversed(names))
    final = play_local(order, preset, seed=f"h{i}", bot_seed=str(i))
    totals = [p["total"] for p in final["players"]]
    winners = final["winners"]
    if i % 2:
        totals = list(reversed(totals))
        winners = [len(names) - 1 - w for w in winners]
    return totals, winners


def head_to_head(a: str, b: str, games: int, preset: str = "classic",
                 workers: int = 2) -> dict[str, float]:
    """Win share of ``a`` against ``b`` (shared wins count half) with a 95% interval."""
    with ProcessPoolExecutor(workers) as pool:
        results = list(pool.map(_one, [([a, b], preset, i) for i in range(games)]))
    score = sum(1.0 if w == [0] else 0.5 if len(w) == 2 else 0.0 for _, w in results)
    p = score / games
    half = 1.96 * math.sqrt(p * (1 - p) / games)
    mean_a = sum(t[0] for t, _ in results) / games
    mean_b = sum(t[1] for t, _ in results) / games
    return {"games": games, "win_rate": p, "ci_low": p - half, "ci_high": p + half,
            "mean_total_a": mean_a, "mean_total_b": mean_b}


if __name__ == "__main__":
    a, b, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    print(head_to_head(a, b, n, sys.argv[4] if len(sys.argv) > 4 else "classic"))
