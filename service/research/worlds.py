"""Worlds a seat cannot tell from the real one: its hidden cards dealt again, at random,
from what the seat knows (:class:`.knowledge.Knowledge`) and nothing else.

Why: search and analysis over imperfect information (determinized Monte Carlo, the
decision analysis of docs/analysis) play out positions whose hidden cards are guessed.
A guess that leans on the true deal, even slightly, is cheating, and it is invisible in
the results. Here a world is drawn from the seat's knowledge alone: the cards it has not
seen are shuffled and dealt to the other seats' unknown cards and the stock, each seat
keeping the cards it is known to hold, so every arrangement consistent with what the
seat saw is equally likely, and the true one is just one of them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from service.engine.state import GameState

from .knowledge import Knowledge

__all__ = ["World", "deal", "in_state", "sample_worlds"]


@dataclass(frozen=True, slots=True)
class World:
    """Every seat's hand and the stock (top first) of one guess."""

    hands: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]


def sample_worlds(knowledge: Knowledge, n: int, rng: random.Random,
                  top: int | None = None) -> list[World]:
    """``n`` worlds drawn independently and uniformly among those consistent with
    ``knowledge``: the seat's hand as it is, each other seat's known cards plus as many
    unseen cards as it holds unknown ones, the rest the stock in a random order.

    ``top``: an unseen card put on top of the stock in each world, swapped with the card
    the shuffle put there. The same ``rng`` state gives the same worlds but for that swap,
    each drawn uniformly among those with ``top`` on the stock: what a draw's luck
    compares with the same worlds as they were (:mod:`service.analysis.luck`)."""
    out = []
    at_top = sum(knowledge.hidden)
    for _ in range(n):
        pool = list(knowledge.unseen)
        rng.shuffle(pool)
        if top is not None:
            if at_top >= len(pool) or top not in pool:
                raise ValueError("that card cannot be on top of the stock")
            where = pool.index(top)
            pool[where], pool[at_top] = pool[at_top], pool[where]
        out.append(deal(knowledge, pool))
    return out


def deal(knowledge: Knowledge, pool: list[int]) -> World:
    """The world that deals ``pool`` (the unseen cards, in some order) to the other seats'
    unknown cards in seat order, the rest to the stock, top first."""
    hands = []
    at = 0
    for s, known in enumerate(knowledge.known):
        extra = pool[at:at + knowledge.hidden[s]]
        at += knowledge.hidden[s]
        hands.append(tuple(sorted((*known, *extra))))
    return World(tuple(hands), tuple(pool[at:]))


def in_state(state: GameState, world: World, seed: str) -> GameState:
    """``state`` with the world's hands and stock, and ``seed`` for whatever the rest of
    the round shuffles (a reshuffle of the pile): a state to play out. The public part
    (pile, table, scores, whose turn) is the state's own; the caller's ``state`` must be
    the position the knowledge was read at."""
    if len(world.hands) != state.players or len(world.stock) != len(state.stock):
        raise ValueError("the world is not of this position")
    return replace(state, hands=world.hands, stock=world.stock, seed=seed)
