"""A service-made bot decision is a pure function of (bot, RNG seed, seat view, seat events).

Why it matters: a verifier re-runs every bot move of a finished game from what its seat
saw and must get the same action, in another process, on another machine, with whatever
the cache of analyses holds. The positions here include the worst the rules allow
(8 players, 14-card hands, 8 jokers, lay-offs), where ``strong``'s budget runs out, so
the place where it stops looking is covered too.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service.bots import BOTS, STRONG_BUDGET, StrongBot, decide, decision_seed, make_bot
from service.bots.budget import clear_cache

from .positions import WORST, SeatPosition, positions

ROOT = Path(__file__).resolve().parents[2]
#: decision_seed("s@lt", "seed", 3, 12), fixed here: a verifier running another version of
#: this code must derive the same seeds.
GOLDEN_SEED = "5932d7d960109ab3005e3e004342b6ff3f33b36204b67a276419961e6b94334e"


@pytest.fixture(scope="module")
def costly() -> list[SeatPosition]:
    """Positions of an 8-player 14-card round where ``strong`` looks ahead (draws where
    the discard pile's top helps, discards with a choice) and its budget runs out."""
    found = positions(WORST, 8, 1, "costly")
    chosen = [p for p in found if _runs_out(p)]
    return random.Random("costly").sample(chosen, min(6, len(chosen)))


@pytest.fixture(scope="module")
def ordinary() -> list[SeatPosition]:
    found = positions({"preset": "classic", "hand_sizes": [5, 9, 13]}, 3, 1, "ordinary")
    return random.Random("ordinary").sample(found, 12)


def _strong(rng_seed: str, position: SeatPosition, budget: int | None = STRONG_BUDGET) -> StrongBot:
    """A ``strong`` bot that made the decision of ``position`` (its ``last_budget`` tells
    what the decision spent)."""
    seat_view, events = position
    bot = StrongBot(rng_seed, budget=budget)
    bot.start(seat_view)  # type: ignore[arg-type]
    bot.observe(events)
    bot.choose(seat_view)  # type: ignore[arg-type]
    return bot


def _runs_out(position: SeatPosition) -> bool:
    budget = _strong("s", position).last_budget
    assert budget is not None
    return budget.refused


#: expert (strong's look-ahead over every unseen card) takes three quarters of the test's
#: CPU: `make test`'s; the fast tier checks the look-ahead and its budget with strong
@pytest.mark.parametrize("bot", [*(b for b in BOTS if b != "expert"),
                                 pytest.param("expert", marks=pytest.mark.slow)])
def test_the_same_inputs_give_the_same_action_with_a_cold_a_warm_and_a_half_warm_cache(
    costly: list[SeatPosition], ordinary: list[SeatPosition], bot: str,
) -> None:
    assert len(costly) >= 3  # the budget runs out in these: where it stops is checked
    for seat_view, events in costly + ordinary:
        clear_cache()
        cold = decide(bot, "seed", seat_view, events)
        # half warm: another seed tries the unseen cards in another order, so the
        # cache now holds some of this decision's analyses and others it never asks
        clear_cache()
        decide(bot, "another seed", seat_view, events)
        half = decide(bot, "seed", seat_view, events)
        warm = decide(bot, "seed", seat_view, events)
        assert cold == half == warm
        assert cold in seat_view["legal_actions"]


def test_a_decision_charges_the_same_work_whatever_the_cache_holds(
    costly: list[SeatPosition],
) -> None:
    for position in costly:
        clear_cache()
        cold = _strong("seed", position).last_budget
        warm = _strong("seed", position).last_budget
        assert cold is not None and warm is not None
        assert (cold.spent, cold.analyses, cold.refused) == (
            warm.spent, warm.analyses, warm.refused)


_DECIDE_IN_A_FRESH_PROCESS = """
import json, sys
from service.bots import BOTS, decide
cases = json.load(open(sys.argv[1]))
print(json.dumps([[decide(bot, seed, v, e) for bot in BOTS] for seed, v, e in cases]))
"""


def test_a_fresh_process_makes_the_same_decisions(
    costly: list[SeatPosition], ordinary: list[SeatPosition], tmp_path: Path,
) -> None:
    cases = [[f"s{i}", v, e] for i, (v, e) in enumerate(costly[:3] + ordinary[:6])]
    (tmp_path / "cases.json").write_text(json.dumps(cases))
    # another string hash seed too: nothing may depend on the order of a set of strings
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    out = subprocess.run(
        [sys.executable, "-c", _DECIDE_IN_A_FRESH_PROCESS, str(tmp_path / "cases.json")],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=300)
    there = json.loads(out.stdout)
    here = [[decide(bot, seed, v, e) for bot in BOTS] for seed, v, e in cases]
    assert there == here


def test_strong_out_of_budget_draws_exactly_as_greedy_does() -> None:
    # with nothing to look ahead with, the draw falls back on greedy's rule
    checked = 0
    for seat_view, events in positions({"preset": "classic", "hand_sizes": [7, 11]}, 2, 1, "draws"):
        if seat_view["round"]["phase"] not in ("draw", "final_draw"):
            continue
        broke = _strong("s", (seat_view, events), budget=0)
        greedy = make_bot("greedy")
        assert broke.choose(seat_view) == greedy.choose(seat_view)  # type: ignore[arg-type]
        checked += 1
    assert checked > 20


def _random_rules(rng: random.Random) -> tuple[dict[str, Any], int]:
    players = rng.randint(2, 8)
    spec: dict[str, Any] = {
        "preset": rng.choice(["classic", "bga", "family"]),
        "max_players": 8,
        "hand_sizes": sorted(rng.sample(range(3, 15), 2)),
        "lay_off": rng.random() < 0.5,
        "jokers": rng.choice([0, 2, 8]),
        "aces": rng.choice(["low", "high", "both", "wrap"]),
    }
    if rng.random() < 0.3:
        spec["contracts"] = [None, {"sets": 1, "runs": 0}]
    if rng.random() < 0.3:
        spec["max_wilds_per_meld"] = 1
    return spec, players


#: two random games in the fast tier, six in `make test` (about a second each)
@pytest.mark.parametrize("game", [0, 1, *(pytest.param(g, marks=pytest.mark.slow)
                                          for g in range(2, 6))])
def test_every_decision_on_random_positions_of_random_games_is_legal(game: int) -> None:
    rng = random.Random(f"legal-{game}")
    spec, players = _random_rules(rng)
    found = positions(spec, players, 1, f"legal-{game}")
    for seat_view, events in rng.sample(found, min(15, len(found))):
        legal = seat_view["legal_actions"]
        for bot in BOTS:
            assert decide(bot, f"r{game}", seat_view, events) in legal
        for budget in (0, 300, 3_000):  # out of budget at every stage of a look-ahead
            bot = StrongBot(f"r{game}", budget=budget)
            bot.start(seat_view)  # type: ignore[arg-type]
            bot.observe(events)
            assert bot.choose(seat_view) in legal  # type: ignore[arg-type]


def test_decision_seed_depends_on_the_secret_salt_and_on_every_other_input() -> None:
    base = decision_seed("salt", "61", 1, 7)
    assert len(base) == 64 and int(base, 16) >= 0  # sha256 hex
    others = {decision_seed("salt2", "61", 1, 7), decision_seed("salt", "62", 1, 7),
              decision_seed("salt", "61", 2, 7), decision_seed("salt", "61", 1, 8)}
    assert base not in others and len(others) == 4
    # no two inputs run together into one string
    assert decision_seed("a:b", "c", 0, 0) != decision_seed("a", "b:c", 0, 0)
    assert decision_seed("1", "2", 34, 5) != decision_seed("1", "2", 3, 45)


def test_decision_seed_is_the_same_in_a_fresh_process_and_on_every_machine() -> None:
    script = "from service.bots import decision_seed; print(decision_seed('s@lt', 'seed', 3, 12))"
    env = {**os.environ, "PYTHONHASHSEED": "7"}
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == decision_seed("s@lt", "seed", 3, 12)
    assert decision_seed("s@lt", "seed", 3, 12) == GOLDEN_SEED


def test_random_chooses_by_its_rng_seed_the_same_way_every_time() -> None:
    # its choice follows the RNG seed it is given: another seed, another choice
    seat_view, events = positions({"preset": "classic", "hand_sizes": [9]}, 2, 1, "rng")[1]
    actions = {json.dumps(decide("random", f"k{i}", seat_view, events)) for i in range(40)}
    assert len(actions) > 1
    assert decide("random", "k1", seat_view, events) == decide("random", "k1", seat_view, events)
