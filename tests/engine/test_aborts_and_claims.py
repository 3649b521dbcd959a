"""Leaving a game that barely began (``service/engine/seats.py``): ``abort`` before a
seat's first turn ends the game with no result; ``claim_victory`` against a seat whose
clock ran out twice in a row makes it resign, which ends a two-player game at once."""

from __future__ import annotations

import pytest

from service.bots import GreedyBot
from service.core.errors import (
    IllegalActionError,
    InvalidActionError,
    SeatAwayError,
    SeatResignedError,
)
from service.core.rules import resolve_rules
from service.engine import apply, from_dict, legal_actions, new_game, to_dict, view, winners
from service.engine.seats import AWAY_AFTER, SERVICE, played_by_service, time_out
from service.engine.state import GameState

RULES = resolve_rules({"preset": "classic", "hand_sizes": [3, 4]})


def _play_out(state: GameState) -> GameState:
    """The moves the service owes (the stand-in's), until a player is to move."""
    while not state.finished and played_by_service(state, state.current_seat):
        seat = state.current_seat
        state, _ = apply(state, seat, GreedyBot().choose(view(state, seat, SERVICE)), SERVICE)
    return state


def _turn(state: GameState) -> GameState:
    """The player on turn plays a whole turn (greedy), then the service what it owes."""
    seat = state.current_seat
    while not state.finished and state.current_seat == seat:
        state, _ = apply(state, seat, GreedyBot().choose(view(state, seat)))
    return _play_out(state)


def _away(state: GameState, seat: int) -> GameState:
    """``seat``'s clock runs out on each of its turns until it is away; the others play."""
    for _ in range(AWAY_AFTER):
        while state.current_seat != seat:
            state = _turn(state)
        state = _play_out(time_out(state, seat)[0])
    assert state.seat_kinds[seat] == "away"
    return state


def test_a_seat_that_has_not_played_aborts_the_game_with_no_result() -> None:
    state = new_game(RULES, ["ann", "bob"], "abort")
    first = state.current_seat
    other = 1 - first
    assert view(state, first)["you"]["can_abort"] and view(state, other)["you"]["can_abort"]
    state, _ = apply(state, first, {"type": "draw", "source": "stock"})
    assert not view(state, first)["you"]["can_abort"], "it has played"
    with pytest.raises(IllegalActionError):
        apply(state, first, {"type": "abort"})
    aborted, events = apply(state, other, {"type": "abort"})
    assert [e.type for e in events] == ["game_aborted", "game_finished"]
    assert events[0].public == {"seat": other}
    assert events[1].public["reason"] == "aborted" and events[1].public["winners"] == []
    assert aborted.finished and aborted.finish_reason == "aborted"
    assert winners(aborted) == () and aborted.scores == ((), ())  # the round is not scored
    shown = view(aborted, None)
    assert shown["status"] == "finished" and shown["winners"] == []
    assert shown["seed"] == aborted.seed, "the deal is revealed as for any finished game"
    assert aborted.version == state.version + 1
    assert from_dict(to_dict(aborted)) == aborted
    with pytest.raises(IllegalActionError):
        apply(aborted, first, {"type": "abort"})


def test_once_every_seat_has_played_nobody_can_abort_and_a_timed_out_turn_counts_as_played(
) -> None:
    state = new_game(RULES, ["ann", "bob", "cat"], "played")
    late = (state.current_seat + 2) % 3
    state = _turn(state)
    state = _play_out(time_out(state, state.current_seat)[0])  # the second seat's clock ran out
    assert [view(state, s)["you"]["can_abort"] for s in range(3)] == [
        s == late for s in range(3)]
    state = _turn(state)
    assert not any(view(state, s)["you"]["can_abort"] for s in range(3))
    for seat in range(3):
        with pytest.raises(IllegalActionError):
            apply(state, seat, {"type": "abort"})


def test_a_bot_seat_never_aborts_and_abort_is_never_listed() -> None:
    state = new_game(RULES, ["ann", None], "bots", bots=[None, "greedy"])
    assert not view(state, 1)["you"]["can_abort"]
    with pytest.raises(IllegalActionError):
        apply(state, 1, {"type": "abort"})
    with pytest.raises(IllegalActionError):
        apply(state, 0, {"type": "abort"}, SERVICE)  # a player's decision, never the service's
    assert all(a["type"] != "abort" for s in range(2) for a in legal_actions(state, s))


def test_after_two_time_outs_in_a_row_the_opponent_claims_the_game_which_ends_at_once() -> None:
    state = new_game(RULES, ["ann", "bob"], "claim")
    absent = state.current_seat
    claimer = 1 - absent
    state = _away(state, absent)
    while state.current_seat != claimer:
        state = _play_out(state)
    legal = legal_actions(state, claimer)
    assert legal[-1] == {"type": "claim_victory", "against": absent}
    assert legal[0]["type"] == "draw", "the turn's moves come first"
    claimed, events = apply(state, claimer, {"type": "claim_victory", "against": absent})
    assert [e.type for e in events] == ["victory_claimed", "game_finished"]
    assert events[0].public == {"seat": claimer, "against": absent, "played_by": "greedy"}
    assert claimed.finished and claimed.finish_reason == "resigned"
    assert claimed.seat_kinds[absent] == "resigned" and winners(claimed) == (claimer,)
    assert events[1].public["winners"] == [claimer]
    assert len(claimed.scores[0]) == state.round_index, "the round in play is not scored"
    assert claimed.totals() == state.totals(), "the totals stand as they are"


def test_a_claim_in_a_larger_game_resigns_the_absent_seat_and_the_others_play_on() -> None:
    state = new_game(RULES, ["ann", "bob", "cat"], "three")
    absent = state.current_seat
    claimer = (absent + 1) % 3
    state = _away(state, absent)
    while state.current_seat == claimer:
        state = _turn(state)
    assert legal_actions(state, claimer) == [], "off the claimer's turn: not listed"
    claimed, _ = apply(state, claimer, {"type": "claim_victory", "against": absent})
    assert not claimed.finished and claimed.seat_kinds[absent] == "resigned"
    assert played_by_service(claimed, absent), "the stand-in plays it to the end"
    while not claimed.finished:
        claimed = _turn(claimed) if not played_by_service(
            claimed, claimed.current_seat) else _play_out(claimed)
    assert claimed.finish_reason == "completed" and absent not in winners(claimed)


def test_a_claim_is_refused_against_a_present_seat_an_unknown_one_or_by_the_absent_player(
) -> None:
    state = new_game(RULES, ["ann", "bob"], "refused")
    absent = state.current_seat
    claimer = 1 - absent
    once = _play_out(time_out(state, absent)[0])  # one time-out: not away yet
    with pytest.raises(IllegalActionError):
        apply(once, claimer, {"type": "claim_victory", "against": absent})
    with pytest.raises(InvalidActionError):
        apply(once, claimer, {"type": "claim_victory", "against": 7})
    with pytest.raises(InvalidActionError):
        apply(once, claimer, {"type": "claim_victory", "against": "1"})
    away = _away(state, absent)
    with pytest.raises(IllegalActionError):
        apply(away, claimer, {"type": "claim_victory", "against": claimer})
    with pytest.raises(SeatAwayError):  # the absent player must come back first
        apply(away, absent, {"type": "claim_victory", "against": claimer})
    back, _ = apply(away, absent, {"type": "back"})
    with pytest.raises(IllegalActionError):  # present again
        apply(back, claimer, {"type": "claim_victory", "against": absent})
    resigned, _ = apply(new_game(RULES, ["a", "b", "c"], "r"), 0, {"type": "resign"})
    with pytest.raises(SeatResignedError):
        apply(resigned, 0, {"type": "claim_victory", "against": 1})
