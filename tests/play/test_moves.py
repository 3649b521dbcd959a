"""The moves the service makes itself (``service/play/moves.py``), as a move worker makes
them from the schedule, on the in-memory stores and a clock the tests move: bot seats,
stand-ins for resigned and timed-out seats, turn clocks, rematches, leases."""

from __future__ import annotations

import inspect
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import orjson
import pytest

from service.bots import BOTS, RandomBot, decide, decision_seed
from service.core.errors import SeatResignedError, TurnTimedOutError
from service.core.rules import resolve_rules
from service.engine import apply, new_game, view
from service.engine.seats import AWAY_AFTER
from service.play import (
    LEASE_SECONDS,
    act,
    ask_for_rematch,
    create_game,
    game_record,
    view_at,
    visit,
)
from service.play.commit import with_clock
from service.play.credentials import hash_token
from service.play.moves import due
from service.play.visits import next_visit
from service.storage import Stores, memory_stores
from service.storage.memory import MemoryGameStore
from service.verify import verify
from service.verify.replay import replay_steps

from .conftest import drain, play_out, with_games

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
        assert drain(stores) == stores.games.load(record.game_id).state.version
        assert stores.games.load(record.game_id).state.finished
        kept = game_record(stores, record.game_id).body
        assert verify(kept) == []  # every bot move is that bot's, from what its seat saw
        logs.append([a for a in kept["actions"]])
    # the bots' randomness comes from the seed *and* the fresh secret salt: one seed
    # does not make one game, so a guessable seed cannot be found from the bots' play
    assert logs[0] != logs[1]


def test_a_bot_seat_moves_as_soon_as_a_human_hands_it_the_turn(stores: Stores) -> None:
    record, tokens = create_game(stores, SHORT, ["ann", None], "hand-over", bots=[None, "greedy"])
    game_id = record.game_id
    rng = random.Random(1)
    while not (loaded := stores.games.load(game_id)).state.finished:
        state = loaded.state
        assert state.current_seat == 0 or due(loaded, 0)
        if state.current_seat == 1:
            assert drain(stores) >= 1
            continue
        legal = view(state, 0)["legal_actions"]
        act(stores, game_id, hash_token(tokens[0]), rng.choice(legal))
    kinds = {e.type for e in stores.games.events(game_id, 0, 10_000)}
    assert "game_finished" in kinds


def test_a_resigned_seat_is_played_by_the_stand_in_and_the_last_player_standing_wins(
    stores: Stores,
) -> None:
    record, tokens = create_game(stores, SHORT, ["ann", "bob", "cat"], "resign")
    act(stores, record.game_id, hash_token(tokens[1]), {"type": "resign"})  # not on turn: any time
    state = stores.games.load(record.game_id).state
    assert not state.finished and state.seat_kinds[1] == "resigned"
    act(stores, record.game_id, hash_token(tokens[0]), {"type": "resign"})
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
    assert drain(stores, clock=lambda: now[0]) == 0  # in time: nothing owed
    # nobody ever acts: each turn times out at its deadline; the seat whose turns time
    # out AWAY_AFTER times in a row is away, and from then on played without waiting
    timed_out = 0
    while "away" not in state.seat_kinds:
        seat = state.current_seat
        before = state.version
        now[0] = (state.turn_deadline or now[0]) + 0.5
        drain(stores, clock=lambda: now[0])
        events = stores.games.events(game_id, 0, 10_000)
        out = [e for e in events if e.type == "turn_timed_out"]
        assert len(out) == timed_out + 1 and out[-1].public["seat"] == seat
        timed_out += 1
        state = stores.games.load(game_id).state
        assert state.version > before + 1  # the time-out, then the stand-in's moves
    away = state.seat_kinds.index("away")
    assert state.timeouts[away] == AWAY_AFTER
    act(stores, game_id, hash_token(tokens[away]), {"type": "back"})
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
    act(stores, record.game_id, hash_token(tokens[1]), {"type": "resign"})
    play_out(stores, record.game_id, {0: tokens[0]})
    with pytest.raises(SeatResignedError):
        ask_for_rematch(stores, record.game_id, hash_token(tokens[1]))  # bob resigned: not asked
    done = ask_for_rematch(stores, record.game_id, hash_token(tokens[0])).state
    assert done.rematch_game is not None  # ann was the only one to ask
    events = stores.games.events(record.game_id, 0, 10_000)
    assert events[-1].type == "rematch_started"
    assert events[-1].public == {"game_id": done.rematch_game}
    again = stores.games.load(done.rematch_game)
    assert again.state.names == ("ann", None, "greedy") and again.state.version == 0
    assert again.state.seat_kinds == ("human", "human", "bot")
    # ann's token plays her seat there; bob's seat is open for anyone to claim
    assert again.token_hashes == (record.token_hashes[0], None, record.token_hashes[2])


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_clocked_game_nobody_plays_is_played_at_each_deadline_to_its_end() -> None:
    stores, clock = memory_stores(), Clock(1000.0)
    record, _ = create_game(stores, SHORT, ["ann", "bob"], "nobody", turn_seconds=60,
                            now=clock.now)
    assert stores.schedule.take(clock.now + 59, 0) is None  # not before the first deadline
    while not stores.games.load(record.game_id).state.finished:
        clock.now += 61
        drain(stores, clock)
    assert stores.schedule.visits_due(10**12) == (0, None)  # off the schedule once over


def test_only_the_turns_whose_clock_ran_out_are_played_for_a_seat() -> None:
    stores, clock = memory_stores(), Clock(1000.0)
    record, tokens = create_game(stores, SHORT, ["ann", "bob"], "own", turn_seconds=60,
                                 now=clock.now)
    seat = stores.games.load(record.game_id).state.current_seat
    assert drain(stores, clock) == 0  # nothing due yet
    act(stores, record.game_id, hash_token(tokens[seat]), {"type": "draw", "source": "stock"})
    clock.now += 61
    assert drain(stores, clock) >= 2  # the time-out, then the stand-in's discard
    events = stores.games.events(record.game_id, 0, 10_000)
    assert [e.public["by"] for e in events if e.type in ("draw", "discard")] == [
        "player", "service"]


def test_a_game_waiting_for_a_player_without_a_clock_is_never_scheduled() -> None:
    stores = memory_stores()
    create_game(stores, SHORT, ["ann", "bob"], "humans")
    create_game(stores, SHORT, ["ann", None], "open", bots=[None, None])
    assert stores.schedule.visits_due(10**12) == (0, None)


def test_a_game_of_a_player_and_a_bot_leaves_the_schedule_once_the_player_is_on_turn() -> None:
    stores = memory_stores()
    record, _ = create_game(stores, SHORT, [None, "ann"], "bot-first", bots=["greedy", None])
    if stores.games.load(record.game_id).state.current_seat == 0:
        assert drain(stores) == 2  # the bot's draw and discard
    assert stores.games.load(record.game_id).state.current_seat == 1
    assert stores.schedule.visits_due(10**12) == (0, None)


def test_a_visit_makes_one_move_and_puts_the_game_behind_those_due_before_it() -> None:
    """Fair sharing: each visit is one move, and a game that still owes one is due again
    at that moment, behind every game that was due earlier."""
    stores, clock = memory_stores(), Clock(1000.0)
    games = [create_game(stores, SHORT, [None, None], f"fair{n}", bots=["greedy", "random"],
                         now=clock.now)[0].game_id for n in range(3)]
    order = []
    for _ in range(9):
        clock.now += 0.001
        lease = stores.schedule.take(clock.now, LEASE_SECONDS)
        assert lease is not None
        order.append(lease.key)
        assert visit(stores, lease, clock) is not None
    # round robin, one move each (games due at the same moment go in id order)
    assert sorted(order[:3]) == sorted(games) and order == order[:3] * 3


def test_a_game_taken_by_a_worker_that_died_is_taken_again_when_its_lease_ends() -> None:
    stores, clock = memory_stores(), Clock(1000.0)
    record, _ = create_game(stores, SHORT, [None, None], "died", bots=["greedy", "random"],
                            now=clock.now)
    lease = stores.schedule.take(clock.now, LEASE_SECONDS)  # ... and the worker dies
    assert lease is not None and stores.schedule.take(clock.now, LEASE_SECONDS) is None
    clock.now += LEASE_SECONDS - 1
    assert drain(stores, clock) == 0
    clock.now += 1
    assert drain(stores, clock) > 0 and stores.games.load(record.game_id).state.finished


def test_a_move_made_due_while_a_worker_looks_is_not_lost_when_it_releases_the_game() -> None:
    """The worker read the game before a player's move made a bot's turn due: its release
    (planning no visit, from what it read) must not drop the plan the move made."""
    stores = memory_stores()
    record, tokens = create_game(stores, SHORT, ["ann", None], "race", bots=[None, "greedy"])
    drain(stores)  # the bot's turn first, if it was
    stale = stores.games.load(record.game_id)
    assert next_visit(stale, time.time()) is None  # ann's turn, no clock: no visit
    stores.schedule.plan(record.game_id, time.time())  # a spurious visit, taken below
    lease = stores.schedule.take(time.time(), LEASE_SECONDS)
    assert lease is not None
    act(stores, record.game_id, hash_token(tokens[0]), {"type": "draw", "source": "stock"})
    hand = view(stores.games.load(record.game_id).state, 0)["legal_actions"]
    act(stores, record.game_id, hash_token(tokens[0]), hand[0])  # the bot's turn now: planned
    assert not stores.schedule.release(lease, next_visit(stale, time.time()))  # refused
    assert drain(stores) >= 1  # the bot's move, planned by ann's discard


def test_a_game_that_expired_is_dropped_from_the_schedule() -> None:
    stores = memory_stores()
    stores.schedule.plan("gone", 1.0)
    assert drain(stores, lambda: 2.0) == 0
    assert stores.schedule.visits_due(10**12) == (0, None)


def test_next_visit_is_now_for_the_services_turn_the_deadline_for_a_players_else_never(
) -> None:
    stores = memory_stores()
    record, _ = create_game(stores, SHORT, ["ann", "bob"], "when", turn_seconds=10, now=10.0)
    assert next_visit(record, 11.0) == 20.0  # within its time: its deadline
    bots, _ = create_game(stores, SHORT, [None, None], "bots", bots=["greedy", "greedy"])
    assert next_visit(bots, 100.0) == 100.0
    humans, _ = create_game(stores, SHORT, ["ann", "bob"], "none")
    assert next_visit(humans, 100.0) is None


def test_a_players_move_right_after_its_turn_timed_out_is_refused_and_the_record_verifies(
) -> None:
    """The race the record used to lose: the clock ran out (the time-out saved) and the
    player's own draw arrives before the stand-in has moved. The turn is the stand-in's
    now, so the draw is refused (409 turn_timed_out), and every version of the record
    replays, as who made each move is on the record."""
    stores, clock = memory_stores(), Clock(1000.0)
    record, tokens = create_game(stores, {"preset": "classic", "hand_sizes": [5, 6, 7]},
                                 ["ann", "bob", "cy"], "race2-2", turn_seconds=1, now=clock.now)
    game_id = record.game_id
    seat = record.state.current_seat
    clock.now += 1.5
    lease = stores.schedule.take(clock.now, LEASE_SECONDS)
    assert lease is not None and visit(stores, lease, clock) is not None  # the time-out only
    assert stores.games.load(game_id).state.turn_timed_out
    with pytest.raises(TurnTimedOutError):
        act(stores, game_id, hash_token(tokens[seat]), {"type": "draw", "source": "stock"})
    while not stores.games.load(game_id).state.finished:  # nobody plays on: the clocks do
        clock.now += 1.5
        drain(stores, clock)
    kept = game_record(stores, game_id).body
    assert verify(kept) == []
    for version in range(kept["versions"] + 1):  # every past view is served
        view_at(stores, game_id, hash_token(tokens[seat]), version)


def test_a_bots_visible_choices_do_not_lead_back_to_a_guessable_seed() -> None:
    """Seed 4711 against a ``random`` bot: its draws (stock or pile: public, two choices
    each) were a function of the seed alone, and a search over small seeds found it. Its
    RNG now comes from the seed and the secret salt, so no seed reproduces its choices,
    neither with the old seeding nor with the right seed and no salt."""
    stores = memory_stores()
    record, tokens = create_game(stores, {"preset": "classic", "hand_sizes": [9, 10, 11, 12]},
                                 ["ann", None], "4711", bots=[None, "random"])
    play_out(stores, record.game_id, {0: tokens[0]})
    kept = game_record(stores, record.game_id).body
    seen = []  # (the bot's view before its draw, the source it chose)
    for step in replay_steps(kept):
        action = step.action
        if action["by"] == "service" and action["type"] == "draw" and step.before.discard:
            seen.append((view(step.before, 1, "service"), step.before.version,
                         action["source"]))
    assert len(seen) >= 24

    def reproduces(rng_seed: Callable[[int], str]) -> bool:
        return all(RandomBot(rng_seed(version)).choose(v)["source"] == source  # type: ignore[index]
                   for v, version, source in seen)

    for candidate in range(4600, 4800):
        assert not reproduces(lambda version, c=candidate: f"{c}:1:{version}")  # the old way
        assert not reproduces(lambda version, c=candidate: decision_seed("", str(c), 1, version))
    # the verifier, holding the revealed salt, reproduces every one
    assert reproduces(lambda version: decision_seed(kept["seed_salt"], "4711", 1, version))


def test_an_unlisted_game_is_planned_and_played_like_any() -> None:
    stores = memory_stores()
    record, _ = create_game(stores, SHORT, [None, None], "hidden", bots=["greedy", "random"],
                            unlisted=True)
    assert stores.lobby.listed("in_progress", None, 10) == []
    assert drain(stores) > 0 and stores.games.load(record.game_id).state.finished


def test_a_worker_that_looks_while_a_save_is_in_flight_cannot_drop_the_move_it_makes_due(
) -> None:
    """The plan made before a save is later than the visit, so a worker woken at that
    moment does not take the game, read it before the save lands, find nothing due and
    drop its visit (a process lost just after the save would then lose the bot's move)."""
    taken: list[object] = []

    class LooksDuringSaves(MemoryGameStore):
        def save(self, *args: Any, **kwargs: Any) -> Any:
            taken.append(schedule.take(time.time(), LEASE_SECONDS))  # a worker, just now
            return super().save(*args, **kwargs)

    stores = with_games(LooksDuringSaves)
    schedule = stores.schedule
    record, tokens = create_game(stores, SHORT, ["ann", None], "race", bots=[None, "greedy"])
    drain(stores)  # the bot's turn first, if it was
    while stores.games.load(record.game_id).state.current_seat == 0:
        taken.clear()
        state = stores.games.load(record.game_id).state
        act(stores, record.game_id, hash_token(tokens[0]), view(state, 0)["legal_actions"][0])
    assert taken == [None]  # the discard that made the bot's move due: nothing to take yet
    assert drain(stores) >= 1  # and the move was planned
