"""Pairing, pure: round robins meet every pair (exactly once where a design exists),
Swiss rounds never repeat a pair when a repeat-free pairing exists (checked by brute
force on small tables), and the first seats stay balanced."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator, Sequence

import pytest

from service.tournaments import (
    History,
    Round,
    pair_key,
    pair_swiss,
    round_robin,
    round_robin_rounds,
)


def names(n: int) -> list[str]:
    return [f"p{i:02d}" for i in range(n)]


def meetings(rounds: Sequence[Round]) -> Counter[tuple[str, str]]:
    met: Counter[tuple[str, str]] = Counter()
    for r in rounds:
        for table in r.tables:
            met.update(pair_key(a, b) for a, b in itertools.combinations(table, 2))
    return met


def firsts(rounds: Sequence[Round]) -> Counter[str]:
    return Counter(table[0] for r in rounds for table in r.tables)


def swiss(players: int, seats: int, rounds: int, seed: int) -> list[Round]:
    """A Swiss tournament with random results (points N-1 … 0 by a random order)."""
    rng = random.Random(seed)
    everyone = names(players)
    score = dict.fromkeys(everyone, 0)
    played: list[Round] = []
    for number in range(rounds):
        order = sorted(everyone, key=lambda p: (-score[p], p))
        met = meetings(played)
        byes = Counter(p for r in played for p in r.byes)
        paired = pair_swiss(order, seats, History(met, firsts(played), byes),
                            rounds - 1 - number)
        for table in paired.tables:
            finish = list(table)
            rng.shuffle(finish)
            for place, p in enumerate(finish):
                score[p] += seats - 1 - place
        played.append(paired)
    return played


def partitions(players: Sequence[str], seats: int) -> Iterator[list[tuple[str, ...]]]:
    """Every way to sit ``players`` at tables of ``seats`` (brute force)."""
    if not players:
        yield []
        return
    head, rest = players[0], players[1:]
    for others in itertools.combinations(rest, seats - 1):
        left = [p for p in rest if p not in others]
        for more in partitions(left, seats):
            yield [(head, *others), *more]


@pytest.mark.parametrize("players", [4, 5, 6, 7, 8, 9])
def test_a_round_robin_of_two_seat_tables_pairs_everyone_exactly_once(players: int) -> None:
    schedule = round_robin(names(players), 2)
    met = meetings(schedule)
    assert set(met) == {pair_key(a, b) for a, b in itertools.combinations(names(players), 2)}
    assert set(met.values()) == {1}
    assert len(schedule) == (players - 1 if players % 2 == 0 else players)
    assert all(len(r.byes) == players % 2 for r in schedule)


@pytest.mark.parametrize(("players", "seats", "rounds"),
                         [(15, 3, 7), (9, 3, 4), (16, 4, 5), (21, 3, 10), (27, 3, 13),
                          (28, 4, 9), (25, 5, 6), (49, 7, 8), (64, 8, 9)])
def test_a_round_robin_meets_every_pair_exactly_once_where_a_design_gives_it(
        players: int, seats: int, rounds: int) -> None:
    schedule = round_robin(names(players), seats)
    met = meetings(schedule)
    assert len(schedule) == rounds
    assert len(met) == players * (players - 1) // 2
    assert set(met.values()) == {1}


def test_eight_players_at_four_seat_tables_all_meet_in_three_rounds() -> None:
    schedule = round_robin(names(8), 4)
    assert len(schedule) == 3
    assert len(meetings(schedule)) == 28


@pytest.mark.parametrize("players", range(3, 17))
def test_first_seats_of_a_two_seat_round_robin_stay_within_one(players: int) -> None:
    counts = firsts(round_robin(names(players), 2))
    assert max(counts.values()) - min(counts.get(p, 0) for p in names(players)) <= 1


#: Sizes with and without byes, with one table a round and with many, exact or not.
SIZES = sorted({(n, k) for k in (3, 4, 5, 6, 7, 8) for n in (k + 1, 2 * k - 1, 3 * k + 2, 20, 31)}
               | {(8, 3), (26, 3), (12, 4), (15, 4), (24, 5), (36, 6), (48, 7), (63, 8)})
#: Those the fast tier checks: every table size with one table a round (with a bye and
#: without), and a few fields of several tables; the rest (a quarter of a second each, the
#: covering search) are `make test`'s.
FAST_SIZES = {(n, k) for k in (3, 4, 5, 6, 7, 8) for n in (k + 1, 2 * k - 1)} | {
    (8, 3), (12, 4), (20, 3)}


@pytest.mark.parametrize(("players", "seats"), [
    pytest.param(n, k, marks=() if (n, k) in FAST_SIZES else pytest.mark.slow) for n, k in SIZES])
def test_a_round_robin_seats_everyone_each_round_and_every_pair_meets(players: int,
                                                                     seats: int) -> None:
    schedule = round_robin(names(players), seats)
    for r in schedule:
        assert sorted([*itertools.chain(*r.tables), *r.byes]) == names(players)
        assert all(len(table) == seats for table in r.tables)
    assert len(meetings(schedule)) == players * (players - 1) // 2
    games = Counter(p for r in schedule for table in r.tables for p in table)
    byes = Counter(p for r in schedule for p in r.byes)
    for counts in (games, byes):
        assert max(counts.values(), default=0) - min(counts[p] for p in names(players)) <= 1
    counts = firsts(schedule)
    assert max(counts.values()) - min(counts[p] for p in names(players)) <= 1


@pytest.mark.parametrize(("players", "seats"), [
    (8, 3), *(pytest.param(n, k, marks=pytest.mark.slow) for n, k in [(14, 3), (23, 4), (30, 6)])])
def test_a_round_robin_is_the_same_every_time(players: int, seats: int) -> None:
    schedule = round_robin(names(players), seats)
    assert round_robin(names(players), seats) == schedule
    assert round_robin_rounds(players, seats) == len(schedule)


def test_which_entrant_plays_which_part_does_not_follow_the_entry_order() -> None:
    """Twelve players at two seats: 66 games, so six have one first seat more than the
    rest; over many fields they are not always the first six entered."""
    extra = Counter()
    for field_ in range(20):
        entrants = [f"e{field_}-{i}" for i in range(12)]
        counts = firsts(round_robin(entrants, 2))
        extra.update(i for i, p in enumerate(entrants) if counts[p] == 6)
    assert len(extra) == 12


def test_a_round_robin_longer_than_allowed_is_cut_without_a_repeat() -> None:
    schedule = round_robin(names(40), 2, max_rounds=30)
    assert len(schedule) == 30
    assert set(meetings(schedule).values()) == {1}
    counts = firsts(schedule)
    assert sorted(set(counts.values())) == [15]


@pytest.mark.parametrize("seed", range(40))
def test_swiss_never_repeats_a_pair_when_a_repeat_free_round_exists(seed: int) -> None:
    rng = random.Random(seed)
    seats = rng.choice([2, 3, 4])
    players = rng.randint(seats + 1, 9)
    rounds = rng.randint(2, 5)
    played = swiss(players, seats, rounds, seed)
    for number, paired in enumerate(played):
        before = meetings(played[:number])
        playing = sorted(itertools.chain(*paired.tables))
        possible = any(all(not before[pair_key(a, b)] for t in way
                           for a, b in itertools.combinations(t, 2))
                       for way in partitions(playing, seats))
        repeats = sum(before[pair_key(a, b)] > 0 for t in paired.tables
                      for a, b in itertools.combinations(t, 2))
        assert repeats == 0 or not possible, (number, paired)


@pytest.mark.parametrize("seed", range(30))
def test_sixteen_players_at_four_seat_tables_play_four_swiss_rounds_without_a_repeat(
        seed: int) -> None:
    played = swiss(16, 4, 4, seed)
    assert max(meetings(played).values()) == 1
    counts = firsts(played)
    assert [counts[p] for p in names(16)] == [1] * 16


@pytest.mark.parametrize(("players", "seats", "rounds"), [
    (8, 2, 7), (9, 3, 4), pytest.param(12, 3, 5, marks=pytest.mark.slow), (12, 4, 3), (10, 2, 6)])
def test_first_seats_stay_within_one_of_each_other(players: int, seats: int,
                                                   rounds: int) -> None:
    for seed in range(4):
        played = swiss(players, seats, rounds, seed)
        counts = firsts(played)
        assert max(counts.values()) - min(counts.get(p, 0) for p in names(players)) <= 1


def test_a_table_lists_its_first_seat_first_the_one_who_had_it_least() -> None:
    history = History(firsts={"a": 2, "b": 1, "c": 1, "d": 2})
    paired = pair_swiss(["a", "b", "c", "d"], 4, history)
    assert paired.tables == (("b", "a", "c", "d"),)


def test_byes_go_to_the_lowest_standing_who_had_fewest() -> None:
    paired = pair_swiss(names(5), 2, History(byes={"p04": 1}))
    assert paired.byes == ("p03",)
