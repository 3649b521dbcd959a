"""The pure Three-Thirteen engine: the game flow on cards, rules and melds (``service.core``),
scored by the solver (``service.solver``). No I/O.

The game API (what the HTTP layer calls)::

    new_game(rules, names, seed=None) -> GameState    # None in names: an open seat
    claim(state, seat, name) -> (GameState, [Event])  # name an open seat
    apply(state, seat, action_body, by="player") -> (GameState, [Event])  # or by="service"
    legal_actions(state, seat) -> [action_body]
    view(state, seat_or_None) -> dict          # docs/api.md's state, minus game_id
    to_dict(state) -> dict / from_dict(dict) -> GameState
"""

from __future__ import annotations

from .actions import apply, parse_action
from .events import Event
from .game import claim, new_game, opening_events
from .legal import legal_actions
from .rounds import places, standing_places, winners
from .serialize import from_dict, to_dict
from .state import GameState
from .view import view

__all__ = [
    "Event",
    "GameState",
    "apply",
    "claim",
    "from_dict",
    "legal_actions",
    "new_game",
    "opening_events",
    "parse_action",
    "places",
    "standing_places",
    "to_dict",
    "view",
    "winners",
]
