"""What one seat knows about the cards of the round in play, read from its own view and
its own share of the events, nothing else.

Why from the view and events only: an observation or a sampled world built from this
cannot hold a card the seat could not see, whatever the code that uses it does with the
game's state (OpenSpiel's gin rummy leaked hidden cards twice through code that read the
state: open_spiel#1604, #1613). Everything a seat may know is here: its hand, the
discard pile (every card in it was face up), the melds laid on the table, and the cards
each other seat took from the discard pile and has not discarded since. What is left
of the shoe is :attr:`Knowledge.unseen`: where those cards are, the seat cannot tell.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.core.cards import parse_card, parse_cards
from service.core.shapes import View
from service.engine.shoe import build_shoe

__all__ = ["Knowledge"]


@dataclass(frozen=True, slots=True)
class Knowledge:
    """The round in play as ``seat`` knows it.

    ``known[s]`` are the cards seat ``s`` is known to hold (taken from the pile and not
    discarded since; the seat's own hand for ``s == seat``); ``hidden[s]`` how many of
    ``s``'s cards the seat cannot name; ``stock`` the stock's size. ``reshuffled``: the
    pile went back into the stock this round (the stock's cards were then known as a
    multiset; :attr:`unseen` pools them with the rest, so a world drawn after a
    reshuffle may hold a card of that stock in a hand).
    """

    seat: int
    hand: tuple[int, ...]
    pile: tuple[int, ...]
    table: tuple[int, ...]
    known: tuple[tuple[int, ...], ...]
    hidden: tuple[int, ...]
    stock: int
    unseen: tuple[int, ...]
    reshuffled: bool

    @classmethod
    def of(cls, view: View | Mapping[str, Any], events: Sequence[Mapping[str, Any]],
           ) -> Knowledge:
        """Read a seat's view and its events (``Event.for_seat``) since the game began."""
        you = view["you"]
        if you is None:
            raise ValueError("knowledge is a seat's: a spectator's view has no hand")
        seat = you["seat"]
        players = len(view["players"])
        pile: list[int] = []
        taken: list[Counter[int]] = [Counter() for _ in range(players)]
        reshuffled = False
        for e in events:
            kind = e["type"]
            if kind == "round_started":
                pile = [] if e["discard_top"] is None else [parse_card(e["discard_top"])]
                taken = [Counter() for _ in range(players)]
                reshuffled = False
            elif kind == "draw" and e["source"] == "discard":
                pile.pop()
                taken[e["seat"]][parse_card(e["card"])] += 1
            elif kind == "discard":
                card = parse_card(e["card"])
                pile.append(card)
                if taken[e["seat"]][card]:
                    taken[e["seat"]][card] -= 1
            elif kind == "went_out":  # the whole hand: melds on the table, one discard
                pile.append(parse_card(e["discard"]))
                taken[e["seat"]] = Counter()
            elif kind == "reshuffled":
                pile = [parse_card(e["discard_top"])]
                reshuffled = True
            elif kind == "laid_down":
                laid = Counter(parse_cards([c for m in e["melds"] for c in m]))
                laid.update(parse_cards([c for x in e["layoffs"] for c in x["cards"]]))
                taken[e["seat"]] -= laid
        rnd = view["round"]
        top = rnd["discard_top"]
        if len(pile) != rnd["discard_count"] or (pile and top is not None
                                                 and pile[-1] != parse_card(top)):
            raise ValueError("the events do not lead to this view: pass every event of the "
                             "seat since the game began")
        hand = tuple(parse_cards(you["hand"]))
        table = tuple(parse_cards([c for m in rnd["table"]
                                   for c in (*m["cards"], *(x for lay in m["layoffs"]
                                                            for x in lay["cards"]))]))
        known = tuple(hand if s == seat else tuple(sorted(taken[s].elements()))
                      for s in range(players))
        counts = [p["hand_count"] for p in view["players"]]
        hidden = tuple(0 if s == seat else counts[s] - len(known[s]) for s in range(players))
        rules = view["rules"]
        shoe = Counter(build_shoe(rules["decks"], rules["jokers"]))
        seen = Counter(hand) + Counter(pile) + Counter(table)
        for s in range(players):
            if s != seat:
                seen.update(known[s])
        unseen = shoe - seen
        stock = rnd["stock_count"]
        if sum(unseen.values()) != stock + sum(hidden):
            raise ValueError("the view's counts do not add up to the shoe")
        return cls(seat, hand, tuple(pile), table, known, hidden, stock,
                   tuple(sorted(unseen.elements())), reshuffled)
