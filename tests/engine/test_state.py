"""The game state (``service/engine/state.py``): :func:`updated` is ``dataclasses.replace``
made faster, so it must change exactly what ``replace`` changes, and its typed list of
fields must stay the state's."""

from __future__ import annotations

from dataclasses import fields, replace
from typing import get_type_hints

import pytest

from service.core.rules import preset_rules
from service.engine.game import new_game
from service.engine.state import GameState, StateChanges, updated


def test_the_fields_updated_may_change_are_the_states_own_with_the_same_types() -> None:
    assert get_type_hints(StateChanges) == get_type_hints(GameState)
    assert list(StateChanges.__annotations__) == [f.name for f in fields(GameState)]


def test_updated_gives_the_state_replace_gives() -> None:
    state = new_game(preset_rules("classic"), ["a", "b", "c"], "updated")
    changed = updated(state, version=7, hands=((), (), ()), phase=None, rated=True)
    assert changed == replace(state, version=7, hands=((), (), ()), phase=None, rated=True)
    assert updated(state) == state and updated(state) is not state
    assert state.version == 0  # the old state is untouched


def test_updated_refuses_a_field_the_state_does_not_have() -> None:
    state = new_game(preset_rules("classic"), ["a", "b"], "updated")
    with pytest.raises(TypeError, match="no field 'colour'"):
        updated(state, colour="red")  # type: ignore[call-arg]
