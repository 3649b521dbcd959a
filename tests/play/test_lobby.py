"""``service/play/lobby.py`` on the in-memory stores: a page shows only games in the state
its listing says, corrects the stale entries it meets, filters, and pages with a cursor."""

from __future__ import annotations

import pytest

from service import play
from service.play import InvalidCursorError
from service.storage import Stores, memory_stores


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
    assert entry["seats_open"] == 0 and entry["seats"][1] == {"seat": 1, "name": "bob",
                                                               "open": False}


def test_an_entry_left_on_the_wrong_listing_is_skipped_and_moved_by_the_read() -> None:
    stores = memory_stores()
    game_id = _open(stores)
    play.claim_seat(stores, game_id, 1, "bob")
    stores.lobby.list_game(game_id, "open", 1.0)  # as if the move after the claim had failed
    assert play.lobby_page(stores, "open").games == []
    assert stores.lobby.listed("open", None, 10) == []
    stores.lobby.list_game("gone", "in_progress", 2.0)  # a game that expired
    assert [g["game_id"] for g in play.lobby_page(stores, "in_progress").games] == [game_id]
    assert [g for g, _ in stores.lobby.listed("in_progress", None, 10)] == [game_id]


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
