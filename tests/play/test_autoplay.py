"""The moves the service makes itself (``service/play/autoplay.py``), on the in-memory stores:
bot seats, stand-ins for resigned and timed-out seats, turn clocks, rematches."""

from __future__ import annotations

import inspect
import random
from dataclasses import replace

import orjson
import pytest

from service.bots import BOTS
from service.core.errors import SeatResignedError
from service.core.rules import resolve_rules
from service.engine import apply, new_game, view
from service.engine.seats import AWAY_AFTER
from service.play import act, ask_for_rematch, create_game, decide, play_due
from service.play.autoplay import due, with_clock
from service.storage import Stores

from .conftest import play_out

SHORT = {"preset": "classic", "hand_sizes": [3, 5]}


def test_a_bot_decision_is_made_from_plain_view_data_alone() -> None:
    # the whole input of a decision: the bot's name, its RNG seed, the seat's view and
    # the seat's events, as JSON data; nothing that could lead back to the state
    assert list(inspect.signature(decide).parameters) == [
        "bot", "rng_seed", "seat_view", "seat_events"]
    state = new_game(resolve_rules(SHORT), ["a", "b", "c"], "plain")
    seat_view = view(state, state.current_seat)
    assert orjson.loads(orjson.dumps(seat_view)) == seat_view  # plain JSON, no objects
    for bot in BOTS:
        assert decide(bot, "s", seat_view, []) in seat_view["legal_actions"]


@pytest.mark.parametrize("bot", sorted(BOTS))
def test_a_bot_decides_the_same_whatever_the_other_hands_and_the_stock_hold(bot: str) -> None:
    # two games that look the same from the bot's seat, with every hidden card moved
    # around: the bot cannot tell them apart, so it cannot be reading them
    rng = random.Random(bot)
    state = new_game(resolve_rules(SHORT), ["a", "b", "c"], "hidden")
    for _ in range(30):
        seat = state.current_seat
        assert seat is not None
        mine = state.hands[seat]
        hidden = [c for s, h in enumerate(state.hands) if s != seat for c in h] + list(
            state.stock)
        rng.shuffle(hidden)
        hands, i = [], 0
        for s, h in enumerate(state.hands):
            if s == seat:
                hands.append(mine)
            else:
                hands.append(tuple(sorted(hidden[i:i + len(h)])))
                i += len(h)
        other = replace(state, hands=tuple(hands), stock=tuple(hidden[i:]))
        assert view(other, seat) == view(state, seat)
        assert other.hands != state.hands or other.stock != state.stock
        action = decide(bot, "seed", view(state, seat), [])
        assert decide(bot, "seed", view(other, seat), []) == action
        state, _ = apply(state, seat, action)
        if state.finished:
            break


def test_a_game_of_bot_seats_plays_to_its_end_by_itself_and_again_the_same_way(
    stores: Stores,
) -> None:
    logs = []
    for _ in range(2):
        record, tokens = create_game(stores, SHORT, [None] * 3, "bots-only",
                                     bots=["greedy", "strong", "random"])
        assert tokens == [None, None, None] and record.open_seats == []
        assert play_due(stores, record.game_id) == stores.games.load(record.game_id).state.version
        assert stores.games.load(record.game_id).state.finished
        events = stores.games.events(record.game_id, 0, 10_000)
        logs.append([(e.type, {k: v for k, v in e.public.items() if k != "seed_salt"})
                     for e in events])  # the salt is fresh per game
    assert logs[0] == logs[1]  # the bots' RNGs come from the seed: the same game twice


def test_a_bot_seat_moves_as_soon_as_a_human_hands_it_the_turn(stores: Stores) -> None:
    record, tokens = create_game(stores, SHORT, ["ann", None], "hand-over", bots=[None, "greedy"])
    game_id = record.game_id
    rng = random.Random(1)
    while not (state := stores.games.load(game_id).state).finished:
        assert state.current_seat == 0 or due(state, [], 0)
        if state.current_seat == 1:
            play_due(stores, game_id)
            continue
        legal = view(state, 0)["legal_actions"]
        act(stores, game_id, tokens[0], rng.choice(legal))
    kinds = {e.type for e in stores.games.events(game_id, 0, 10_000)}
    assert "game_finished" in kinds


def test_a_resigned_seat_is_played_by_the_stand_in_and_the_last_player_standing_wins(
    stores: Stores,
) -> None:
    record, tokens = create_game(stores, SHORT, ["ann", "bob", "cat"], "resign")
    act(stores, record.game_id, tokens[1], {"type": "resign"})  # not on turn: any time
    state = stores.games.load(record.game_id).state
    assert not state.finished and state.seat_kinds[1] == "resigned"
    act(stores, record.game_id, tokens[0], {"type": "resign"})
    state = stores.games.load(record.game_id).state
    assert state.finished and state.finish_reason == "resigned"
    assert state.seat_kinds == ("resigned", "resigned", "human")
    assert view(state, None)["winners"] == [2]


def test_a_turn_past_its_deadline_is_timed_out_then_played_and_repeats_make_the_seat_away(
    stores: Stores,
) -> None:
    now = [1000.0]
    record, tokens = create_game(stores, SHORT, ["ann", "bob"], "clock", turn_seconds=5,
                                 now=now[0])
    game_id = record.game_id
    state = stores.games.load(game_id).state
    assert state.turn_deadline == 1005.0
    assert play_due(stores, game_id, clock=lambda: now[0]) == 0  # in time: nothing owed
    # nobody ever acts: each turn times out at its deadline; the seat whose turns time
    # out AWAY_AFTER times in a row is away, and from then on played without waiting
    timed_out = 0
    while "away" not in state.seat_kinds:
        seat = state.current_seat
        before = state.version
        now[0] = (state.turn_deadline or now[0]) + 0.5
        play_due(stores, game_id, clock=lambda: now[0])
        events = stores.games.events(game_id, 0, 10_000)
        out = [e for e in events if e.type == "turn_timed_out"]
        assert len(out) == timed_out + 1 and out[-1].public["seat"] == seat
        timed_out += 1
        state = stores.games.load(game_id).state
        assert state.version > before + 1  # the time-out, then the stand-in's moves
    away = state.seat_kinds.index("away")
    assert state.timeouts[away] == AWAY_AFTER
    act(stores, game_id, tokens[away], {"type": "back"})
    assert stores.games.load(game_id).state.seat_kinds[away] == "human"


def test_the_clock_starts_a_fresh_deadline_only_when_a_turn_begins() -> None:
    state = new_game(resolve_rules(SHORT), ["a", "b"], "c", turn_seconds=10)
    started = with_clock(None, state, 50.0, started=True)
    assert started.turn_deadline == 60.0
    drawn, _ = apply(started, started.current_seat, {"type": "draw", "source": "stock"})
    assert with_clock(started, drawn, 55.0).turn_deadline == 60.0  # same turn, same deadline


def test_a_rematch_starts_when_every_player_who_did_not_resign_has_asked(
    stores: Stores,
) -> None:
    record, tokens = create_game(stores, SHORT, ["ann", "bob", None], "rematch",
                                 bots=[None, None, "greedy"])
    act(stores, record.game_id, tokens[1], {"type": "resign"})
    play_out(stores, record.game_id, {0: tokens[0]})
    with pytest.raises(SeatResignedError):
        ask_for_rematch(stores, record.game_id, tokens[1])  # bob resigned: not asked
    done = ask_for_rematch(stores, record.game_id, tokens[0]).state
    assert done.rematch_game is not None  # ann was the only one to ask
    events = stores.games.events(record.game_id, 0, 10_000)
    assert events[-1].type == "rematch_started"
    assert events[-1].public == {"game_id": done.rematch_game}
    again = stores.games.load(done.rematch_game)
    assert again.state.names == ("ann", None, "greedy") and again.state.version == 0
    assert again.state.seat_kinds == ("human", "human", "bot")
    # ann's token plays her seat there; bob's seat is open for anyone to claim
    assert again.token_hashes == (record.token_hashes[0], None, record.token_hashes[2])
