"""``strong``: the greedy solver plus card counting and a one-draw look-ahead.

Why it beats greedy:

* **It counts cards.** From its own events it knows the discard pile, the cards
  each opponent took from it and the melds on the table; everything else of the
  shoe is *unseen* (in the stock or in an opponent's hand, equally likely for a
  stock draw). Greedy treats every hand as if the next card were unknowable.
* **It looks one draw ahead.** A discard is judged not by the penalty it leaves
  now but by the expected penalty after the next stock draw (the exact
  solver's, averaged over the unseen cards, weighted by copies left): a hand
  with many outs beats an equal hand with few. Even when an opponent goes out
  first, this bot still gets its final draw, so that expectation is very nearly
  what it will score.
* **It draws by expectation.** It takes the discard only if that beats the
  expected result of a stock draw (greedy takes it whenever it beats standing
  still), and in final turns this rule is exactly score-optimal.
* **It does not feed the next player.** A card of a rank the next player took
  from the pile, or next to one in suit, or a wild, costs a small malus.

It stays fast by asking the memoised solver only about the few best discards
(by present penalty), by sampling at most ``max_kinds`` kinds of unseen card, and by a
budget of ``STRONG_BUDGET`` work units of look-ahead per decision (solver steps,
``service/bots/budget.py``): when it runs out, the bot compares its candidates on the
unseen cards tried so far, or, before the first, decides as greedy does (with the
defence above). The budget is counted, not timed, so the same inputs give the same
action on any machine, with a warm cache or a cold one.
"""

from __future__ import annotations

import random as _random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from service.client.types import Action, BotView
from service.core.cards import JOKER, parse_card, parse_cards, rank_of, suit_of
from service.core.rules import Rules

from .base import Bot, Position, discard, draw, rules_of

__all__ = ["STRONG_BUDGET", "StrongBot"]

#: Work units of look-ahead per decision (about 4.5 µs of CPU each; chosen with ``make
#: bench-decisions`` so that the costliest decisions stay near 100 ms, docs/bots.md).
STRONG_BUDGET = 16_000


class StrongBot(Bot):
    """Card counting, one-draw look-ahead and a little defence, within a budget. Tunable,
    but the defaults are what the strength figures in ``docs/strength.md`` were measured
    with."""

    name = "strong"
    wants_events = True
    budget: int | None = STRONG_BUDGET

    def __init__(self, seed: int | str | None = None, *, candidates: int = 4,
                 max_kinds: int = 40, now_weight: float = 0.3, feed_malus: float = 2.0,
                 budget: int | None = STRONG_BUDGET) -> None:
        self.rng = _random.Random(seed)
        self.budget = budget  # None: unbounded (the bot before budgets, for comparisons)
        self.candidates = candidates
        self.max_kinds = max_kinds
        self.now_weight = now_weight
        self.feed_malus = feed_malus
        self.players = 2
        self.shoe: Counter[int] = Counter()
        self.pile: list[int] = []
        self.taken: dict[int, Counter[int]] = {}
        self.laid: Counter[int] = Counter()
        self.seat = 0

    # -- memory -------------------------------------------------------------------------

    def start(self, view: BotView) -> None:
        self.sit(len(view["players"]), view["you"]["seat"] if view["you"] else 0,
                 rules_of(view))
        self._new_round(view["round"]["discard_top"])

    def sit(self, players: int, seat: int, rules: Rules) -> None:
        """The table this bot plays at: the shoe its card counting starts from (also what
        :func:`.strong_state.strong_move` seats it by, from the engine's state)."""
        self.players, self.seat = players, seat
        self.shoe = Counter({c: rules.decks_for(players) for c in range(52)})
        if rules.jokers:
            self.shoe[JOKER] = rules.jokers

    def _new_round(self, top: str | None) -> None:
        self.pile = [] if top is None else [parse_card(top)]
        self.taken = {s: Counter() for s in range(self.players)}
        self.laid = Counter()

    def observe(self, events: Sequence[Mapping[str, Any]]) -> None:
        for e in events:
            kind = e.get("type")
            if kind == "round_started":
                self._new_round(e.get("discard_top"))
            elif kind == "reshuffled":
                self._new_round_pile(e.get("discard_top"))
            elif kind == "draw" and e.get("source") == "discard":
                card = parse_card(e["card"])
                if self.pile and self.pile[-1] == card:
                    self.pile.pop()
                if e["seat"] != self.seat:
                    self.taken[e["seat"]][card] += 1
            elif kind == "discard":
                card = parse_card(e["card"])
                self.pile.append(card)
                held = self.taken.get(e["seat"])
                if held and held[card]:
                    held[card] -= 1
            elif kind == "went_out":
                self.pile.append(parse_card(e["discard"]))
                self._laid(e["seat"], [parse_card(e["discard"])])
                for meld in e.get("melds", []):
                    self._laid(e["seat"], parse_cards(meld), table=True)
            elif kind == "laid_down":
                for meld in e.get("melds", []):
                    self._laid(e["seat"], parse_cards(meld), table=True)
                for lay in e.get("layoffs", []):
                    self._laid(e["seat"], parse_cards(lay["cards"]), table=True)

    def _laid(self, seat: int, cards: list[int], *, table: bool = False) -> None:
        """Cards that left ``seat``'s hand face up: known, and no longer "taken" by it."""
        held = self.taken.get(seat)
        for card in cards:
            if held and held[card] > 0:
                held[card] -= 1
        if table:
            self.laid.update(cards)

    def _new_round_pile(self, top: str | None) -> None:
        self.pile = [] if top is None else [parse_card(top)]

    def unseen(self, pos: Position) -> Counter[int]:
        """Copies of each card whose place this bot does not know (stock or hidden hands)."""
        out = Counter(self.shoe)
        out.subtract(pos.hand)
        out.subtract(self.pile)
        out.subtract(self.laid)
        for s, held in self.taken.items():
            if s != pos.seat:
                out.subtract(held)
        return +out  # drops non-positive counts (a missed event never makes one negative)

    # -- judgement ----------------------------------------------------------------------

    def _sample(self, unseen: Counter[int]) -> list[tuple[int, int]]:
        """(card, copies) of the unseen kinds, in the order the look-ahead tries them: a
        seeded shuffle (so that whatever prefix the budget allows is a fair sample), cut
        to ``max_kinds``."""
        kinds = sorted(unseen.items())
        return self.rng.sample(kinds, min(len(kinds), self.max_kinds))

    def _ahead(self, pos: Position, hands: list[tuple[int, ...]],
               sample: list[tuple[int, int]]) -> list[float] | None:
        """For each of ``hands``: the expected best penalty after one stock draw and the
        best discard, weighted by copies left. Each sample card is tried on every hand
        before the next card, and only cards tried on all of them count, so when the
        budget runs out the hands are still compared on the same draws. ``None`` when
        not one card could be tried."""
        totals = [0] * len(hands)
        weight = 0
        for card, copies in sample:
            row = []
            for hand in hands:
                a = pos.look_ahead((*hand, card))
                if a is None:
                    break
                row.append(0 if a.go_out and pos.phase != "final_draw" else a.discards[0][1])
            if len(row) < len(hands):
                break  # the budget ran out: every later look-ahead is refused too
            for k, best in enumerate(row):
                totals[k] += best * copies
            weight += copies
        return [t / weight for t in totals] if weight else None

    def _feeds(self, pos: Position, card: int) -> float:
        """How much ``card`` would help the next player, from what they took."""
        if card == JOKER or rank_of(card) == pos.wild:
            return 3.0 * self.feed_malus
        nxt = (pos.seat + 1) % self.players
        malus = 0.0
        for c, n in self.taken.get(nxt, Counter()).items():
            if n <= 0 or c == JOKER or rank_of(c) == pos.wild:
                continue
            if rank_of(c) == rank_of(card):
                malus = max(malus, self.feed_malus)
            elif suit_of(c) == suit_of(card) and abs(rank_of(c) - rank_of(card)) <= 2:
                malus = max(malus, self.feed_malus / 2)
        return malus

    def choose(self, view: BotView) -> Action:
        return self.decide(self.position(view))

    def decide(self, pos: Position) -> Action:
        """The move for ``pos``, from this bot's memory of the round (what ``choose`` does
        with a view; :mod:`.playout` calls it with a position read from the engine's
        state)."""
        if pos.drawing:
            return self._choose_draw(pos)
        a = pos.analyze(pos.hand)
        if pos.phase == "discard":
            legal = pos.go_out_action()
            if a.go_out and legal is not None:
                return pos.go_out_for(a) or legal
        if pos.phase == "final_discard":
            return discard(a.discards[0][0])  # only the penalty kept now counts
        candidates = self._worth_a_look(pos, a.discards[: self.candidates])
        if len(candidates) == 1:
            return discard(candidates[0][0])
        rests = []
        for card, _, _ in candidates:
            rest = list(pos.hand)
            rest.remove(card)
            rests.append(tuple(rest))
        ahead = self._ahead(pos, rests, self._sample(self.unseen(pos)))
        best_card, best_value = candidates[0][0], float("inf")
        for k, (card, now, feeds) in enumerate(candidates):
            expected = now if ahead is None else ahead[k]  # no look-ahead: the penalty now
            value = self._value(now, expected, feeds)
            if value < best_value:
                best_card, best_value = card, value
        return discard(best_card)

    def _value(self, now: int, expected: float, feeds: float) -> float:
        """A discard's value (lower is better) from the penalty it leaves now, the
        expected one after the next draw, and what it would give the next player."""
        return self.now_weight * now + (1 - self.now_weight) * expected + feeds

    def _worth_a_look(self, pos: Position,
                      discards: tuple[tuple[int, int], ...]) -> list[tuple[int, int, float]]:
        """(card, penalty now, feed malus) of the candidate discards that could be chosen.

        The expected penalty after the next draw lies between 0 and the penalty now (the
        drawn card can be discarded again), so a candidate whose least possible value is
        above another's greatest can never be chosen: the look-ahead skips it, which
        changes no decision and leaves its budget to the others."""
        rated = [(card, now, self._feeds(pos, card)) for card, now in discards]
        most = min(self._value(now, now, feeds) for _, now, feeds in rated)
        return [c for c in rated if self._value(c[1], 0, c[2]) <= most]

    def _choose_draw(self, pos: Position) -> Action:
        if pos.top is None or not pos.can_take_discard:
            return draw("stock")
        taken = pos.analyze((*pos.hand, pos.top))
        if taken.go_out and pos.phase == "draw":
            return draw("discard")
        with_top = taken.discards[0][1]
        now = pos.analyze(pos.hand).penalty
        if with_top >= now:
            # taking it cannot improve the hand now; a stock card at least might (and in a
            # final draw the expected stock draw is never worse than ``now``: the drawn
            # card can be discarded again)
            return draw("stock")
        ahead = self._ahead(pos, [pos.hand], self._sample(self.unseen(pos)))
        stock = now if ahead is None else ahead[0]  # no look-ahead: greedy's rule
        return draw("discard") if with_top < stock else draw("stock")
