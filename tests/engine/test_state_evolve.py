"""``evolve`` is ``dataclasses.replace`` for game states, only cheaper."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from service.engine import new_game
from service.engine.rules import resolve_rules
from service.engine.state import GameState, evolve


def _state() -> GameState:
    return new_game(resolve_rules({"preset": "classic"}), ["ann", "bob", "cy"], "evolve")


def test_evolve_gives_the_same_value_as_replace_for_every_field() -> None:
    state = _state()
    for field in fields(GameState):
        value = getattr(state, field.name)
        changed = (value + 1 if isinstance(value, int) and not isinstance(value, bool)
                   else value)
        assert evolve(state, **{field.name: changed}) == replace(state, **{field.name: changed})
    assert evolve(state) == state and evolve(state) is not state


def test_evolve_leaves_the_original_untouched_and_the_result_frozen() -> None:
    state = _state()
    moved = evolve(state, version=state.version + 5, phase="discard")
    assert (state.version, state.phase) == (0, "draw")
    assert (moved.version, moved.phase) == (5, "discard")
    with pytest.raises(AttributeError):
        moved.version = 9  # type: ignore[misc]
    assert hash(moved) == hash(replace(state, version=5, phase="discard"))


def test_evolve_refuses_a_field_the_state_does_not_have() -> None:
    with pytest.raises(TypeError, match="no field"):
        evolve(_state(), versoin=3)
