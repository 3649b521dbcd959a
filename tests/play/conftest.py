"""The service layer on the in-memory stores: no Redis, no HTTP, milliseconds a test."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

import pytest

from service.bots import GreedyBot
from service.engine import view
from service.play import act
from service.play.credentials import hash_token
from service.storage import Stores, memory_stores
from service.storage.memory import MemoryGameStore, Shared
from service.workers.moves import LobbyPruning, MoveWorker


@pytest.fixture
def stores() -> Stores:
    return memory_stores()


def with_games(make: Callable[[Shared], MemoryGameStore]) -> Stores:
    """Memory stores whose game store is ``make(shared)`` (a test's subclass that fails or
    races on cue), on the memory the bundle's other stores share."""
    stores = memory_stores()
    return replace(stores, games=make(stores.games.shared))  # type: ignore[attr-defined]


def drain(stores: Stores, clock: Callable[[], float] = time.time) -> int:
    """Every move the service owes now, made as a move worker makes them (one game at a
    time, in the schedule's order), until none is due at ``clock()``; the moves made.
    The lobby is left as it is (a worker's prune is tested on its own)."""
    never = LobbyPruning()
    never.next_at = float("inf")
    return MoveWorker(stores, clock=clock, pruning=never).drain()


def play_out(stores: Stores, game_id: str, tokens: dict[int, str]) -> None:
    """Play the game to its end: each seat of ``tokens`` by its player (greedy's choices,
    sent with its token), every other move by the service."""
    while not (state := stores.games.load(game_id).state).finished:
        seat = state.current_seat
        if seat in tokens and not view(state, seat)["legal_actions"]:
            assert drain(stores) > 0, "the service owes the timed-out turn"
        elif seat in tokens:
            act(stores, game_id, hash_token(tokens[seat]), GreedyBot().choose(view(state, seat)))
        else:
            assert drain(stores) > 0, f"nobody plays seat {seat}"
