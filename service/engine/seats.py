"""Who plays each seat: a human, a server-side bot, or a bot standing in for a human.

A seat is one of four kinds (docs/lifecycle.md):

* ``human``: its token's bearer plays it;
* ``bot``: a reference bot (``state.bots[seat]``) plays it, from the start;
* ``away``: a human seat whose turns timed out :data:`AWAY_AFTER` times in a row; the
  ``greedy`` bot plays it until its owner sends ``{"type": "back"}``;
* ``resigned``: its owner resigned; ``greedy`` plays it to the end, so the scores of
  everyone else stay meaningful (a game whose humans all resigned plays to its end).

Each change here is a version with a public event, like every move, so a seed and the
list of actions (the bots' and the service's included) replay a game exactly. The
engine never reads the clock: the service layer decides that a turn timed out and
applies :func:`time_out`.
"""

from __future__ import annotations

from dataclasses import replace

from service.core.errors import IllegalActionError

from .events import Event, EventLog
from .state import GameState

__all__ = [
    "AWAY",
    "AWAY_AFTER",
    "BOT",
    "HUMAN",
    "KINDS",
    "RESIGNED",
    "STAND_IN",
    "acted",
    "ask_rematch",
    "come_back",
    "humans",
    "player_of",
    "rematch_started",
    "resign",
    "seat_kind",
    "time_out",
]

HUMAN = "human"
BOT = "bot"
AWAY = "away"
RESIGNED = "resigned"
KINDS = (HUMAN, BOT, AWAY, RESIGNED)

#: The bot that plays an away or resigned seat, and a timed-out turn.
STAND_IN = "greedy"
#: Turns timed out in a row that make a human seat ``away``.
AWAY_AFTER = 2


def seat_kind(state: GameState, seat: int) -> str:
    """The kind of ``seat`` (a state made before seat kinds existed has only humans)."""
    return state.seat_kinds[seat] if state.seat_kinds else HUMAN


def player_of(state: GameState, seat: int) -> str | None:
    """The reference bot that plays ``seat`` now, or ``None`` when its human does."""
    kind = seat_kind(state, seat)
    if kind == BOT:
        return state.bots[seat]
    return None if kind == HUMAN else STAND_IN


def humans(state: GameState) -> list[int]:
    """The seats that have a human owner (human, away or resigned): the ones who are
    asked about a rematch (bots accept at once)."""
    return [s for s in range(state.players) if seat_kind(state, s) != BOT]


def _kinds(state: GameState, seat: int, kind: str) -> tuple[str, ...]:
    kinds = [seat_kind(state, s) for s in range(state.players)]
    kinds[seat] = kind
    return tuple(kinds)


def _timeouts(state: GameState, seat: int, value: int) -> tuple[int, ...]:
    counts = list(state.timeouts or (0,) * state.players)
    counts[seat] = value
    return tuple(counts)


def _step(state: GameState, log: EventLog, **changes: object) -> tuple[GameState, list[Event]]:
    new = replace(state, version=state.version + 1, event_seq=log.seq, **changes)  # type: ignore[arg-type]
    return new, log.events


def _owned(state: GameState, seat: int, what: str) -> str:
    kind = seat_kind(state, seat)
    if kind == BOT:
        raise IllegalActionError(f"seat {seat} is a bot's: it cannot {what}", seat=seat)
    return kind


def resign(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    """``seat`` gives up: the stand-in bot plays it to the end (any time, on turn or not)."""
    if state.finished:
        raise IllegalActionError("the game is finished")
    if _owned(state, seat, "resign") == RESIGNED:
        raise IllegalActionError(f"seat {seat} has resigned already", seat=seat)
    log = EventLog(state.event_seq)
    log.add("seat_resigned", {"seat": seat, "played_by": STAND_IN})
    return _step(state, log, seat_kinds=_kinds(state, seat, RESIGNED))


def come_back(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    """The owner of an away seat is back: it plays its own turns again."""
    if state.finished:
        raise IllegalActionError("the game is finished")
    if _owned(state, seat, "come back") != AWAY:
        raise IllegalActionError(f"seat {seat} is not away", seat=seat)
    log = EventLog(state.event_seq)
    log.add("seat_back", {"seat": seat})
    return _step(state, log, seat_kinds=_kinds(state, seat, HUMAN),
                 timeouts=_timeouts(state, seat, 0))


def acted(state: GameState, seat: int) -> GameState:
    """A human's own move: its run of timed-out turns is over (no version: part of the move)."""
    if state.timeouts and state.timeouts[seat]:
        return replace(state, timeouts=_timeouts(state, seat, 0))
    return state


def time_out(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    """``seat``'s turn timed out: counted (the stand-in then plays the turn); the
    :data:`AWAY_AFTER`-th in a row makes the seat ``away``."""
    if state.finished or seat != state.current_seat:
        raise IllegalActionError(f"it is not seat {seat}'s turn", seat=seat)
    count = (state.timeouts[seat] if state.timeouts else 0) + 1
    away = count >= AWAY_AFTER and seat_kind(state, seat) == HUMAN
    log = EventLog(state.event_seq)
    log.add("turn_timed_out", {"seat": seat, "timeouts": count, "away": away,
                               "played_by": STAND_IN})
    kinds = _kinds(state, seat, AWAY) if away else state.seat_kinds
    return _step(state, log, seat_kinds=kinds, timeouts=_timeouts(state, seat, count))


def ask_rematch(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    """After the end, ``seat`` asks for (or accepts) a rematch with the same players and rules."""
    if not state.finished:
        raise IllegalActionError("a rematch is for a finished game")
    _owned(state, seat, "ask for a rematch")
    if seat in state.rematch_asked or state.rematch_game is not None:
        raise IllegalActionError(f"seat {seat} has already asked for this rematch", seat=seat)
    asked = tuple(sorted((*state.rematch_asked, seat)))
    log = EventLog(state.event_seq)
    waiting = [s for s in humans(state) if s not in asked]
    log.add("rematch_asked", {"seat": seat, "waiting_for": waiting})
    return _step(state, log, rematch_asked=asked)


def rematch_started(state: GameState, game_id: str) -> tuple[GameState, list[Event]]:
    """Every human accepted: the new game ``game_id`` is announced on this game's log."""
    if state.rematch_game is not None:
        raise IllegalActionError("this game's rematch has started already")
    log = EventLog(state.event_seq)
    log.add("rematch_started", {"game_id": game_id})
    return _step(state, log, rematch_game=game_id)
