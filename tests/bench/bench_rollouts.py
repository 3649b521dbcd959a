"""Prototype experts that check ``strong``'s shortlist by playouts (issue 35; measured in
docs/strength.md, none kept in the service: none beat ``strong`` clearly enough).

``RolloutBot`` is ``strong`` whose decision, where ``strong`` has a choice (its best
``shortlist`` discards by the penalty they keep, or the pile's top against the stock when
the top would lower its penalty), is checked by playing each candidate out in the same
``worlds`` worlds drawn from the seat's knowledge (:mod:`service.research.worlds`), every
seat playing ``strong`` (:class:`service.bots.strong_state.StrongPlayout`: the seat with
``lookahead`` work units of look-ahead a move, the others ``others``), ``turns`` own turns
deep. The leaf is scored by the exact solver (``leaf="solver"``:
:func:`service.bots.playout.leaf_score`) or by ``strong``'s value of the hand there
(``leaf="ahead"``: 0.3 of its penalty and 0.7 of its expected best penalty after one more
stock draw over ``leaf_kinds`` sampled kinds of card). ``strong``'s move is replaced only
where another candidate's mean over the worlds is lower by more than ``z`` standard
errors of the paired differences (and ``margin`` points). Work is counted in units
(actions applied, look-ahead units), a decision stops adding worlds past ``cap``.

Usage (the variants are registered as bots for the run only):

    python -m tests.bench.bench_rollouts duplicate expert2 strong --deals 30 --jobs 2
    python -m tests.bench.bench_rollouts decisions expert2 [players] [positions]
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from service.bots.base import Position, discard, draw
from service.bots.budget import DecisionBudget, clear_cache
from service.bots.playout import play_out
from service.bots.strong import StrongBot
from service.bots.strong_state import StrongPlayout
from service.client.types import Action, BotView
from service.engine import GameState, apply
from service.engine.rounds import penalty_score
from service.engine.seats import actor_of
from service.research.knowledge import Knowledge
from service.research.position import position as position_of
from service.research.worlds import in_state, sample_worlds
from tests.bench.bench_duplicate import main_with, variant
from tests.bench.procs import percentile
from tests.bots.positions import positions

__all__ = ["VARIANTS", "RolloutBot"]


class _Work:
    """Work units of one decision's playouts: each action applied, and each look-ahead."""

    def __init__(self) -> None:
        self.units = 0

    def step(self) -> None:
        self.units += ACTION_UNITS

    def work(self, units: int) -> None:
        self.units += units


#: Units charged per playout action (the required analyses of a move: a few solver calls)
ACTION_UNITS = 100


class RolloutBot(StrongBot):
    """``strong`` with its choices checked by playouts (the module's doc)."""

    name = "expert2"

    def __init__(self, seed: int | str | None = None, *, worlds: int = 8, turns: int = 1,
                 lookahead: int = 2_000, others: int = 0, shortlist: int = 3,
                 z: float = 1.0, margin: float = 0.0, cap: int = 400_000,
                 leaf: str = "solver", leaf_kinds: int = 12) -> None:
        super().__init__(seed)
        self.seed = seed
        self.events: list[Mapping[str, Any]] = []
        self.worlds = worlds
        self.turns = turns
        self.lookahead = lookahead
        self.others = others
        self.shortlist = shortlist
        self.z = z
        self.margin = margin
        self.cap = cap
        self.leaf = leaf
        self.leaf_kinds = leaf_kinds
        self.last_work = 0

    def observe(self, events: Sequence[Mapping[str, Any]]) -> None:
        super().observe(events)
        self.events.extend(events)

    def choose(self, view: BotView) -> Action:
        pos = self.position(view)
        base = self.decide(pos)
        self.last_work = 0
        candidates = self._shortlist(pos, base)
        if len(candidates) < 2:
            return base
        return self._search(view, pos, base, candidates)

    def _shortlist(self, pos: Position, base: Action) -> list[Action]:
        if pos.drawing:
            if pos.top is None or not pos.can_take_discard:
                return []
            taken = pos.analyze((*pos.hand, pos.top))
            if taken.go_out and pos.phase == "draw":
                return []
            if taken.discards[0][1] >= pos.analyze(pos.hand).penalty:
                return []
            return [base, draw("stock") if base["source"] == "discard" else draw("discard")]
        if base["type"] != "discard" or pos.phase == "final_discard":
            return []
        a = pos.analyze(pos.hand)
        out = [base]
        for card, _ in a.discards:
            if len(out) >= self.shortlist:
                break
            act = discard(card)
            if act not in out:
                out.append(act)
        return out

    def _leaf(self, seed: str, work: _Work) -> Callable[[GameState, int], float]:
        def leaf(state: GameState, seat: int) -> float:
            budget = DecisionBudget(None)
            unseen: Counter[int] = Counter(state.stock)
            for s, hand in enumerate(state.hands):
                if s != seat:
                    unseen.update(hand)
            kinds = sorted(unseen.items())
            kinds = random.Random(seed).sample(kinds, min(len(kinds), self.leaf_kinds))
            hand = state.hands[seat]
            now = budget.analyze(hand, state.wild_rank, state.rules, (), state.contract)
            assert now is not None
            total = weight = 0
            for card, copies in kinds:
                a = budget.analyze((*hand, card), state.wild_rank, state.rules, (),
                                   state.contract)
                assert a is not None
                total += (0 if a.go_out else a.discards[0][1]) * copies
                weight += copies
            work.work(budget.spent)
            expected = total / weight if weight else now.penalty
            value = self.now_weight * now.penalty + (1 - self.now_weight) * expected
            return penalty_score(state, 1) * value
        return leaf

    def _search(self, view: BotView, pos: Position, base: Action,
                candidates: list[Action]) -> Action:
        knowledge = Knowledge.of(view, self.events)
        frame = position_of(view, knowledge)
        rng = random.Random(f"{self.seed}:worlds")
        work = _Work()
        scores: list[list[float]] = [[] for _ in candidates]
        taken = {s: k for s, k in enumerate(knowledge.known) if s != pos.seat}
        others = {s: self.others for s in range(frame.players) if s != pos.seat}
        for i, world in enumerate(sample_worlds(knowledge, self.worlds, rng)):
            state = in_state(frame, world, f"{self.seed}:{i}")
            for k, action in enumerate(candidates):
                playout = StrongPlayout(taken, self.lookahead, others, work.work)
                if self.leaf == "solver":
                    score: float = play_out(state, pos.seat, action, playout, work.step,
                                            playout.made, self.turns)
                else:
                    score = _play(state, pos.seat, action, playout, work, self.turns,
                                  self._leaf(f"{self.seed}:{i}:leaf", work))
                scores[k].append(score)
            if work.units >= self.cap:
                break
        self.last_work = work.units
        n = len(scores[0])
        means = [sum(s) / n for s in scores]
        best = min(range(len(candidates)), key=lambda k: means[k])
        if best == 0 or n < 2:
            return base
        diffs = [a - b for a, b in zip(scores[0], scores[best], strict=True)]
        mean = sum(diffs) / n
        se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)
        if mean > self.z * se + self.margin:
            return candidates[best]
        return base


def _play(state: GameState, seat: int, first: Mapping[str, Any], policy: StrongPlayout,
          work: _Work, turns: int, leaf: Callable[[GameState, int], float]) -> float:
    """:func:`.playout.play_out` with its leaf scored by ``leaf``."""
    before = sum(state.scores[seat])
    round_index = state.round_index
    move: Mapping[str, Any] = first
    discards = 0
    while True:
        mover = state.current_seat
        assert mover is not None
        work.step()
        policy.made(state, mover, move)
        state, _ = apply(state, mover, move, actor_of(state, mover))
        if state.current_seat is None or state.round_index != round_index:
            return sum(state.scores[seat]) - before
        if mover == seat and move["type"] == "discard":
            discards += 1
            if turns and discards > turns and state.went_out is None:
                return leaf(state, seat)
        move = policy(state, state.current_seat)


#: The prototypes measured in docs/strength.md, by the name they played under.
VARIANTS: dict[str, type[RolloutBot]] = {
    "expert2": variant(RolloutBot, "expert2"),
    "x2t2": variant(RolloutBot, "x2t2", turns=2, worlds=6),
    "x2lf": variant(RolloutBot, "x2lf", leaf="ahead", worlds=6),
}


def decisions(name: str, players: int, sample: int) -> None:
    """CPU ms of single decisions (cold cache, as ``make bench-decisions``) of a variant on
    classic positions of ``greedy`` games, and the work units they spent."""
    found = positions({"preset": "classic"}, players, 2 if players == 2 else 1,
                      f"bench-classic {players}p")
    chosen = random.Random(name).sample(found, min(sample, len(found)))
    times, works = [], []
    for i, (seat_view, events) in enumerate(chosen):
        clear_cache()
        t0 = time.process_time()
        bot = VARIANTS[name](f"bench:{i}")
        bot.start(seat_view)  # type: ignore[arg-type]
        bot.observe(events)
        bot.choose(seat_view)  # type: ignore[arg-type]
        times.append((time.process_time() - t0) * 1e3)
        works.append(bot.last_work)
    times.sort()
    print(f"{name} classic {players}p, {len(times)} decisions: median "
          f"{statistics.median(times):.1f} ms, p99 {percentile(times, 0.99):.1f}, max "
          f"{times[-1]:.1f}; searched {sum(w > 0 for w in works)}, mean units "
          f"{statistics.mean(works):.0f}, max {max(works)}")


def main() -> None:
    command, rest = sys.argv[1], sys.argv[2:]
    if command == "decisions":
        decisions(rest[0], int(rest[1]) if len(rest) > 1 else 4,
                  int(rest[2]) if len(rest) > 2 else 120)
    else:
        sys.argv = [sys.argv[0], *rest]
        main_with(VARIANTS)


if __name__ == "__main__":
    main()
