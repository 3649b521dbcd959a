"""Games of reference bots played on the engine with every event kept, for the research
tests: the positions a seat decided at (with the seat's events) and the games' records."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from service.bots import decide
from service.core.rules import resolve_rules
from service.engine import GameState, apply, new_game, opening_events, view
from service.engine.events import Event
from service.engine.seats import SERVICE
from service.verify.record import build_record

__all__ = ["bot_game", "decision_points", "record_of"]


def bot_game(bots: list[str], seed: str, rules: dict[str, Any]) -> tuple[GameState, list[Event]]:
    """A finished game of bot seats and its whole event log."""
    state = new_game(resolve_rules(rules), [None] * len(bots), seed, seed_salt=f"s:{seed}",
                     bots=bots)
    log = list(opening_events(state))
    while not state.finished:
        seat = state.current_seat
        assert seat is not None
        action = decide(bots[seat], f"{seed}:{state.version}", view(state, seat, SERVICE),
                        [e.for_seat(seat) for e in log])
        state, events = apply(state, seat, action, SERVICE)
        log.extend(events)
    return state, log


def record_of(bots: list[str], seed: str, rules: dict[str, Any]) -> dict[str, Any]:
    final, log = bot_game(bots, seed, rules)
    return build_record(f"g-{seed}", final, log, created_at=None, finished_at=0.0)


def decision_points(bots: list[str], seed: str, rules: dict[str, Any],
                    ) -> Iterator[tuple[GameState, int, list[dict[str, Any]]]]:
    """(the true state, the seat to move, that seat's events so far) at every decision of
    a game of ``bots``."""
    state = new_game(resolve_rules(rules), [None] * len(bots), seed, seed_salt=f"s:{seed}",
                     bots=bots)
    log = list(opening_events(state))
    while not state.finished:
        seat = state.current_seat
        assert seat is not None
        mine = [e.for_seat(seat) for e in log]
        yield state, seat, mine
        action = decide(bots[seat], f"{seed}:{state.version}", view(state, seat, SERVICE), mine)
        state, events = apply(state, seat, action, SERVICE)
        log.extend(events)
