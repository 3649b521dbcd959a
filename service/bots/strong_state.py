"""``strong``'s moves made from the engine's state, for playouts (the analysis' default
policy): the same judgement as :class:`service.bots.StrongBot` (card counting, the
one-draw look-ahead within its budget, the defence), without a view per step.

Why: a playout plays every seat to the round's end, tens of thousands of moves per game
analysed, and a view per move (its legal actions, the rules and cards parsed again)
costs a third of a ``greedy`` playout; ``strong`` also needs its memory of the round,
which a bot builds from the events it is sent. Here both come from the state and the
moves of the playout itself (:class:`StrongPlayout`):

* the cards a seat counts as seen are those the state shows every seat: its own hand,
  the discard pile, the melds on the table;
* the cards each seat took from the pile and still holds (what ``strong`` discounts from
  the unseen cards and defends against) are given at the start of the playout (what the
  judged seat knew of the others) and followed through the playout's own moves
  (:meth:`StrongPlayout.made`).

Each decision asks the bots' cached solver (:class:`.budget.DecisionBudget`) within
``budget`` work units of look-ahead (``STRONG_BUDGET`` by default, ``strong``'s), so
the work of one move is bounded and counted, never timed: the same state gives the same
move on any machine, warm cache or cold.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.client.types import Action
from service.core.cards import parse_card
from service.engine.state import DISCARD, DRAW, FINAL_DISCARD, FINAL_DRAW, GameState

from .base import Position, go_out
from .budget import DecisionBudget
from .strong import STRONG_BUDGET, StrongBot

__all__ = ["StrongPlayout", "strong_move"]

PHASES = {DRAW: "draw", DISCARD: "discard", FINAL_DRAW: "final_draw",
          FINAL_DISCARD: "final_discard"}


@dataclass(frozen=True, slots=True)
class _StatePosition(Position):
    """A position read from the state: its legal moves are not listed (that would ask
    the solver which discards go out), so the two questions ``strong`` asks of them are
    answered from the state and the solver (as ``greedy_move`` does)."""

    @property
    def can_take_discard(self) -> bool:
        return self.top is not None

    def go_out_for(self, a: Any) -> Action | None:
        return go_out(next(iter(a.go_out))) if a.go_out and self.phase == "discard" else None

    def go_out_action(self) -> Action | None:
        return self.go_out_for(self.analyze(self.hand))


def strong_move(state: GameState, seat: int,
                taken: Mapping[int, Counter[int]] | None = None,
                budget: int | DecisionBudget | None = STRONG_BUDGET,
                max_kinds: int = 40) -> Action:
    """The move ``strong`` makes for ``seat`` on its turn in ``state``, knowing ``taken``
    (per seat: the cards it took from the discard pile and still holds; none by default)
    and looking ahead within ``budget`` work units (or charging that decision's budget:
    its ``spent`` then says the work the move took) over at most ``max_kinds`` kinds of
    unseen card, as :class:`.strong.StrongBot`."""
    assert state.phase is not None
    rules = state.rules
    decision = budget if isinstance(budget, DecisionBudget) else DecisionBudget(budget)
    bot = StrongBot(f"{state.version}:{seat}", budget=decision.limit, max_kinds=max_kinds)
    bot.sit(state.players, seat, rules)
    bot.pile = list(state.discard)
    bot.laid = Counter(c for m in state.table for c in m.all_cards)
    bot.taken = {s: Counter(taken.get(s, ())) if taken else Counter()
                 for s in range(state.players)}
    final = state.phase in (FINAL_DRAW, FINAL_DISCARD)
    bot.last_budget = decision
    pos = _StatePosition(
        seat=seat, hand=state.hands[seat], wild=state.wild_rank, rules=rules,
        phase=PHASES[state.phase], top=state.discard[-1] if state.discard else None,
        contract=state.contract,
        table=tuple(m.cards for m in state.table) if final and rules.lay_off else (),
        legal=(), budget=decision)
    return bot.decide(pos)


class StrongPlayout:
    """One playout's ``strong`` at every seat: the policy :func:`service.bots.playout.
    play_out` calls, following the cards each seat takes from the pile through the
    moves it is told of (:meth:`made`, every move of the playout, the first included).
    ``budget``: each move's look-ahead in work units; ``others``: another budget for some
    seats (0: none, greedy's choice with strong's defence). ``work(units)`` is told the
    work units of each move that looked ahead (what an analysis charges it by)."""

    def __init__(self, taken: Mapping[int, Sequence[int]] | None = None,
                 budget: int | None = STRONG_BUDGET,
                 others: Mapping[int, int | None] | None = None,
                 work: Callable[[int], None] | None = None) -> None:
        self.taken: dict[int, Counter[int]] = {s: Counter(c) for s, c in (taken or {}).items()}
        self.budget = budget
        self.others = others or {}
        self.work = work

    def made(self, state: GameState, seat: int, move: Mapping[str, Any]) -> None:
        """``seat`` makes ``move`` in ``state`` (before it is applied)."""
        held = self.taken.setdefault(seat, Counter())
        kind = move["type"]
        if kind == "draw" and move["source"] == "discard" and state.discard:
            held[state.discard[-1]] += 1
        elif kind == "discard":
            card = parse_card(move["card"])
            if held[card]:
                held[card] -= 1

    def __call__(self, state: GameState, seat: int) -> Action:
        budget = self.others.get(seat, self.budget)
        if self.work is None or not budget:
            return strong_move(state, seat, self.taken, budget)
        decision = DecisionBudget(budget)
        move = strong_move(state, seat, self.taken, decision)
        self.work(decision.spent)
        return move
