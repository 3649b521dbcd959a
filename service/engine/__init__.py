"""The pure Three-Thirteen engine: cards, rules, solver, game state. No I/O.

The game API (what the HTTP layer calls)::

    new_game(rules, names, seed=None) -> GameState    # None in names: an open seat
    claim(state, seat, name) -> (GameState, [Event])  # name an open seat
    apply(state, seat, action_body) -> (GameState, [Event])
    legal_actions(state, seat) -> [action_body]
    view(state, seat_or_None) -> dict          # docs/api.md's state, minus game_id
    to_dict(state) -> dict / from_dict(dict) -> GameState

Names are loaded on first use (PEP 562), so importing one submodule, e.g.
``service.engine.cards``, does not drag in the whole engine.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

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
    "to_dict",
    "view",
    "winners",
]

_WHERE = {
    "Event": "events",
    "GameState": "state",
    "apply": "actions",
    "claim": "game",
    "parse_action": "actions",
    "from_dict": "serialize",
    "to_dict": "serialize",
    "legal_actions": "legal",
    "new_game": "game",
    "opening_events": "game",
    "view": "view",
    "winners": "rounds",
}

if TYPE_CHECKING:
    from .actions import apply, parse_action
    from .events import Event
    from .game import claim, new_game, opening_events
    from .legal import legal_actions
    from .rounds import winners
    from .serialize import from_dict, to_dict
    from .state import GameState
    from .view import view


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
