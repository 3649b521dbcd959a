"""Replaying a record: the game's state at every version, from the seed and the actions.

Only the engine is used, exactly as the service used it: a fresh :func:`new_game` with the
record's rules, seats, seed, salt and table nonce deals round 1, then each action is
applied in order by whoever the record says made it (``by``: the seat's player, or the
service for a bot, the stand-in or the clock): :func:`apply` for moves, resignations and
returns, :func:`claim` for a seat claimed, :func:`time_out` for a turn the clock ended,
one version each. The engine decides who may move a seat, so an action attributed to
the wrong actor is refused here as it would have been by the service.

What a replay cannot give back is the turn clock's deadline (the service's clock, not the
game's): every replayed state has none.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from service.core.errors import EngineError
from service.engine import Event, GameState, apply, claim, new_game
from service.engine.seats import ACTORS, SERVICE, seat_kind, time_out
from service.engine.serialize import rules_from_json
from service.engine.state import AWAY

__all__ = ["ReplayError", "Step", "describe", "initial_state", "replay", "replay_steps",
           "state_at"]


class ReplayError(Exception):
    """An action of the record the engine refuses, or a record it cannot start from."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index


@dataclass(frozen=True, slots=True)
class Step:
    """One action replayed: the state before it, the action, the state after it and the
    events it made (``index`` counts actions from 0)."""

    index: int
    before: GameState
    action: Mapping[str, Any]
    after: GameState
    events: list[Event]


def initial_state(record: Mapping[str, Any]) -> GameState:
    """Version 0: the deal of round 1, with every seat as it was at the start."""
    players = record["players"]
    names = [None if p.get("claimed") else p["name"] for p in players]
    bots = [p.get("bot") for p in players]
    accounts = [None if p.get("claimed") else p.get("account") for p in players]
    programs = [bool(p.get("account_bot")) and not p.get("claimed") for p in players]
    try:
        state = new_game(rules_from_json(record["rules"]), names, record["seed"],
                         seed_salt=record["seed_salt"], bots=bots,
                         turn_seconds=record.get("turn_seconds"),
                         table_nonce=record.get("table_nonce"), accounts=accounts,
                         account_bots=programs, rated=bool(record.get("rated")))
    except EngineError as exc:
        raise ReplayError(f"cannot start the game of this record: {exc}") from None
    # new_game marks a given seed as the creator's; the record says whose it was
    return replace(state, seeded_by_creator=bool(record.get("seeded_by_creator")))


def describe(index: int, action: Mapping[str, Any], state: GameState) -> str:
    """How an action is named in a message: its number, version, round, seat and body."""
    body = ", ".join(f"{k} {v}" for k, v in action.items() if k not in ("seat", "type", "by"))
    return (f"action {index + 1} (version {state.version + 1}, round {state.round_index + 1}): "
            f"seat {action.get('seat')} {action.get('type')} by {action.get('by')}"
            + (f" {body}" if body else ""))


def _step(state: GameState, action: Mapping[str, Any]) -> tuple[GameState, list[Event]]:
    seat, kind, by = action.get("seat"), action.get("type"), action.get("by")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise ValueError("the action has no seat number")
    if by not in ACTORS:
        raise ValueError(f"the action's 'by' is {by!r}, not one of {', '.join(ACTORS)}")
    if kind == "claim":
        return claim(state, seat, action["name"], action.get("account"),
                     bool(action.get("account_bot")))
    if kind == "time_out":
        if by != SERVICE:
            raise ValueError("a time-out is the service's")
        new, events = time_out(state, seat)
        away = seat_kind(new, seat) == AWAY
        if "away" in action and action["away"] != away:
            raise ValueError(f"the seat {'goes' if away else 'does not go'} away on replay")
        return new, events
    body = {k: v for k, v in action.items() if k not in ("seat", "by")}
    return apply(state, seat, body, by)


def replay_steps(record: Mapping[str, Any], start: GameState | None = None) -> Iterator[Step]:
    """Each action of the record replayed, in order, from ``start`` (its
    :func:`initial_state` unless given); :class:`ReplayError` naming the first action the
    engine refuses."""
    state = initial_state(record) if start is None else start
    for index, action in enumerate(record["actions"]):
        try:
            new, events = _step(state, action)
        except (EngineError, ValueError, KeyError, TypeError) as exc:
            text = getattr(exc, "message", None) or str(exc)
            raise ReplayError(f"{describe(index, action, state)} is refused: {text}",
                              index) from None
        yield Step(index, state, action, new, events)
        state = new


def replay(record: Mapping[str, Any]) -> Iterator[GameState]:
    """The state at version 0, 1, 2, … (one per action); :class:`ReplayError` naming the
    first action the engine refuses."""
    state = initial_state(record)
    yield state
    for step in replay_steps(record, state):
        yield step.after


def state_at(record: Mapping[str, Any], version: int) -> GameState:
    """The state at ``version`` (0 … the record's ``versions``)."""
    if not 0 <= version <= len(record["actions"]):
        raise ValueError(f"this record has versions 0 to {len(record['actions'])}")
    for state in replay(record):
        if state.version == version:
            return state
    raise ReplayError(f"the replay never reached version {version}")
