"""Replaying a record: the game's state at every version, from the seed and the actions.

Only the engine is used, exactly as the service used it: a fresh :func:`new_game` with the
record's rules, seats, seed and salt deals round 1, then each action is applied in order
(:func:`apply` for moves, :func:`claim` for a seat claimed, :func:`time_out` for a turn the
clock ended), one version each.

One thing the service does around the engine is redone here, as it changes what later
actions do: a human's own move ends its run of timed-out turns (:func:`acted`), which the
count of the next ``time_out`` (and so whether the seat goes ``away``) depends on. A move
is the human's own unless a bot or the stand-in plays the seat then: the seat's kind is
bot, away or resigned, or its turn timed out and the stand-in is finishing that turn.

What a replay cannot give back is the turn clock's deadline (the service's clock, not the
game's): every replayed state has none.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from service.core.errors import EngineError
from service.engine import GameState, apply, claim, new_game
from service.engine.seats import AWAY, acted, player_of, seat_kind, time_out
from service.engine.serialize import rules_from_json

__all__ = ["ReplayError", "describe", "initial_state", "replay", "state_at"]


class ReplayError(Exception):
    """An action of the record the engine refuses, or a record it cannot start from."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


def initial_state(record: Mapping[str, Any]) -> GameState:
    """Version 0: the deal of round 1, with every seat as it was at the start."""
    players = record["players"]
    names = [None if p.get("claimed") else p["name"] for p in players]
    bots = [p.get("bot") for p in players]
    try:
        state = new_game(rules_from_json(record["rules"]), names, record["seed"],
                         seed_salt=record["seed_salt"], bots=bots,
                         turn_seconds=record.get("turn_seconds"))
    except EngineError as exc:
        raise ReplayError(f"cannot start the game of this record: {exc}") from None
    # new_game marks a given seed as the creator's; the record says whose it was
    return replace(state, seeded_by_creator=bool(record.get("seeded_by_creator")))


def describe(index: int, action: Mapping[str, Any], state: GameState) -> str:
    """How an action is named in a message: its number, version, round, seat and body."""
    body = ", ".join(f"{k} {v}" for k, v in action.items() if k not in ("seat", "type"))
    return (f"action {index + 1} (version {state.version + 1}, round {state.round_index + 1}): "
            f"seat {action.get('seat')} {action.get('type')}" + (f" {body}" if body else ""))


def _step(state: GameState, action: Mapping[str, Any], stand_in: tuple[int, int] | None
          ) -> GameState:
    seat, kind = action.get("seat"), action.get("type")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise ValueError("the action has no seat number")
    if kind == "claim":
        return claim(state, seat, action["name"])[0]
    if kind == "time_out":
        new = time_out(state, seat)[0]
        away = seat_kind(new, seat) == AWAY
        if "away" in action and action["away"] != away:
            raise ValueError(f"the seat {'goes' if away else 'does not go'} away on replay")
        return new
    body = {k: v for k, v in action.items() if k != "seat"}
    by_service = kind in ("draw", "discard", "go_out") and (
        player_of(state, seat) is not None or stand_in == (seat, state.round_index))
    new = apply(state, seat, body)[0]
    return new if by_service else acted(new, seat)


def replay(record: Mapping[str, Any]) -> Iterator[GameState]:
    """The state at version 0, 1, 2, … (one per action); :class:`ReplayError` naming the
    first action the engine refuses."""
    state = initial_state(record)
    yield state
    stand_in: tuple[int, int] | None = None  # (seat, round) the stand-in is finishing
    for index, action in enumerate(record["actions"]):
        try:
            new = _step(state, action, stand_in)
        except (EngineError, ValueError, KeyError, TypeError) as exc:
            text = getattr(exc, "message", None) or str(exc)
            raise ReplayError(f"{describe(index, action, state)} is refused: {text}",
                              index) from None
        if action.get("type") == "time_out":
            stand_in = (action["seat"], new.round_index)
        elif stand_in is not None and (new.current_seat != stand_in[0]
                                       or new.round_index != stand_in[1]):
            stand_in = None
        state = new
        yield state


def state_at(record: Mapping[str, Any], version: int) -> GameState:
    """The state at ``version`` (0 … the record's ``versions``)."""
    if not 0 <= version <= len(record["actions"]):
        raise ValueError(f"this record has versions 0 to {len(record['actions'])}")
    for state in replay(record):
        if state.version == version:
            return state
    raise ReplayError(f"the replay never reached version {version}")
