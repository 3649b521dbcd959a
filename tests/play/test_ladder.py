"""The bot ladder in the service layer, on the in-memory stores: who may join, what a
pairing pass seats (rated games with a clock, each member within its games at once, the
reference bots within theirs), and the pairing itself: by rating, table sizes every
member allows, and no pair more than three times in a row."""

from __future__ import annotations

import itertools
import random
import time

import pytest

from service.play import act, create_account
from service.play.credentials import account_credential
from service.play.errors import InvalidLadderEntryError, LadderForBotsError, UnknownPresetError
from service.play.ladder import (
    ANCHOR_GAMES_AT_ONCE,
    LADDER_SECONDS,
    LADDER_TURN_SECONDS,
    Candidate,
    join_ladder,
    ladder_view,
    leave_ladder,
    pair,
    visit_ladder,
)
from service.storage import LadderVisit, Lease, Stores, member_of


def bot(stores: Stores, handle: str):  # type: ignore[no-untyped-def]
    return create_account(stores, handle, True)[0]


def ladder_pass(stores: Stores, preset: str = "classic") -> list[str]:
    """One pairing pass, as the move worker holding the ladder's visit makes it (the
    schedule also holds the games' own visits: the bots' moves, not made here)."""
    now = time.time()
    return visit_ladder(stores, Lease(member_of(LadderVisit(preset)), now + 30, now), preset,
                        now, random.Random(1))


def test_only_bot_accounts_join_and_their_entry_must_fit_the_preset(stores: Stores) -> None:
    ann = create_account(stores, "ann", False)[0]
    with pytest.raises(LadderForBotsError):
        join_ladder(stores, ann, "classic", 2, 4, 1, time.time())
    robo = bot(stores, "robo")
    with pytest.raises(InvalidLadderEntryError):
        join_ladder(stores, robo, "bga", 2, 8, 1, time.time())  # bga seats 2 to 6
    with pytest.raises(InvalidLadderEntryError):
        join_ladder(stores, robo, "classic", 4, 2, 1, time.time())
    with pytest.raises(InvalidLadderEntryError):
        join_ladder(stores, robo, "classic", 2, 4, 5, time.time())
    with pytest.raises(UnknownPresetError):
        join_ladder(stores, robo, "poker", 2, 4, 1, time.time())


def test_a_pass_seats_each_member_in_rated_clocked_games_up_to_its_games_at_once(
        stores: Stores) -> None:
    for handle, at_once in (("robo", 2), ("droid", 1)):
        join_ladder(stores, bot(stores, handle), "classic", 2, 3, at_once, time.time())
    created = ladder_pass(stores)
    seated = [stores.games.load(g).state for g in created]
    assert seated and all(s.rated and s.turn_seconds == LADDER_TURN_SECONDS for s in seated)
    assert all(2 <= s.players <= 3 and s.rules.preset == "classic" for s in seated)
    count = {h: sum(h in s.names for s in seated) for h in ("robo", "droid")}
    assert count == {"robo": 2, "droid": 1}
    assert ladder_pass(stores) == []  # nobody has room until a game ends
    view = ladder_view(stores, "classic")
    assert {g["game_id"] for g in view["games"]} == set(created)
    robo = next(m for m in view["members"] if m["handle"] == "robo")
    assert robo["playing"] == 2 and robo["games_at_once"] == 2 and not robo["reference"]
    assert {m["handle"] for m in view["members"] if m["reference"]} == {
        "random", "simple", "greedy", "strong", "expert"}


def test_a_finished_ladder_game_frees_its_members_for_the_next_pass(stores: Stores) -> None:
    robo = bot(stores, "robo")
    join_ladder(stores, robo, "classic", 2, 2, 1, time.time())
    [first] = ladder_pass(stores)
    act(stores, first, account_credential("robo"), {"type": "resign"})
    [second] = ladder_pass(stores)
    assert second != first and stores.ladder.playing("classic") == {
        second: list(stores.games.load(second).state.names)}
    leave_ladder(stores, robo, "classic")
    act(stores, second, account_credential("robo"), {"type": "resign"})
    assert ladder_pass(stores) == [] and stores.ladder.playing("classic") == {}


def test_pairing_never_seats_a_member_with_another_a_fourth_time_in_a_row() -> None:
    rng = random.Random(5)
    members = [Candidate(f"b{i}", 1500 + 10 * i, 2, 4, 1) for i in range(3)]
    members += [Candidate(n, r, 2, 8, ANCHOR_GAMES_AT_ONCE, reference=True)
                for n, r in (("random", 800), ("greedy", 1500), ("strong", 1640))]
    recent: dict[str, list[list[str]]] = {}
    streak: dict[frozenset[str], int] = {}
    for _ in range(300):
        for table in pair(members, recent, rng):
            for handle in table:
                recent[handle] = [[h for h in table if h != handle], *recent.get(handle, [])][:3]
            seated = {frozenset(p) for p in itertools.combinations(table, 2)}
            for one in {m.handle for m in members}:
                for pair_ in [p for p in streak if one in p]:
                    if one in table and pair_ not in seated:
                        streak[pair_] = 0  # one of them sat elsewhere: the streak ends
            for p in seated:
                streak[p] = streak.get(p, 0) + 1
                if not p <= {"random", "greedy", "strong"}:  # two anchors' is no one's streak
                    assert streak[p] <= 3, (p, recent)


def test_pairing_seats_every_member_with_room_at_a_size_all_allow_nearest_first() -> None:
    members = [Candidate("low", 1000, 2, 2, 1), Candidate("mid", 1500, 3, 4, 2),
               Candidate("high", 2000, 2, 3, 1),
               Candidate("greedy", 1500, 2, 8, 3, reference=True),
               Candidate("strong", 1640, 2, 8, 0, reference=True)]
    by = {m.handle: m for m in members}
    for seed in range(20):
        tables = pair(members, {}, random.Random(seed))
        for table in tables:
            assert all(by[h].lo <= len(table) <= by[h].hi for h in table), table
            assert any(not by[h].reference for h in table)
        seats = {h: sum(h in t for t in tables) for h in by}
        assert seats["strong"] == 0 and all(seats[h] <= by[h].free for h in by)
        assert seats["low"] == 1  # greedy has room for everyone
    # nearest first: a gap past the jitter always decides
    near = [Candidate("me", 1500, 2, 2, 1), Candidate("random", 800, 2, 8, 8, reference=True),
            Candidate("greedy", 1520, 2, 8, 8, reference=True),
            Candidate("strong", 1900, 2, 8, 8, reference=True)]
    assert all(pair(near, {}, random.Random(seed)) == [["me", "greedy"]] for seed in range(20))


def test_a_lone_bot_on_the_ladder_keeps_getting_games(stores: Stores) -> None:
    """Five minutes of passes (one every LADDER_SECONDS) for the ladder's only member,
    each of its games ending before the next pass: it plays on, against the anchors in
    turn (the report's lone bot got 9 games, then none for 12 minutes)."""
    robo = bot(stores, "robo")
    join_ladder(stores, robo, "classic", 2, 2, 1, time.time())
    start, games, opponents = time.time(), 0, set()
    for n in range(int(300 / LADDER_SECONDS)):
        now = start + n * LADDER_SECONDS
        made = visit_ladder(stores, Lease(member_of(LadderVisit("classic")), now + 30, now),
                            "classic", now, random.Random(n))
        for game_id in made:
            games += 1
            opponents |= set(stores.games.load(game_id).state.names) - {"robo"}
            act(stores, game_id, account_credential("robo"), {"type": "resign"})
    assert games >= 20 and len(opponents) >= 2


def test_two_members_past_their_rated_pair_limit_are_not_seated_together() -> None:
    members = [Candidate("b0", 1500, 2, 2, 4), Candidate("b1", 1500, 2, 2, 4),
               Candidate("greedy", 1500, 2, 8, 8, reference=True)]
    for seed in range(20):
        tables = pair(members, {}, random.Random(seed),
                      spent=lambda a, b: {a, b} == {"b0", "b1"})
        assert all(set(t) != {"b0", "b1"} for t in tables)
        assert any(set(t) == {"b0", "b1"} for t in pair(members, {}, random.Random(seed)))
