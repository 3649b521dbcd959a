"""The service layer on the in-memory stores: no Redis, no HTTP, milliseconds a test."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from service.bots import GreedyBot
from service.engine import view
from service.play import act, play_due
from service.storage import Stores, memory_stores
from service.storage.memory import MemoryGameStore, Shared


@pytest.fixture
def stores() -> Stores:
    return memory_stores()


def with_games(make: Callable[[Shared], MemoryGameStore]) -> Stores:
    """Memory stores whose game store is ``make(shared)`` (a test's subclass that fails or
    races on cue), on the memory the bundle's other stores share."""
    stores = memory_stores()
    return replace(stores, games=make(stores.games.shared))  # type: ignore[attr-defined]


def play_out(stores: Stores, game_id: str, tokens: dict[int, str]) -> None:
    """Play the game to its end: each seat of ``tokens`` by its player (greedy's choices,
    sent with its token), every other move by the service."""
    while not (state := stores.games.load(game_id).state).finished:
        seat = state.current_seat
        if seat in tokens and not view(state, seat)["legal_actions"]:
            assert play_due(stores, game_id) > 0, "the service owes the timed-out turn"
        elif seat in tokens:
            act(stores, game_id, tokens[seat], GreedyBot().choose(view(state, seat)))
        else:
            assert play_due(stores, game_id) > 0, f"nobody plays seat {seat}"
