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
(by present penalty) and by sampling at most ``max_kinds`` kinds of unseen card.
"""

from __future__ import annotations

import random as _random
from collections import Counter
from typing import Any

from service.client.types import Action, GameView
from service.core.cards import JOKER, parse_card, parse_cards, rank_of, suit_of

from .base import Bot, Position, discard, draw, rules_of

__all__ = ["StrongBot"]


class StrongBot(Bot):
    """Card counting, one-draw look-ahead and a little defence. Tunable, but the defaults
    are what the strength figures in ``docs/strength.md`` were measured with."""

    name = "strong"
    wants_events = True

    def __init__(self, seed: int | str | None = None, *, candidates: int = 4,
                 max_kinds: int = 40, now_weight: float = 0.3, feed_malus: float = 2.0) -> None:
        self.rng = _random.Random(seed)
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

    def start(self, view: GameView) -> None:
        self.players = len(view["players"])
        self.seat = view["you"]["seat"] if view["you"] else 0
        rules = rules_of(view)
        decks = rules.decks_for(self.players)
        self.shoe = Counter({c: decks for c in range(52)})
        if rules.jokers:
            self.shoe[JOKER] = rules.jokers
        self._new_round(view["round"]["discard_top"])

    def _new_round(self, top: str | None) -> None:
        self.pile = [] if top is None else [parse_card(top)]
        self.taken = {s: Counter() for s in range(self.players)}
        self.laid = Counter()

    def observe(self, events: list[Any]) -> None:
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
        """(card, weight) pairs: every unseen kind, or a deterministic-by-seed sample."""
        kinds = sorted(unseen.items())
        if len(kinds) > self.max_kinds:
            kinds = self.rng.sample(kinds, self.max_kinds)
        return kinds

    def _after_draw(self, pos: Position, hand: tuple[int, ...],
                    sample: list[tuple[int, int]]) -> float:
        """Expected best penalty after one stock draw and the best discard."""
        total = weight = 0
        for card, copies in sample:
            a = pos.analyze((*hand, card))
            best = 0 if a.go_out and pos.phase != "final_draw" else a.discards[0][1]
            total += best * copies
            weight += copies
        return total / weight if weight else float(pos.analyze(hand).penalty)

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

    def choose(self, view: GameView) -> Action:
        pos = Position.of(view)
        if pos.drawing:
            return self._choose_draw(pos)
        a = pos.analyze(pos.hand)
        if pos.phase == "discard":
            legal = pos.go_out_action()
            if a.go_out and legal is not None:
                return pos.go_out_for(a) or legal
        if pos.phase == "final_discard":  # only the penalty kept now counts
            return discard(a.discards[0][0])
        sample = self._sample(self.unseen(pos))
        best_card, best_value = a.discards[0][0], float("inf")
        for card, now in a.discards[: self.candidates]:
            rest = list(pos.hand)
            rest.remove(card)
            ahead = self._after_draw(pos, tuple(rest), sample)
            value = self.now_weight * now + (1 - self.now_weight) * ahead
            value += self._feeds(pos, card)
            if value < best_value:
                best_card, best_value = card, value
        return discard(best_card)

    def _choose_draw(self, pos: Position) -> Action:
        if pos.top is None or not pos.can_take_discard:
            return draw("stock")
        taken = pos.analyze((*pos.hand, pos.top))
        if taken.go_out and pos.phase == "draw":
            return draw("discard")
        with_top = taken.discards[0][1]
        if with_top >= pos.analyze(pos.hand).penalty and pos.phase == "draw":
            # taking it cannot improve the hand now; a stock card at least might
            return draw("stock")
        stock = self._after_draw(pos, pos.hand, self._sample(self.unseen(pos)))
        return draw("discard") if with_top < stock else draw("stock")
