"""A view has one shape (``service/core/shapes.py``), declared once for the engine that
builds it, the service layer that adds the seats and the client that reads it: every view
of a whole game has exactly the fields of its ``TypedDict``s, and a table meld reads back
from its view into the meld the state holds."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from service.bots.playout import greedy_move
from service.client import GameView as ClientGameView
from service.core.rules import resolve_rules
from service.core.shapes import (
    GameView,
    LayoffView,
    PlayerView,
    RoundView,
    TableMeldView,
    View,
    You,
)
from service.engine import GameState, apply, new_game, view
from service.engine.events import table_dicts, table_of
from service.play.views import game_view


def _states() -> Iterator[GameState]:
    """Every state of a three-player game with lay-offs, played by greedy's moves."""
    state = new_game(resolve_rules({"preset": "classic", "lay_off": True}), ["a", "b", "c"],
                     seed="shapes", turn_seconds=60)
    yield state
    while not state.finished:
        seat = state.current_seat
        assert seat is not None
        state, _ = apply(state, seat, greedy_move(state, seat))
        yield state


def _fits(value: Mapping[str, Any], shape: Any) -> bool:
    keys = set(value)
    return shape.__required_keys__ <= keys <= shape.__required_keys__ | shape.__optional_keys__


def test_every_view_of_a_whole_game_has_exactly_the_fields_of_its_shape() -> None:
    laid_off = 0
    for state in _states():
        for seat in (None, *range(state.players)):
            for shown, shape in ((view(state, seat), View),
                                 (game_view("g", state, seat, [1]), GameView)):
                assert _fits(shown, shape)
                assert _fits(shown["round"], RoundView)
                assert all(_fits(p, PlayerView) for p in shown["players"])
                assert shown["you"] is None or _fits(shown["you"], You)
                assert all(_fits(m, TableMeldView) for m in shown["round"]["table"])
                assert all(_fits(x, LayoffView)
                           for m in shown["round"]["table"] for x in m["layoffs"])
        laid_off += any(m.layoffs for m in state.table)
    assert laid_off  # the game showed lay-offs, so their shape was checked


def test_the_served_view_is_the_one_the_client_reads() -> None:
    assert ClientGameView is GameView


def test_a_table_meld_reads_back_from_its_view() -> None:
    tables = [state.table for state in _states() if state.table]
    assert any(m.layoffs for table in tables for m in table)
    for table in tables:
        assert table_of(table_dicts(table)) == table
