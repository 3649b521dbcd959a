"""Checking the service's moves: is every bot move the move that bot makes from what its
seat saw?

Why it can be checked: a service move is :func:`service.bots.decide` of the bot's name,
its RNG seed (:func:`service.bots.decision_seed` of the salt and seed the record reveals,
the seat and the version) and what the seat saw then (its view, with the moves the
service may make for it, and its share of the events so far), and ``decide`` is a pure
function of these (its work is bounded in steps, not time). So a verifier replays the
decision and compares: a record whose bot moves were changed, or made by another bot
than the seat's, or by anything but the reference bot, is rejected.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.bots import decide, decision_seed
from service.engine import Event, GameState, view
from service.engine.seats import SERVICE, STAND_IN, player_of

__all__ = ["SeatLogs", "bot_move_difference"]

#: The fields of a move that a decision chooses (a go-out's melds follow from its discard).
_CHOSEN = {"draw": ("source",), "discard": ("card",), "go_out": ("discard",)}


class SeatLogs:
    """Each seat's share of the events so far, kept as the replay goes."""

    def __init__(self, players: int, events: list[Event]) -> None:
        self.logs: list[list[dict[str, Any]]] = [[] for _ in range(players)]
        self.add(events)

    def add(self, events: list[Event]) -> None:
        for seat, log in enumerate(self.logs):
            log.extend(e.for_seat(seat) for e in events)


def bot_move_difference(index: int, action: Mapping[str, Any], before: GameState,
                        logs: SeatLogs) -> str | None:
    """How a service move of the record differs from the decision its bot makes (``None``:
    it is that decision, or not a bot's move: a time-out, or a player's)."""
    kind = action.get("type")
    if action.get("by") != SERVICE or kind not in _CHOSEN:
        return None
    seat = action["seat"]
    bot = player_of(before, seat) or STAND_IN
    made = decide(bot, decision_seed(before.seed_salt, before.seed, seat, before.version),
                  view(before, seat, SERVICE), logs.logs[seat])
    if made.get("type") == kind and all(made.get(k) == action.get(k) for k in _CHOSEN[kind]):
        return None
    chosen = ", ".join(f"{k} {made.get(k)}" for k in _CHOSEN.get(str(made.get("type")), ()))
    return (f"action {index + 1} (version {before.version + 1}): seat {seat}'s {kind} is not "
            f"what its bot {bot} does there ({made.get('type')} {chosen})")
