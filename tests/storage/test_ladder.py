"""The bot ladder's store (``service/storage/ladder.py``), on a real Redis and in memory:
members by handle as they joined (an entry kept as JSON, changed by joining again), the
games in play until seen ended, and each member's latest tables, newest first, at most
:data:`~service.storage.ladder.RECENT_TABLES`; each preset's ladder its own."""

from __future__ import annotations

from service.storage import LadderEntry, Stores
from service.storage.ladder import RECENT_TABLES


def test_members_join_change_their_entry_and_leave(stores: Stores) -> None:
    ladder = stores.ladder
    assert ladder.members("classic") == {}
    ladder.join("classic", "Botty", LadderEntry(2, 3, 1, 100.25))
    ladder.join("classic", "other", LadderEntry(4, 4, 2, 101.5))
    ladder.join("classic", "Botty", LadderEntry(2, 2, 3, 102.75))  # changed
    assert ladder.members("classic") == {"Botty": LadderEntry(2, 2, 3, 102.75),
                                         "other": LadderEntry(4, 4, 2, 101.5)}
    assert ladder.members("short") == {}
    assert ladder.leave("classic", "other") is True
    assert ladder.leave("classic", "other") is False
    assert ladder.members("classic") == {"Botty": LadderEntry(2, 2, 3, 102.75)}


def test_a_seated_game_is_in_play_until_ended_and_on_each_members_latest_tables(
        stores: Stores) -> None:
    ladder = stores.ladder
    ladder.seat("classic", "g1", ["a", "b", "c"])
    ladder.seat("classic", "g2", ("a", "d"))
    assert ladder.playing("classic") == {"g1": ["a", "b", "c"], "g2": ["a", "d"]}
    assert ladder.recent("classic") == {"a": [["d"], ["b", "c"]], "b": [["a", "c"]],
                                        "c": [["a", "b"]], "d": [["a"]]}
    ladder.ended("classic", ["g1", "never"])
    ladder.ended("classic", [])
    assert ladder.playing("classic") == {"g2": ["a", "d"]}
    assert ladder.playing("short") == {} and ladder.recent("short") == {}


def test_a_member_keeps_only_its_latest_tables(stores: Stores) -> None:
    ladder = stores.ladder
    for n in range(RECENT_TABLES + 2):
        ladder.seat("classic", f"g{n}", ["a", f"x{n}"])
    assert ladder.recent("classic")["a"] == [[f"x{n}"] for n in
                                            reversed(range(2, RECENT_TABLES + 2))]
