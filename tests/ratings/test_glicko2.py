"""Glicko-2 itself (:mod:`service.ratings.glicko2`) and the pairwise table update
(:mod:`service.ratings.table`): the paper's example, symmetry, ties and aging.

The worked example through the service's whole path (a rated game, its record and the
rating worker's step) is tests/play/test_ratings.py; here the same numbers through the
table update alone, so a failure says which layer broke."""

from __future__ import annotations

import itertools
import random

import pytest

from service.ratings import Rating, Seat, System, rate_table, update
from service.ratings.glicko2 import SCALE

PAPER = System(tau=0.5)
PLAYER = Rating(1500.0, 200.0, 0.06)
OPPONENTS = [Rating(1400.0, 30.0, 0.06), Rating(1550.0, 100.0, 0.06),
             Rating(1700.0, 300.0, 0.06)]


def test_glickmans_worked_example_comes_out_as_the_paper_prints_it() -> None:
    after = update(PLAYER, list(zip(OPPONENTS, [1.0, 0.0, 0.0], strict=True)), PAPER)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_four_seat_table_placed_above_one_and_below_two_is_the_worked_example() -> None:
    seats = [Seat(PLAYER, 3), Seat(OPPONENTS[0], 4), Seat(OPPONENTS[1], 1),
             Seat(OPPONENTS[2], 2)]
    assert rate_table(seats, PAPER)[0] == update(
        PLAYER, list(zip(OPPONENTS, [1.0, 0.0, 0.0], strict=True)), PAPER)


def test_the_order_of_the_seats_never_changes_anyones_new_rating() -> None:
    rng = random.Random(7)
    for _ in range(30):
        n = rng.randint(2, 8)
        seats = [Seat(Rating(rng.uniform(900, 2100), rng.uniform(40, 350), 0.06),
                     rng.randint(1, n), frozen=rng.random() < 0.2) for _ in range(n)]
        before = dict(zip(range(n), rate_table(seats, System()), strict=True))
        for order in itertools.islice(itertools.permutations(range(n)), 20):
            after = rate_table([seats[i] for i in order], System())
            assert {i: after[k] for k, i in enumerate(order)} == before  # to the last bit


def test_players_who_share_a_place_with_equal_ratings_come_out_equal() -> None:
    ann, bob, cid = Rating(1500, 200, 0.06), Rating(1500, 200, 0.06), Rating(1600, 80, 0.06)
    new = rate_table([Seat(ann, 2), Seat(bob, 2), Seat(cid, 1)], System())
    assert new[0] == new[1] and new[0].rating < 1500 and new[2].rating > 1600


def test_a_frozen_seat_keeps_its_rating_and_still_moves_the_others() -> None:
    anchor, player = Rating(1500, 50, 0.06), Rating(1500, 350, 0.06)
    won, lost = rate_table([Seat(anchor, 1, frozen=True), Seat(player, 2)], System())
    assert won == anchor and lost.rating < 1500 and lost.deviation < 350


def test_a_win_raises_a_loss_lowers_and_every_game_narrows_the_deviation() -> None:
    a, b = System().initial, System().initial
    win, loss = rate_table([Seat(a, 1), Seat(b, 2)], System())
    assert win.rating > 1500 > loss.rating
    assert win.rating - 1500 == pytest.approx(1500 - loss.rating)
    assert win.deviation < 350 and loss.deviation < 350


def test_time_without_games_grows_the_deviation_up_to_its_bound_only() -> None:
    system = System()
    settled = Rating(1700.0, 60.0, 0.06)
    month, year = system.aged(settled, 30), system.aged(settled, 365)
    assert settled.deviation < month.deviation < year.deviation < 350
    assert month.rating == year.rating == 1700.0
    assert system.aged(settled, 100_000).deviation == 350.0
    assert system.aged(settled, 0) == settled
    # one idle rating period (1 / periods_per_day days) is the paper's step 6 exactly
    phi = settled.deviation / SCALE
    one = system.aged(settled, 1 / system.periods_per_day)
    assert one.deviation == pytest.approx(SCALE * (phi * phi + 0.06 ** 2) ** 0.5)


def test_a_table_of_one_is_refused() -> None:
    with pytest.raises(ValueError, match="two players"):
        rate_table([Seat(System().initial, 1)], System())
