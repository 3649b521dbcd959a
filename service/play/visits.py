"""When a move worker must next visit a game, and the plan of that visit.

A game is visited while the service owes it a move (a bot's, the stand-in's), at its
turn's deadline while a player's clock runs, and after a change that owes effects
beyond the game (:mod:`.effects`: the visit runs those a lost process left). A visit is
planned on the lane of the game's bots (:func:`.loads.lane_of`: fixed by its seats, one
lane for the game's life).
"""

from __future__ import annotations

from service.engine.seats import played_by_service
from service.storage import GameRecord, Stores

from .loads import lane_of

__all__ = ["next_visit", "plan_visit"]


def next_visit(record: GameRecord, now: float) -> float | None:
    """When a move worker must next look at the game: now while the service owes it a
    move (a bot's, the stand-in's), at the turn's deadline while a player's clock runs,
    else never (over, waiting for seats, or a player's turn without a clock)."""
    state = record.state
    seat = state.current_seat
    if state.finished or record.open_seats or seat is None:
        return None
    if played_by_service(state, seat):
        return now
    return state.turn_deadline


def plan_visit(stores: Stores, record: GameRecord, now: float, later: float = 0.0) -> None:
    """Plan the game's :func:`next_visit` (``later`` seconds after it), if it has one."""
    at = next_visit(record, now)
    if at is not None:
        stores.schedule.plan(record.game_id, at + later, lane_of(record.state.bots))
