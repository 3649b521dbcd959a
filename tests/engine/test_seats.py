"""Seat kinds (``service/engine/seats.py``): resigning, coming back, timed-out turns and
rematch asks are versions with public events, and refused where they do not apply."""

from __future__ import annotations

import pytest

from service.bots import GreedyBot
from service.core.errors import IllegalActionError, InvalidRulesError
from service.core.rules import resolve_rules
from service.engine import apply, from_dict, new_game, to_dict, view
from service.engine.seats import (
    AWAY_AFTER,
    ask_rematch,
    humans,
    player_of,
    rematch_started,
    time_out,
)

RULES = resolve_rules({"preset": "classic", "hand_sizes": [3]})


def game(**kw):
    return new_game(RULES, ["ann", "greedy", "bob"], "seats", bots=[None, "greedy", None], **kw)


def test_a_new_game_knows_its_bot_seats_and_its_clock_and_stores_them_exactly() -> None:
    state = game(turn_seconds=30)
    assert state.seat_kinds == ("human", "bot", "human") and state.turn_seconds == 30
    assert [player_of(state, s) for s in range(3)] == [None, "greedy", None]
    assert humans(state) == [0, 2]
    assert from_dict(to_dict(state)) == state
    shown = view(state, None)
    assert [p["kind"] for p in shown["players"]] == ["human", "bot", "human"]
    assert shown["clock"] == {"turn_seconds": 30, "deadline": None}


def test_a_stored_game_from_before_seat_kinds_reads_as_all_humans_without_a_clock() -> None:
    data = to_dict(new_game(RULES, ["a", "b"], "old"))
    for key in ("kinds", "bots", "clock", "deadline", "timeouts", "rematch"):
        del data[key]
    state = from_dict(data)
    assert [player_of(state, s) for s in (0, 1)] == [None, None] and state.turn_seconds is None
    assert view(state, 0)["players"][1]["kind"] == "human"


def test_a_clock_of_less_than_a_second_is_refused() -> None:
    with pytest.raises(InvalidRulesError):
        game(turn_seconds=0)


def test_resigning_is_a_version_any_time_and_refused_twice_or_for_a_bot() -> None:
    state = game()
    off_turn = next(s for s in (0, 2) if s != state.current_seat)
    after, events = apply(state, off_turn, {"type": "resign"})
    assert after.version == state.version + 1 and after.seat_kinds[off_turn] == "resigned"
    assert [e.for_seat(None) for e in events] == [
        {"seq": state.event_seq + 1, "type": "seat_resigned", "seat": off_turn,
         "played_by": "greedy"}]
    assert player_of(after, off_turn) == "greedy"
    for seat in (off_turn, 1):
        with pytest.raises(IllegalActionError):
            apply(after, seat, {"type": "resign"})


def test_repeated_time_outs_make_a_seat_away_until_it_comes_back() -> None:
    state = game()
    seat = state.current_seat
    for n in range(1, AWAY_AFTER + 1):
        state, events = time_out(state, seat)
        assert events[0].public == {"seat": seat, "timeouts": n, "away": n == AWAY_AFTER,
                                    "played_by": "greedy"}
    assert state.seat_kinds[seat] == "away" and player_of(state, seat) == "greedy"
    state, events = apply(state, seat, {"type": "back"})
    assert state.seat_kinds[seat] == "human" and state.timeouts[seat] == 0
    assert events[0].type == "seat_back"
    with pytest.raises(IllegalActionError):
        apply(state, seat, {"type": "back"})  # not away any more


def test_a_rematch_is_asked_only_after_the_end_once_per_human_and_started_once() -> None:
    state = game()
    with pytest.raises(IllegalActionError):
        ask_rematch(state, 0)
    for seat in (0, 2):
        state, _ = apply(state, seat, {"type": "resign"})
    while not state.finished:  # every seat a bot's or the stand-in's now: play it out
        seat = state.current_seat
        state, _ = apply(state, seat, GreedyBot().choose(view(state, seat)))
    state, events = ask_rematch(state, 2)
    assert events[0].public == {"seat": 2, "waiting_for": [0]}
    for seat in (2, 1):
        with pytest.raises(IllegalActionError):
            ask_rematch(state, seat)  # twice, or a bot (bots accept at once)
    state, _ = ask_rematch(state, 0)
    state, events = rematch_started(state, "g2")
    assert state.rematch_game == "g2" and events[0].public == {"game_id": "g2"}
    with pytest.raises(IllegalActionError):
        rematch_started(state, "g3")
