"""A game state built from one seat's view and knowledge alone: the position to play out
in a world drawn from that knowledge (:func:`.worlds.in_state`).

Why from the view: a bot sees its view and its events, never the service's state, and a
search bot (``expert``) still needs the engine to play its candidate moves out. The
public part of the state (rules, scores, pile, table, whose turn, the phase) is read off
the view and the seat's knowledge; the cards the seat cannot see are dealt in a fixed
order (the unseen cards sorted), so the result holds nothing of the true deal and is
only a frame: :func:`.worlds.in_state` replaces its hands and stock with a world's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.engine.events import table_of
from service.engine.serialize import rules_from_json
from service.engine.state import IN_PROGRESS, GameState

from .knowledge import Knowledge
from .worlds import deal

__all__ = ["position"]


def position(view: Mapping[str, Any], knowledge: Knowledge) -> GameState:
    """The round in play as ``knowledge``'s seat sees it in ``view``, as an engine state
    whose hidden cards are a fixed deal of the unseen ones (nothing of the true deal)."""
    rnd = view["round"]
    if view["status"] != IN_PROGRESS or rnd["phase"] is None:
        raise ValueError("a position is of a game in play")
    players = len(view["players"])
    round_index = rnd["number"] - 1
    went_out = rnd["went_out"]
    current = rnd["current_seat"]
    arranged: tuple[int, ...] = ()
    if went_out is not None:  # the goer, then each seat whose final turn is over
        seat, order = went_out, []
        while seat != current:
            order.append(seat)
            seat = (seat + 1) % players
        arranged = tuple(order)
    table = table_of(rnd["table"])
    world = deal(knowledge, list(knowledge.unseen))
    return GameState(
        rules=rules_from_json(view["rules"]),
        names=tuple(p["name"] for p in view["players"]),
        seed="position",
        seed_salt="position",
        seeded_by_creator=view["seeded_by_creator"],
        first_dealer=(rnd["dealer"] - round_index) % players,
        version=view["version"],
        event_seq=0,
        status=IN_PROGRESS,
        round_index=round_index,
        reshuffles=int(knowledge.reshuffled),
        hands=world.hands,
        stock=world.stock,
        discard=knowledge.pile,
        current_seat=current,
        phase=rnd["phase"],
        went_out=went_out,
        table=table,
        arranged=arranged,
        scores=tuple(tuple(p["round_scores"]) for p in view["players"]),
        last_round=None,
        turns=rnd["turns"],
        played=tuple(range(players)),
        rated=view["rated"],
    )
