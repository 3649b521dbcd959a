"""Positions where a seat decides, as a bot seat receives them: the seat's view and its
share of the events from the start (what ``service.bots.decide`` takes).

Why from games ``greedy`` plays: it is fast and deterministic, and any play reaches the
positions a rules variant can produce (the bots' tests and ``make bench-decisions``
then time or check other bots on them).
"""

from __future__ import annotations

from typing import Any

from service.bots import decide
from service.core.rules import resolve_rules
from service.engine import apply, new_game, opening_events, view

__all__ = ["WORST", "SeatPosition", "positions"]

#: The costliest rules for the solver a game may have: 14-card hands (aces wild), 8
#: jokers, 3 decks, lay-offs (final turns search up to two dozen table melds); with 8 players.
WORST: dict[str, Any] = {"preset": "classic", "hand_sizes": [14], "jokers": 8, "decks": 3,
                         "lay_off": True}

SeatPosition = tuple[dict[str, Any], list[dict[str, Any]]]


def positions(spec: dict[str, Any], players: int, games: int, seed: str) -> list[SeatPosition]:
    """Every (seat view, seat events) at which a seat decided, in ``games`` games that
    ``greedy`` played at every seat, dealt from ``f"{seed}-{g}"``."""
    rules = resolve_rules(spec)
    out: list[SeatPosition] = []
    for g in range(games):
        state = new_game(rules, [f"p{i}" for i in range(players)], f"{seed}-{g}")
        logs = [[e.for_seat(s) for e in opening_events(state)] for s in range(players)]
        while not state.finished:
            seat = state.current_seat
            assert seat is not None
            seat_view = view(state, seat)
            out.append((seat_view, list(logs[seat])))
            state, events = apply(state, seat, decide("greedy", "", seat_view, []))
            for e in events:
                for s in range(players):
                    logs[s].append(e.for_seat(s))
    return out
