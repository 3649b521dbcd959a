"""The service layer on the in-memory store: no Redis, no HTTP, milliseconds a test."""

from __future__ import annotations

import pytest

from service.bots import GreedyBot
from service.engine import view
from service.play import act, play_due
from service.storage.memory import MemoryGameStore


@pytest.fixture
def store() -> MemoryGameStore:
    return MemoryGameStore()


def play_out(store: MemoryGameStore, game_id: str, tokens: dict[int, str]) -> None:
    """Play the game to its end: each seat of ``tokens`` by its player (greedy's choices,
    sent with its token), every other move by the service."""
    while not (state := store.load(game_id).state).finished:
        seat = state.current_seat
        if seat in tokens and not view(state, seat)["legal_actions"]:
            assert play_due(store, game_id) > 0, "the service owes the timed-out turn"
        elif seat in tokens:
            act(store, game_id, tokens[seat], GreedyBot().choose(view(state, seat)))
        else:
            assert play_due(store, game_id) > 0, f"nobody plays seat {seat}"
