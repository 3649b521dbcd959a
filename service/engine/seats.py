"""Who plays each seat, and so who may act for it: its player, or the service.

A seat is one of four kinds (docs/lifecycle.md):

* ``human``: its player (the bearer of its token or its account's key) plays it;
* ``bot``: a reference bot (``state.bots[seat]``) plays it, from the start;
* ``away``: a human seat whose turns timed out :data:`AWAY_AFTER` times in a row; the
  ``greedy`` bot plays it until its player sends ``{"type": "back"}``;
* ``resigned``: its player resigned; ``greedy`` plays it to the end, so the scores of
  everyone else stay meaningful. When all players but one have resigned, the game ends.

Two ways out of a game that never really started, both its players' own (docs/lifecycle.md):

* **abort**: a human seat whose first turn has not been played yet (no draw made for it,
  no time-out) may end the game at once with no result (``aborted``: no winners). Why
  per seat and not "before anyone moved": a player matched with someone who never shows
  up has moved already, and the absent one has not; so, as on lichess, a game may be
  aborted until every seat has played once, by the seats that have not.
* **claim victory**: a human seat may claim against an ``away`` seat (its clock ran out
  :data:`AWAY_AFTER` times in a row and its player has not come back): the away seat
  resigns as if its player had (:func:`resign`), so with one player left the claimer
  wins. A seat that came back (``back``) is present again and cannot be claimed against.

Every move is made by an *actor*: :data:`PLAYER` (the seat's own player) or
:data:`SERVICE` (a bot, the stand-in, or the turn clock). Which one may move a seat
now is decided here, once (:func:`check_turn`, called by ``apply``): a player acts only
for a ``human`` seat whose turn has not timed out; the service only for the others. So
who made each move follows from the state and the moves before it, a record that says
it can be replayed exactly, and a late move of a player cannot slip in between the
moves the stand-in makes for it.

Each change here is a version with a public event, like every move. The engine never
reads the clock: the service layer decides that a turn timed out and applies
:func:`time_out`.
"""

from __future__ import annotations

from service.core.errors import (
    IllegalActionError,
    InvalidActionError,
    SeatAwayError,
    SeatResignedError,
    TurnTimedOutError,
)

from .events import Event, EventLog
from .rounds import finish
from .state import ABORTED, AWAY, BOT, HUMAN, OTHERS_RESIGNED, RESIGNED, GameState, updated

__all__ = [
    "ACTORS",
    "AWAY_AFTER",
    "PLAYER",
    "SERVICE",
    "STAND_IN",
    "abort",
    "acted",
    "actor_of",
    "ask_rematch",
    "bot_names",
    "check_turn",
    "claim_victory",
    "claimable",
    "come_back",
    "humans",
    "may_abort",
    "played",
    "played_by_service",
    "player_of",
    "rematch_seats",
    "rematch_started",
    "resign",
    "seat_kind",
    "time_out",
]

#: The actors of a move: the seat's own player, or the service (a bot, the stand-in,
#: the turn clock).
PLAYER = "player"
SERVICE = "service"
ACTORS = (PLAYER, SERVICE)

#: The bot that plays an away or resigned seat, and a timed-out turn.
STAND_IN = "greedy"
#: Turns timed out in a row that make a human seat ``away``.
AWAY_AFTER = 2


def seat_kind(state: GameState, seat: int) -> str:
    """The kind of ``seat`` (a state made before seat kinds existed has only humans)."""
    return state.seat_kinds[seat] if state.seat_kinds else HUMAN


def player_of(state: GameState, seat: int) -> str | None:
    """The reference bot that plays ``seat`` now, or ``None`` when its player does."""
    kind = seat_kind(state, seat)
    if kind == BOT:
        return state.bots[seat]
    return None if kind == HUMAN else STAND_IN


def played_by_service(state: GameState, seat: int) -> bool:
    """Whether the service makes ``seat``'s moves now: a bot, away or resigned seat, or a
    human seat whose current turn timed out."""
    return player_of(state, seat) is not None or (
        state.turn_timed_out and seat == state.current_seat)


def actor_of(state: GameState, seat: int) -> str:
    """Who makes ``seat``'s turn moves now (the ``by`` of :func:`.actions.apply`): the
    service when :func:`played_by_service`, else its player."""
    return SERVICE if played_by_service(state, seat) else PLAYER


def check_turn(state: GameState, seat: int, by: str) -> None:
    """Refuse a turn move (draw, discard, go out) of ``seat`` by ``by`` that is not that
    actor's to make now; the seat is on turn."""
    if by == SERVICE:
        if not played_by_service(state, seat):
            raise IllegalActionError(f"seat {seat} is played by its player now", seat=seat)
        return
    kind = seat_kind(state, seat)
    if kind == RESIGNED:
        raise SeatResignedError(f"seat {seat} has resigned: the service plays it", seat=seat)
    if kind == AWAY:
        raise SeatAwayError(f'seat {seat} is away: send {{"type": "back"}} first', seat=seat)
    if kind == BOT:
        raise IllegalActionError(f"seat {seat} is a bot's", seat=seat)
    if state.turn_timed_out:
        raise TurnTimedOutError(
            f"seat {seat}'s turn timed out: the stand-in plays the rest of it", seat=seat)


def humans(state: GameState) -> list[int]:
    """The seats that have a human player (human, away or resigned)."""
    return [s for s in range(state.players) if seat_kind(state, s) != BOT]


def rematch_seats(state: GameState) -> list[int]:
    """The seats whose players are asked about a rematch: the humans who did not resign
    (bots accept at once; a resigned seat comes back open)."""
    return [s for s in humans(state) if seat_kind(state, s) != RESIGNED]


def bot_names(bots: tuple[str | None, ...]) -> list[str | None]:
    """The name of each bot seat: the bot's own, numbered from the second of one kind
    (``strong``, ``strong 2``), so every seat of a table has a name of its own."""
    seen: dict[str, int] = {}
    names: list[str | None] = []
    for bot in bots:
        if bot is None:
            names.append(None)
            continue
        seen[bot] = seen.get(bot, 0) + 1
        names.append(bot if seen[bot] == 1 else f"{bot} {seen[bot]}")
    return names


def _kinds(state: GameState, seat: int, kind: str) -> tuple[str, ...]:
    kinds = [seat_kind(state, s) for s in range(state.players)]
    kinds[seat] = kind
    return tuple(kinds)


def _timeouts(state: GameState, seat: int, value: int) -> tuple[int, ...]:
    counts = list(state.timeouts or (0,) * state.players)
    counts[seat] = value
    return tuple(counts)


def _step(state: GameState, log: EventLog) -> tuple[GameState, list[Event]]:
    return updated(state, version=state.version + 1, event_seq=log.seq), log.events


def _players_own(state: GameState, seat: int, by: str, what: str) -> str:
    """The kind of ``seat``, which only its player may ``what`` (resign, come back, ask
    for a rematch)."""
    if by != PLAYER:
        raise IllegalActionError(f"only a seat's player can {what}", seat=seat)
    kind = seat_kind(state, seat)
    if kind == BOT:
        raise IllegalActionError(f"seat {seat} is a bot's: it cannot {what}", seat=seat)
    if kind == RESIGNED:
        raise SeatResignedError(f"seat {seat} has resigned", seat=seat)
    return kind


def resign(state: GameState, seat: int, by: str = PLAYER) -> tuple[GameState, list[Event]]:
    """``seat`` gives up (any time, on turn or not): the stand-in plays it to the end.
    When every other player has resigned already, the one left wins and the game ends
    at once (the round in play is not scored)."""
    if state.finished:
        raise IllegalActionError("the game is finished")
    _players_own(state, seat, by, "resign")
    log = EventLog(state.event_seq)
    log.add("seat_resigned", {"seat": seat, "played_by": STAND_IN})
    return _step(_resigned(state, seat, log), log)


def _resigned(state: GameState, seat: int, log: EventLog) -> GameState:
    """``seat`` is resigned from now on; with one seat left standing the game ends."""
    state = updated(state, seat_kinds=_kinds(state, seat, RESIGNED))
    standing = [s for s in range(state.players) if seat_kind(state, s) != RESIGNED]
    if len(standing) == 1:
        state = finish(state, OTHERS_RESIGNED, log)
    return state


def played(state: GameState, seat: int) -> GameState:
    """``seat``'s turn was played or timed out: it can no longer abort the game (no
    version: part of the move)."""
    if seat in state.played:
        return state
    return updated(state, played=tuple(sorted((*state.played, seat))))


def may_abort(state: GameState, seat: int) -> bool:
    """Whether ``seat``'s player may abort the game now: a human seat of a game in play
    whose first turn has not been played yet."""
    return (not state.finished and seat_kind(state, seat) == HUMAN
            and seat not in state.played)


def abort(state: GameState, seat: int, by: str = PLAYER) -> tuple[GameState, list[Event]]:
    """``seat``, which has not played yet, ends the game at once with no result
    (``aborted``: no winners, whatever the totals)."""
    if state.finished:
        raise IllegalActionError("the game is finished")
    _players_own(state, seat, by, "abort the game")
    if not may_abort(state, seat):
        raise IllegalActionError(
            f"seat {seat} has played already: a game is aborted only by a seat whose first "
            "turn has not been played (resign instead)", seat=seat)
    log = EventLog(state.event_seq)
    log.add("game_aborted", {"seat": seat})
    return _step(finish(state, ABORTED, log), log)


def claimable(state: GameState, seat: int) -> list[int]:
    """The seats ``seat``'s player may claim victory against now: every ``away`` seat,
    for a ``human`` seat of a game in play (an away claimer comes ``back`` first)."""
    if state.finished or seat_kind(state, seat) != HUMAN:
        return []
    return [s for s in range(state.players) if seat_kind(state, s) == AWAY]


def claim_victory(state: GameState, seat: int, against: int,
                  by: str = PLAYER) -> tuple[GameState, list[Event]]:
    """``seat`` claims the game against the away seat ``against``, which resigns: the
    stand-in plays it to the end and it ranks below every player who did not resign;
    with one player left, that player wins at once (``resigned``)."""
    if state.finished:
        raise IllegalActionError("the game is finished")
    if isinstance(against, bool) or not isinstance(against, int) or not (
            0 <= against < state.players):
        raise InvalidActionError(f"there is no seat {against!r} in this game", field="against")
    if _players_own(state, seat, by, "claim victory") == AWAY:
        raise SeatAwayError(f'seat {seat} is away: send {{"type": "back"}} first', seat=seat)
    if against not in claimable(state, seat):
        raise IllegalActionError(
            f"seat {against} is not away: victory is claimed only against a seat whose turn "
            f"clock ran out {AWAY_AFTER} times in a row and whose player has not come back",
            seat=against)
    log = EventLog(state.event_seq)
    log.add("victory_claimed", {"seat": seat, "against": against, "played_by": STAND_IN})
    return _step(_resigned(state, against, log), log)


def come_back(state: GameState, seat: int, by: str = PLAYER) -> tuple[GameState, list[Event]]:
    """The player of an away seat is back: it plays its own turns again (a turn that
    timed out is still finished by the stand-in)."""
    if state.finished:
        raise IllegalActionError("the game is finished")
    if _players_own(state, seat, by, "come back") != AWAY:
        raise IllegalActionError(f"seat {seat} is not away", seat=seat)
    log = EventLog(state.event_seq)
    log.add("seat_back", {"seat": seat})
    return _step(updated(state, seat_kinds=_kinds(state, seat, HUMAN),
                         timeouts=_timeouts(state, seat, 0)), log)


def acted(state: GameState, seat: int) -> GameState:
    """A player's own move: its run of timed-out turns is over (no version: part of the move)."""
    if state.timeouts and state.timeouts[seat]:
        return updated(state, timeouts=_timeouts(state, seat, 0))
    return state


def time_out(state: GameState, seat: int) -> tuple[GameState, list[Event]]:
    """``seat``'s turn timed out (the service's move): counted, and the stand-in plays
    the rest of the turn; the :data:`AWAY_AFTER`-th in a row makes the seat ``away``."""
    if state.finished or seat != state.current_seat:
        raise IllegalActionError(f"it is not seat {seat}'s turn", seat=seat)
    if seat_kind(state, seat) != HUMAN or state.turn_timed_out:
        raise IllegalActionError(f"seat {seat}'s turn is played by the service already",
                                 seat=seat)
    count = (state.timeouts[seat] if state.timeouts else 0) + 1
    away = count >= AWAY_AFTER
    log = EventLog(state.event_seq)
    log.add("turn_timed_out", {"seat": seat, "timeouts": count, "away": away,
                               "played_by": STAND_IN})
    kinds = _kinds(state, seat, AWAY) if away else state.seat_kinds
    return _step(updated(played(state, seat), seat_kinds=kinds,
                         timeouts=_timeouts(state, seat, count), turn_timed_out=True), log)


def ask_rematch(state: GameState, seat: int, by: str = PLAYER) -> tuple[GameState, list[Event]]:
    """After the end, ``seat`` asks for (or accepts) a rematch with the same players and
    rules (a player who resigned is not asked: the seat comes back open)."""
    if not state.finished:
        raise IllegalActionError("a rematch is for a finished game")
    _players_own(state, seat, by, "ask for a rematch")
    if seat in state.rematch_asked or state.rematch_game is not None:
        raise IllegalActionError(f"seat {seat} has already asked for this rematch", seat=seat)
    asked = tuple(sorted((*state.rematch_asked, seat)))
    log = EventLog(state.event_seq)
    waiting = [s for s in rematch_seats(state) if s not in asked]
    log.add("rematch_asked", {"seat": seat, "waiting_for": waiting})
    return _step(updated(state, rematch_asked=asked), log)


def rematch_started(state: GameState, game_id: str) -> tuple[GameState, list[Event]]:
    """Every player who did not resign accepted: the new game ``game_id`` is announced on
    this game's log."""
    if state.rematch_game is not None:
        raise IllegalActionError("this game's rematch has started already")
    log = EventLog(state.event_seq)
    log.add("rematch_started", {"game_id": game_id})
    return _step(updated(state, rematch_game=game_id), log)
