"""Designs, pure: every design the module builds is resolvable with every pair meeting
exactly once (which also checks the hardcoded base tables), and it builds one for every
size the module says it does."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from service.tournaments.designs import affine, resolvable

BUILT = [(n, k) for k in range(2, 9) for n in range(k, 65) if resolvable(n, k) is not None]


@pytest.mark.parametrize(("players", "seats"), BUILT)
def test_a_design_seats_everyone_each_round_and_meets_every_pair_once(players: int,
                                                                      seats: int) -> None:
    design = resolvable(players, seats)
    assert design is not None
    assert len(design) == (players - 1) // (seats - 1)
    met: Counter[tuple[int, int]] = Counter()
    for tables in design:
        assert sorted(itertools.chain(*tables)) == list(range(players))
        assert all(len(table) == seats for table in tables)
        met.update(pair for table in tables for pair in itertools.combinations(sorted(table), 2))
    assert len(met) == players * (players - 1) // 2
    assert set(met.values()) == {1}


def test_every_kirkman_and_four_seat_size_up_to_sixty_four_has_its_design() -> None:
    threes = {n for n, k in BUILT if k == 3}
    fours = {n for n, k in BUILT if k == 4}
    assert threes == {n for n in range(3, 65) if n % 6 == 3}
    assert fours == {n for n in range(4, 65) if n % 12 == 4}
    assert {(n, k) for n, k in BUILT if k >= 5 and n > k} == {(25, 5), (49, 7), (64, 8)}


def test_two_seat_designs_are_the_circle_for_every_even_field() -> None:
    assert {n for n, k in BUILT if k == 2} == set(range(2, 65, 2))


@pytest.mark.parametrize(("q", "d"), [(4, 2), (8, 2), (4, 3), (3, 3)])
def test_the_affine_geometry_over_a_field_of_prime_power_order_has_its_lines(q: int,
                                                                          d: int) -> None:
    rounds = affine(q, d)
    assert len(rounds) == (q ** d - 1) // (q - 1)
    assert all(len(tables) == q ** (d - 1) for tables in rounds)
