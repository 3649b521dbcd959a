"""Seat kinds (``service/engine/seats.py``): resigning, coming back, timed-out turns and
rematch asks are versions with public events, and refused where they do not apply."""

from __future__ import annotations

from dataclasses import replace

import pytest

from service.bots import GreedyBot
from service.core.errors import (
    IllegalActionError,
    InvalidRulesError,
    SeatAwayError,
    SeatResignedError,
    TurnTimedOutError,
)
from service.core.rules import resolve_rules
from service.engine import apply, from_dict, legal_actions, new_game, to_dict, view, winners
from service.engine.seats import (
    AWAY_AFTER,
    SERVICE,
    ask_rematch,
    humans,
    played_by_service,
    player_of,
    rematch_seats,
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


def _play_out(state):
    """Every move the service owes, made by it (the greedy stand-in), until a player is on
    turn or the game is over."""
    while not state.finished and played_by_service(state, state.current_seat):
        seat = state.current_seat
        state, _ = apply(state, seat, GreedyBot().choose(view(state, seat, SERVICE)), SERVICE)
    return state


def test_repeated_time_outs_make_a_seat_away_until_it_comes_back() -> None:
    state = game()
    seat = state.current_seat
    for n in range(1, AWAY_AFTER + 1):
        state, events = time_out(state, seat)
        assert events[0].public == {"seat": seat, "timeouts": n, "away": n == AWAY_AFTER,
                                    "played_by": "greedy"}
        assert state.turn_timed_out and played_by_service(state, seat)
        if n < AWAY_AFTER:  # the stand-in finishes the turn; the seat is on turn again later
            state = _play_out(state)
            while state.current_seat != seat:
                state = _play_out(apply(state, state.current_seat,
                                        GreedyBot().choose(view(state, state.current_seat)))[0])
    assert state.seat_kinds[seat] == "away" and player_of(state, seat) == "greedy"
    state, events = apply(state, seat, {"type": "back"})
    assert state.seat_kinds[seat] == "human" and state.timeouts[seat] == 0
    assert events[0].type == "seat_back"
    with pytest.raises(IllegalActionError):
        apply(state, seat, {"type": "back"})  # not away any more


def test_a_timed_out_turn_is_the_services_until_it_ends_and_the_players_move_then_is_refused() -> None:
    state = game(turn_seconds=5)
    seat = state.current_seat
    timed_out, _ = time_out(state, seat)
    assert legal_actions(timed_out, seat) == []  # nothing for the player
    assert legal_actions(timed_out, seat, SERVICE)  # the stand-in's moves
    with pytest.raises(TurnTimedOutError):
        apply(timed_out, seat, {"type": "draw", "source": "stock"})
    with pytest.raises(IllegalActionError):
        time_out(timed_out, seat)  # once per turn
    moved, events = apply(timed_out, seat, {"type": "draw", "source": "stock"}, SERVICE)
    assert events[0].public["by"] == "service" and moved.timeouts[seat] == 1
    with pytest.raises(IllegalActionError):  # the service does not play a player's turn
        apply(state, seat, {"type": "draw", "source": "stock"}, SERVICE)
    _, events = apply(state, seat, {"type": "draw", "source": "stock"})
    assert events[0].public["by"] == "player"


def test_a_players_own_move_ends_its_run_of_time_outs_and_a_service_move_does_not() -> None:
    state = game(turn_seconds=5)
    seat = state.current_seat
    state = _play_out(time_out(state, seat)[0])
    while state.current_seat != seat:
        other = state.current_seat
        state = _play_out(apply(state, other, GreedyBot().choose(view(state, other)))[0])
    assert state.timeouts[seat] == 1
    state, _ = apply(state, seat, {"type": "draw", "source": "stock"})
    assert state.timeouts[seat] == 0


def test_a_resigned_seats_player_can_no_longer_act_and_the_service_plays_it() -> None:
    state = game()
    seat = state.current_seat
    resigned, _ = apply(state, seat, {"type": "resign"})
    with pytest.raises(SeatResignedError):
        apply(resigned, seat, {"type": "draw", "source": "stock"})
    with pytest.raises(SeatResignedError):
        apply(resigned, seat, {"type": "resign"})
    with pytest.raises(SeatResignedError):
        apply(resigned, seat, {"type": "back"})
    assert legal_actions(resigned, seat) == [] and legal_actions(resigned, seat, SERVICE)
    _, events = apply(resigned, seat, {"type": "draw", "source": "stock"}, SERVICE)
    assert events[0].public["by"] == "service"


def test_an_away_seats_player_must_come_back_before_it_acts_again() -> None:
    state = game()
    seat = state.current_seat
    for _ in range(AWAY_AFTER):
        state = time_out(state, seat)[0]
        if state.seat_kinds[seat] != "away":
            state = _play_out(state)
            while state.current_seat != seat:
                other = state.current_seat
                state = _play_out(apply(state, other, GreedyBot().choose(view(state, other)))[0])
    assert state.seat_kinds[seat] == "away"
    with pytest.raises(SeatAwayError):
        apply(state, seat, {"type": "draw", "source": "stock"})
    back, _ = apply(state, seat, {"type": "back"})
    assert back.seat_kinds[seat] == "human"


def test_a_resigned_player_never_wins_while_anyone_has_not_resigned() -> None:
    state = new_game(RULES, ["ann", "bob", "cat"], "rank")
    state, _ = apply(state, 0, {"type": "resign"})
    state = _play_out(state)
    while not state.finished:
        seat = state.current_seat
        state = _play_out(apply(state, seat, GreedyBot().choose(view(state, seat)))[0])
    assert state.finish_reason == "completed" and 0 not in winners(state)
    # ann, resigned, with the lowest total: still below everyone who did not resign
    ranked = replace(state, scores=((0,), (10,), (10,)))
    assert winners(ranked) == (1, 2)
    assert winners(replace(ranked, seat_kinds=("human", "human", "human"))) == (0,)


def test_when_all_but_one_have_resigned_the_game_ends_at_once_with_the_one_left_the_winner() -> None:
    state = new_game(resolve_rules({"hand_sizes": [3, 4, 5]}), ["ann", "bob", "cat"], "last")
    totals_before = state.totals()
    state, _ = apply(state, 2, {"type": "resign"})
    assert not state.finished
    state, events = apply(state, 0, {"type": "resign"})
    assert state.finished and state.finish_reason == "resigned"
    assert winners(state) == (1,) and state.totals() == totals_before
    assert [e.type for e in events] == ["seat_resigned", "game_finished"]
    assert events[-1].public["reason"] == "resigned" and events[-1].public["winners"] == [1]


def test_a_game_with_a_bot_ends_when_its_only_human_resigns_and_the_bot_wins() -> None:
    state = new_game(RULES, ["ann", None], "bot", bots=[None, "greedy"])
    state, _ = apply(state, 0, {"type": "resign"})
    assert state.finished and winners(state) == (1,)


def test_a_rematch_is_asked_by_the_players_who_did_not_resign_once_each_and_started_once() -> None:
    state = new_game(RULES, ["ann", "greedy", "bob", "cat"], "seats",
                     bots=[None, "greedy", None, None])
    with pytest.raises(IllegalActionError):
        ask_rematch(state, 0)
    state, _ = apply(state, 0, {"type": "resign"})
    state = _play_out(state)
    while not state.finished:
        seat = state.current_seat
        state = _play_out(apply(state, seat, GreedyBot().choose(view(state, seat)))[0])
    assert rematch_seats(state) == [2, 3]
    with pytest.raises(SeatResignedError):
        ask_rematch(state, 0)  # a resigned player is not asked: its seat comes back open
    state, events = ask_rematch(state, 2)
    assert events[0].public == {"seat": 2, "waiting_for": [3]}
    for seat in (2, 1):
        with pytest.raises(IllegalActionError):
            ask_rematch(state, seat)  # twice, or a bot (bots accept at once)
    state, _ = ask_rematch(state, 3)
    state, events = rematch_started(state, "g2")
    assert state.rematch_game == "g2" and events[0].public == {"game_id": "g2"}
    with pytest.raises(IllegalActionError):
        rematch_started(state, "g3")


def test_two_bots_of_one_kind_get_names_of_their_own() -> None:
    state = new_game(RULES, ["ann", "x", "y", "z"], "names",
                     bots=[None, "strong", "greedy", "strong"])
    assert state.names == ("ann", "strong", "greedy", "strong 2")


def test_a_game_the_service_plays_a_seat_or_a_clock_of_needs_a_turn_limit() -> None:
    unlimited = resolve_rules({"turn_limit": None})
    new_game(unlimited, ["ann", "bob"], "humans")  # humans without a clock: allowed
    with pytest.raises(InvalidRulesError):
        new_game(unlimited, ["ann", None], "bot", bots=[None, "greedy"])
    with pytest.raises(InvalidRulesError):
        new_game(unlimited, ["ann", "bob"], "clock", turn_seconds=30)


def test_a_deal_that_would_leave_no_stock_is_refused_and_one_card_of_stock_is_enough() -> None:
    with pytest.raises(InvalidRulesError):  # 8 × 13 + 1 = 105 = 2 decks + 1 joker
        new_game(resolve_rules({"decks": 2, "jokers": 1}), [f"p{i}" for i in range(8)], "x")
    rules = resolve_rules({"decks": 2, "jokers": 2, "hand_sizes": [13]})
    state = new_game(rules, [f"p{i}" for i in range(8)], "x")
    assert len(state.stock) == 1  # 106 cards: 104 dealt, one turned up, one to draw
