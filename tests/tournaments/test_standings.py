"""Standings, pure: a game's points by place (ties share, resigned last, zero rounds
under classic), the same places as the engine's winners, and the order of the standings."""

from __future__ import annotations

import random
from dataclasses import replace

from service.bots import GreedyBot, RandomBot
from service.core.rules import preset_rules
from service.engine import apply, new_game, view, winners
from service.tournaments import Result, points, result_of, standings
from service.verify import build_record


def result(totals: list[int], **changes: object) -> Result:
    n = len(totals)
    base = Result("g", tuple("abcdefgh"[:n]), tuple(totals), (False,) * n, (0,) * n,
                  False, False, 0)
    return replace(base, **changes)  # type: ignore[arg-type]


def test_points_are_one_per_opponent_placed_below_and_ties_share() -> None:
    assert points(result([10, 30, 20, 40])) == {"a": 3, "c": 2, "b": 1, "d": 0}
    assert points(result([10, 10, 20, 40])) == {"a": 2.5, "b": 2.5, "c": 1, "d": 0}
    assert points(result([5, 5, 5])) == {"a": 1, "b": 1, "c": 1}


def test_a_resigned_player_places_below_every_player_who_did_not() -> None:
    got = points(result([0, 50, 60], resigned=(True, False, False)))
    assert got == {"b": 2, "c": 1, "a": 0}


def test_more_zero_rounds_break_a_tie_of_totals_only_under_zero_rounds() -> None:
    tied = result([10, 10], zero_rounds=(1, 2))
    assert points(tied) == {"a": 0.5, "b": 0.5}
    assert points(replace(tied, zero_rounds_break_ties=True)) == {"a": 0, "b": 1}


def test_an_aborted_game_shares_every_place() -> None:
    assert points(result([0, 0, 0, 0], aborted=True)) == dict.fromkeys("abcd", 1.5)


def test_the_first_place_of_a_record_is_the_engines_winners() -> None:
    rng = random.Random(5)
    for game in range(30):
        rules = preset_rules(rng.choice(["classic", "bga", "family"]))
        rules = replace(rules, hand_sizes=(3, 4))
        n = rng.randint(2, 4)
        state = new_game(rules, [f"p{i}" for i in range(n)], str(game),
                         accounts=[f"p{i}" for i in range(n)])
        bots = [GreedyBot(), RandomBot(seed=game)]
        while not state.finished:
            seat = state.current_seat
            assert seat is not None
            state, _ = apply(state, seat, bots[seat % 2].choose(view(state, seat)))
        record = build_record(f"g{game}", state, [], created_at=None, finished_at=0.0)
        got = points(result_of(record))
        best = max(got.values())
        assert {s for s in range(n) if got[f"p{s}"] == best} == set(winners(state))


def test_standings_order_by_points_then_buchholz_then_totals() -> None:
    games = [Result("g1", ("a", "b"), (10, 20), (False,) * 2, (0,) * 2, False, False, 0),
             Result("g2", ("c", "d"), (5, 50), (False,) * 2, (0,) * 2, False, False, 1),
             Result("g3", ("a", "c"), (30, 10), (False,) * 2, (0,) * 2, False, False, 0),
             Result("g4", ("b", "d"), (10, 20), (False,) * 2, (0,) * 2, False, False, 1)]
    table = standings(["a", "b", "c", "d"], 2, games)
    assert [(s.handle, s.points, s.buchholz) for s in table] == [
        ("c", 2, 1), ("a", 1, 3), ("b", 1, 1), ("d", 0, 3)]
    assert [s.first_seats for s in table] == [0, 2, 0, 2]
    assert [s.total for s in table] == [15, 40, 30, 70]


def test_a_bye_is_worth_the_average_of_a_place() -> None:
    table = standings(["a", "b", "c", "d", "e"], 4, [], byes=["e"])
    assert table[0].handle == "e" and table[0].points == 1.5 and table[0].byes == 1
