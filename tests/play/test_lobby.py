"""``service/play/lobby.py`` on the in-memory stores: a page shows only games in the state
its listing says, skipping the stale entries it meets (a move worker's prune moves them),
filters, and pages with a cursor."""

from __future__ import annotations

import time

import pytest

from service import play
from service.play.errors import InvalidCursorError
from service.play.lobby import PRUNE_GRACE_SECONDS
from service.storage import Stores, memory_stores

from .conftest import drain

SHORT = {"preset": "classic", "hand_sizes": [3]}


def _open(stores: Stores, players: int = 2, preset: str = "classic",
          **kw: object) -> str:
    record, _ = play.create_game(stores, {"preset": preset}, ["ann"] + [None] * (players - 1),
                                 None, **kw)  # type: ignore[arg-type]
    return record.game_id


def test_a_full_game_moves_from_open_to_in_progress_and_a_finished_one_leaves() -> None:
    stores = memory_stores()
    game_id = _open(stores)
    assert [g["game_id"] for g in play.lobby_page(stores, "open").games] == [game_id]
    play.claim_seat(stores, game_id, 1, "bob")
    assert play.lobby_page(stores, "open").games == []
    (entry,) = play.lobby_page(stores, "in_progress").games
    assert entry["seats_open"] == 0 and entry["seats"][1] == {
        "seat": 1, "name": "bob", "open": False, "kind": "human", "bot": None}


def test_an_entry_left_on_the_wrong_listing_is_skipped_by_reads_and_moved_by_the_prune(
) -> None:
    stores = memory_stores()
    game_id = _open(stores)
    play.claim_seat(stores, game_id, 1, "bob")
    stores.lobby.relist_game(game_id, "in_progress", "open")  # as if the claim's move failed
    assert play.lobby_page(stores, "open").games == []
    assert play.lobby_page(stores, "in_progress").games == []
    assert [g for g, _ in stores.lobby.listed("open", None, 10)] == [game_id]  # read, not fixed
    assert play.prune_listing(stores, "open", None, 10) == (1, None)
    assert stores.lobby.listed("open", None, 10) == []
    assert [g["game_id"] for g in play.lobby_page(stores, "in_progress").games] == [game_id]


def test_the_prune_removes_gone_and_finished_games_but_spares_one_being_created() -> None:
    stores = memory_stores()
    now = time.time()
    finished, _ = play.create_game(stores, SHORT, [None, None], "f", bots=["greedy", "greedy"])
    drain(stores)
    assert play.lobby_page(stores, "in_progress").games == []  # off the lobby as it finished
    stores.lobby.list_game(finished.game_id, "in_progress", now - 5)  # as if that move failed
    stores.lobby.list_game("expired", "in_progress", now - 3600)
    stores.lobby.list_game("being-created", "in_progress", now - 1)  # listed, not yet stored
    playing = _open(stores, 2)
    play.claim_seat(stores, playing, 1, "bob")
    assert play.prune_listing(stores, "in_progress", None, 10, now) == (2, None)
    assert [g for g, _ in stores.lobby.listed("in_progress", None, 10)] == [
        playing, "being-created"]
    later = now + PRUNE_GRACE_SECONDS
    assert play.prune_listing(stores, "in_progress", None, 10, later) == (1, None)
    assert [g for g, _ in stores.lobby.listed("in_progress", None, 10)] == [playing]


def test_the_prune_goes_through_a_listing_a_page_at_a_time() -> None:
    stores = memory_stores()
    now = time.time()
    for n in range(7):
        stores.lobby.list_game(f"gone-{n}", "open", now - 3600 - n)
    live = _open(stores)
    moved, cursor, pages = 0, None, 0
    while True:
        pruned, cursor = play.prune_listing(stores, "open", cursor, 3, now)
        moved, pages = moved + pruned, pages + 1
        if cursor is None:
            break
    assert (moved, pages) == (7, 3)
    assert [g for g, _ in stores.lobby.listed("open", None, 10)] == [live]


def test_unlisted_games_are_never_listed() -> None:
    stores = memory_stores()
    game_id = _open(stores, unlisted=True)
    assert play.lobby_page(stores, "open").games == []
    play.claim_seat(stores, game_id, 1, "bob")
    assert play.lobby_page(stores, "in_progress").games == []


def test_filters_and_cursor_pages_cover_every_matching_game_once() -> None:
    stores = memory_stores()
    made = [_open(stores, 2 + n % 3, "bga" if n % 2 else "classic") for n in range(12)]
    three = [g for n, g in enumerate(made) if n % 3 == 1]
    assert {g["game_id"] for g in play.lobby_page(stores, "open", players=3).games} == set(three)
    bga = {g["game_id"] for g in play.lobby_page(stores, "open", preset="bga", limit=100).games}
    assert bga == {g for n, g in enumerate(made) if n % 2}
    seen: list[str] = []
    cursor = None
    while True:
        page = play.lobby_page(stores, "open", cursor=cursor, limit=5)
        seen += [g["game_id"] for g in page.games]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert sorted(seen) == sorted(made) and len(seen) == 12


def test_a_cursor_the_lobby_never_gave_is_refused() -> None:
    with pytest.raises(InvalidCursorError):
        play.lobby_page(memory_stores(), "open", cursor="not-a-cursor")
