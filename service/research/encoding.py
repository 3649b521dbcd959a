"""Actions as integers and a seat's knowledge as a vector: the shapes a learning agent
takes, for the PettingZoo environment (:mod:`.env`).

Actions (:data:`ACTIONS` = 108): 0 draws from the stock, 1 from the discard pile,
``2 + c`` discards card ``c`` and ``2 + 53 + c`` goes out discarding it, where ``c`` is
the engine's card integer (0–51 the cards by suit and rank, 52 the joker). Every legal
action of the engine is one of them, and the mask is the engine's ``legal_actions``.

The observation is built from :class:`.knowledge.Knowledge` and the seat's view, so it
holds only what the seat may see; every block is a count per card integer (53 wide)
unless named otherwise, and seats are listed from the observer on (itself first):

==================  ===============================================================
own hand            copies of each card in the hand
discard pile        copies of each card in the pile
discard top         one-hot (all zero when the pile is empty)
table               copies of each card in the melds on the table
known, per other    the cards each other seat is known to hold (players - 1 blocks)
wild rank           one-hot over the 13 ranks
phase               one-hot: draw, discard, final draw, final discard
round               round number, rounds, hand size, stock size, turns played
per seat            hand count, total so far, went out this round (3 x players)
==================  ===============================================================
"""

from __future__ import annotations

from typing import Any

from service.core.cards import card_name, parse_card, parse_rank
from service.core.shapes import Action

from .knowledge import Knowledge

__all__ = ["ACTIONS", "CARDS", "action_body", "action_index", "observation", "observation_size"]

CARDS = 53
ACTIONS = 2 + 2 * CARDS
PHASES = ("draw", "discard", "final_draw", "final_discard")


def action_index(body: Action | dict[str, Any]) -> int:
    """The integer of a turn move (``ValueError`` for a seat action: resign, back, …)."""
    kind = body["type"]
    if kind == "draw":
        return 0 if body["source"] == "stock" else 1
    if kind == "discard":
        return 2 + parse_card(body["card"])
    if kind == "go_out":
        return 2 + CARDS + parse_card(body["discard"])
    raise ValueError(f"{kind!r} is not a turn move")


def action_body(index: int) -> Action:
    """The engine's action body of an integer (``ValueError`` out of range)."""
    if not 0 <= index < ACTIONS:
        raise ValueError(f"an action is 0 to {ACTIONS - 1}, not {index}")
    if index < 2:
        return {"type": "draw", "source": ("stock", "discard")[index]}
    if index < 2 + CARDS:
        return {"type": "discard", "card": card_name(index - 2)}
    return {"type": "go_out", "discard": card_name(index - 2 - CARDS)}


def observation_size(players: int) -> int:
    return CARDS * (4 + players - 1) + 13 + len(PHASES) + 5 + 3 * players


def observation(view: Any, knowledge: Knowledge) -> list[float]:
    """The seat's observation (see the module's table), from its view and knowledge."""
    players = len(view["players"])
    seat = knowledge.seat
    order = [(seat + k) % players for k in range(players)]
    out: list[float] = []

    def counts(cards: tuple[int, ...]) -> None:
        block = [0.0] * CARDS
        for c in cards:
            block[c] += 1
        out.extend(block)

    counts(knowledge.hand)
    counts(knowledge.pile)
    top = [0.0] * CARDS
    if knowledge.pile:
        top[knowledge.pile[-1]] = 1.0
    out.extend(top)
    counts(knowledge.table)
    for s in order[1:]:
        counts(knowledge.known[s])
    rnd = view["round"]
    wild = [0.0] * 13
    wild[parse_rank(rnd["wild_rank"]) - 1] = 1.0
    out.extend(wild)
    out.extend(1.0 if rnd["phase"] == p else 0.0 for p in PHASES)
    out.extend(float(x) for x in (rnd["number"], rnd["rounds"], rnd["hand_size"],
                                  rnd["stock_count"], rnd["turns"]))
    for s in order:
        p = view["players"][s]
        out.extend((float(p["hand_count"]), float(p["total"]),
                    1.0 if rnd["went_out"] == s else 0.0))
    return out
