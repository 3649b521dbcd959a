"""The lobby's listings (``service/storage/lobby.py``), on a real Redis and in memory: a
listing pages newest first, to the millisecond, strictly after its cursor (games listed
in one millisecond in reverse id order, none lost between pages); a relist moves a game
from one listing to another keeping its created time, or off the lobby, and leaves an
unlisted game unlisted; two racing moves of one entry make one. (Redis's trimming of
open games that can no longer exist, which the interface allows and the memory lobby
does not do, is ``test_open_games_and_listings.py``'s.)"""

from __future__ import annotations

import threading

from service.storage import LobbyStore, Stores


def _walk(lobby: LobbyStore, listing: str, count: int) -> list[tuple[str, float]]:
    """The whole listing, a page of ``count`` at a time, each after the last one's end."""
    out: list[tuple[str, float]] = []
    while page := lobby.listed(listing, None if not out else (out[-1][1], out[-1][0]),
                               count):
        out += page
    return out


def test_a_listing_pages_newest_first_and_ties_of_one_millisecond_are_not_lost(
        stores: Stores) -> None:
    lobby = stores.lobby
    now = 1_700_000_000.0
    for n in range(7):
        lobby.list_game(f"g{n}", "open", now + (n // 3))  # three games per second
    expected = ["g6", "g5", "g4", "g3", "g2", "g1", "g0"]
    for count in (1, 2, 3, 10):
        assert [g for g, _ in _walk(lobby, "open", count)] == expected
    assert lobby.listed("open", None, 2) == [("g6", now + 2), ("g5", now + 1)]
    assert lobby.listed("in_progress", None, 10) == []


def test_created_times_are_kept_to_the_millisecond(stores: Stores) -> None:
    lobby = stores.lobby
    lobby.list_game("b", "open", 1000.0001)
    lobby.list_game("a", "open", 1000.0004)
    lobby.list_game("c", "open", 999.9997)
    assert lobby.listed("open", None, 10) == [("c", 1000.0), ("b", 1000.0), ("a", 1000.0)]
    assert lobby.listed("open", (1000.0002, "b"), 10) == [("a", 1000.0)]


def test_a_relist_moves_a_game_keeping_its_created_time_and_never_lists_an_unlisted_one(
        stores: Stores) -> None:
    lobby = stores.lobby
    lobby.list_game("g1", "open", 100.0)
    lobby.list_game("g2", "open", 200.0)
    lobby.relist_game("g1", "open", "in_progress")
    assert lobby.listed("open", None, 10) == [("g2", 200.0)]
    assert lobby.listed("in_progress", None, 10) == [("g1", 100.0)]
    lobby.relist_game("g1", "open", "in_progress")  # not on "open" any more: nothing
    lobby.relist_game("never", "open", "in_progress")
    assert lobby.listed("in_progress", None, 10) == [("g1", 100.0)]
    lobby.relist_game("g1", "in_progress", None)
    assert lobby.listed("in_progress", None, 10) == []
    lobby.list_game("g2", "open", 300.0)  # listed again: at its new time, once
    assert lobby.listed("open", None, 10) == [("g2", 300.0)]


def test_racing_moves_of_one_entry_make_one(stores: Stores) -> None:
    lobby = stores.lobby
    for n in range(50):
        lobby.list_game(f"g{n}", "open", 100.0 + n)
    barrier = threading.Barrier(2)

    def move(to: str | None) -> None:
        barrier.wait()
        for n in range(50):
            lobby.relist_game(f"g{n}", "open", to)

    racers = [threading.Thread(target=move, args=(to,)) for to in ("in_progress", None)]
    for t in racers:
        t.start()
    for t in racers:
        t.join()
    moved = {g for g, _ in _walk(lobby, "in_progress", 100)}
    assert lobby.listed("open", None, 100) == [] and len(moved) <= 50
    assert all(created == 100.0 + int(g[1:]) for g, created in _walk(lobby, "in_progress", 7))
