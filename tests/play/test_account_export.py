"""An account's export (``service.play.export_records``) on the in-memory stores: every
finished game once, in order, filtered, resumable after any record, a page at a time."""

from __future__ import annotations

import time
from typing import Any

import pytest

from service import play
from service.play import ExportQuery, export_records
from service.play.errors import InvalidCursorError, UnknownAccountError
from service.storage import Account, Stores
from service.verify import verify
from tests.play.finished_games import agreed

from .finished_games import finish_game
from .test_reads_write_nothing import counting_writes


def accounts(stores: Stores, *handles: str) -> list[Account]:
    return [play.create_account(stores, handle, False)[0] for handle in handles]


def ids(records: Any) -> list[str]:
    return [record["game_id"] for record in records]


def index_order(stores: Stores, handle: str) -> list[str]:
    """The account's finished games as the index orders them, oldest first."""
    page = stores.accounts.finished_page(handle, None, 10_000, newest_first=False)
    return [game_id for game_id, _ in page]


def test_every_finished_game_of_an_account_comes_out_once_oldest_first_or_newest_first(
        stores: Stores) -> None:
    ann, bob, cat = accounts(stores, "ann", "bob", "cat")
    games = [finish_game(stores, [ann, bob if n % 2 else cat], f"s{n}") for n in range(7)]
    finish_game(stores, [bob, cat], "not-ann's")
    play.create_game(stores, {"preset": "classic"}, ["ann", "bob"], None,
                     accounts=[ann, bob], agreed=agreed(ann, bob))  # being played: not finished, not exported
    oldest = list(export_records(stores, "ann", ExportQuery(), batch=3))
    assert ids(oldest) == index_order(stores, "ann")
    assert sorted(ids(oldest)) == sorted(games)
    ends = [(r["finished_at"], r["game_id"]) for r in oldest]
    assert ends == sorted(ends)  # by end time, then id: the index's order
    newest = list(export_records(stores, "ANN", ExportQuery(newest_first=True), batch=3))
    assert newest == oldest[::-1]
    for record in oldest:
        assert record == play.game_record(stores, record["game_id"]).body
        assert verify(record) == []


def test_the_filters_pick_by_preset_rated_and_end_time(stores: Stores) -> None:
    ann, bob = accounts(stores, "ann", "bob")
    start = time.time()
    at = [start + n for n in range(4)]  # one game a second
    family = finish_game(stores, [ann, bob], "f", rules={"preset": "family", "hand_sizes": [3]},
                         at=at[0])
    bga = finish_game(stores, [ann, bob], "b", rules={"preset": "bga", "hand_sizes": [3]},
                      at=at[1])
    rated = finish_game(stores, [ann, bob], "r", rules={"preset": "classic"}, rated=True,
                        at=at[2])
    classic = finish_game(stores, [ann, bob], "c", at=at[3])

    def export(**query: Any) -> list[str]:
        return ids(export_records(stores, "ann", ExportQuery(**query)))

    ms = [round(t * 1000) for t in at]
    assert export(preset="classic") == [rated, classic]
    assert export(preset="bga") == [bga]
    assert export(rated=True) == [rated]
    assert export(rated=False) == [family, bga, classic]
    assert export(preset="classic", rated=False) == [classic]
    assert export(since=ms[1]) == [bga, rated, classic]  # since: included
    assert export(until=ms[2]) == [family, bga]  # until: excluded
    assert export(since=ms[1], until=ms[3], newest_first=True) == [rated, bga]
    assert export(since=ms[1] + 1, until=ms[1] + 1) == []


def test_a_resume_after_any_record_gives_exactly_the_rest_even_among_games_ending_in_one_millisecond(
        stores: Stores) -> None:
    """Seven games end in the same millisecond, between games ending earlier and later;
    pages of 3 split that millisecond's games across pages. After each record, in either
    order, a resumed export is exactly the rest of the whole one."""
    ann, bob = accounts(stores, "ann", "bob")
    now = time.time()
    finish_game(stores, [ann, bob], "before", at=now - 1)
    for n in range(7):
        finish_game(stores, [ann, bob], f"tie{n}", at=now)
    finish_game(stores, [ann, bob], "after", at=now + 1)
    assert len({r["finished_at"] for r in export_records(stores, "ann", ExportQuery())}) == 3
    for newest_first in (False, True):
        whole = ids(export_records(stores, "ann", ExportQuery(newest_first=newest_first),
                                   batch=3))
        assert len(whole) == len(set(whole)) == 9
        for k, last in enumerate(whole):
            rest = export_records(stores, "ann",
                                  ExportQuery(newest_first=newest_first, after=last), batch=3)
            assert ids(rest) == whole[k + 1:], (newest_first, k)


def test_an_export_reads_the_index_and_the_records_a_page_at_a_time_as_it_is_read(
        stores: Stores) -> None:
    """What a long export holds: the page being sent. Each page is read when the one
    before it has been consumed, never ahead, and nothing is written."""
    ann, bob = accounts(stores, "ann", "bob")
    for n in range(23):
        finish_game(stores, [ann, bob], f"g{n}")
    pages: list[int] = []
    load_records = stores.records.load_records

    def counted(game_ids: Any) -> Any:
        pages.append(len(game_ids))
        return load_records(game_ids)

    stores.records.load_records = counted  # type: ignore[method-assign]
    writes = counting_writes(stores)
    export = export_records(stores, "ann", ExportQuery(), batch=5)
    assert pages == []  # nothing read before the first record is asked for
    for k in range(1, 24):
        next(export)
        read = (k + 4) // 5  # the page of record k, and none further
        assert pages == [5, 5, 5, 5, 3][:read], k
    assert list(export) == []
    assert pages == [5, 5, 5, 5, 3]
    assert writes == []


def test_games_whose_record_is_no_longer_kept_are_skipped(stores: Stores) -> None:
    ann, bob = accounts(stores, "ann", "bob")
    games = [finish_game(stores, [ann, bob], f"g{n}") for n in range(4)]
    stores.games.shared.records.pop(games[1])  # type: ignore[attr-defined]  # expired
    assert ids(export_records(stores, "ann", ExportQuery(), batch=2)) == [
        g for g in index_order(stores, "ann") if g != games[1]]


def test_an_unknown_or_closed_account_is_refused_and_a_reference_bot_has_nothing_to_export(
        stores: Stores) -> None:
    ann, = accounts(stores, "ann")
    with pytest.raises(UnknownAccountError):
        export_records(stores, "nobody", ExportQuery())
    play.close_account(stores, ann)
    with pytest.raises(UnknownAccountError):
        export_records(stores, "ann", ExportQuery())
    assert list(export_records(stores, "strong", ExportQuery())) == []


def test_a_cursor_that_is_no_finished_game_of_the_account_is_refused(stores: Stores) -> None:
    ann, bob, cat = accounts(stores, "ann", "bob", "cat")
    finish_game(stores, [ann, bob], "ann's")
    other = finish_game(stores, [bob, cat], "not ann's")
    playing, _ = play.create_game(stores, {"preset": "classic"}, ["ann", "cat"], None,
                                  accounts=[ann, cat], agreed=agreed(ann, cat))
    for cursor in (other, playing.game_id, "no-such-game"):
        with pytest.raises(InvalidCursorError):
            export_records(stores, "ann", ExportQuery(after=cursor))
