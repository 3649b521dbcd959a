"""The mistakes store's promises (``service/storage/mistakes.py``), on a real Redis, a
cluster and in memory: an account's entries come newest game first and, within a game,
latest decision first; a page resumes after the last one of the previous page; ``since``
and ``min_regret`` filter; a game filed again replaces its earlier entries; each account
sees its own only (its handle in any case); the oldest go past the bound."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.storage import MISTAKES_KEPT, Stores


def body(game_id: str, version: int, regret: float) -> dict[str, Any]:
    return {"game_id": game_id, "version": version, "regret": regret,
            "position": {"hand": ["7H", "8H"], "discard_top": "KS"}}


def names(entries: list[Any]) -> list[tuple[str, int]]:
    return [(e.body["game_id"], e.body["version"]) for e in entries]


def test_entries_come_newest_game_first_then_latest_decision_and_pages_resume(
        stores: Stores) -> None:
    m = stores.mistakes
    m.file("ann", "g1", 1_000, [body("g1", 3, 4.0), body("g1", 12, 9.5)])
    m.file("ann", "g2", 2_000, [body("g2", 7, 2.5), body("g2", 101, 12.0), body("g2", 9, 3.0)])
    m.file("ann", "g0", 500, [body("g0", 1, 6.0)])
    every = m.page("ann", None, 0.0, None, 50)
    assert names(every) == [("g2", 101), ("g2", 9), ("g2", 7), ("g1", 12), ("g1", 3),
                            ("g0", 1)]
    assert every[0].body == body("g2", 101, 12.0) and every[0].ended_ms == 2_000
    pages, after = [], None
    while True:
        page = m.page("ann", None, 0.0, after, 2)
        if not page:
            break
        pages.append(names(page))
        after = page[-1].position
    assert pages == [[("g2", 101), ("g2", 9)], [("g2", 7), ("g1", 12)], [("g1", 3), ("g0", 1)]]


def test_since_and_min_regret_filter_and_a_page_fills_past_what_they_leave_out(
        stores: Stores) -> None:
    m = stores.mistakes
    m.file("ann", "old", 1_000, [body("old", v, 9.0) for v in range(5)])
    m.file("ann", "new", 3_000, [body("new", v, 2.0 + (v % 2) * 8) for v in range(250)])
    assert names(m.page("ann", 3_000, 0.0, None, 500)) == [("new", v) for v in range(249, -1, -1)]
    big = m.page("ann", None, 5.0, None, 130)
    # 125 of the newer game's, then the older game's (the page read past the small ones)
    assert names(big) == [("new", v) for v in range(249, 0, -2)] + [("old", 4), ("old", 3),
                                                                   ("old", 2), ("old", 1),
                                                                   ("old", 0)]
    assert m.page("ann", 3_001, 0.0, None, 10) == []
    assert names(m.page("ann", None, 9.5, None, 3)) == [("new", 249), ("new", 247),
                                                         ("new", 245)]


def test_a_game_filed_again_replaces_its_entries_and_an_account_sees_its_own_only(
        stores: Stores) -> None:
    m = stores.mistakes
    m.file("Ann", "g1", 1_000, [body("g1", 3, 4.0), body("g1", 5, 6.0)])
    m.file("bob", "g1", 1_000, [body("g1", 4, 7.0)])
    m.file("ann", "g1", 1_000, [body("g1", 5, 8.0)])
    assert names(m.page("ANN", None, 0.0, None, 10)) == [("g1", 5)]
    assert m.page("ann", None, 0.0, None, 10)[0].body["regret"] == 8.0
    assert names(m.page("bob", None, 0.0, None, 10)) == [("g1", 4)]
    assert m.page("cid", None, 0.0, None, 10) == []
    found = m.one("ann", "g1", 5)
    assert found is not None and found.body == body("g1", 5, 8.0) and found.ended_ms == 1_000
    assert m.one("ann", "g1", 3) is None and m.one("bob", "g1", 5) is None
    assert m.one("ann", "g9", 5) is None


def test_an_account_keeps_its_newest_entries_up_to_the_bound(stores: Stores) -> None:
    m = stores.mistakes
    for g in range(MISTAKES_KEPT // 100 + 1):  # a hundred more than the bound
        m.file("ann", f"g{g}", 1_000 + g, [body(f"g{g}", v, 3.0) for v in range(100)])
    kept = m.page("ann", None, 0.0, None, MISTAKES_KEPT + 50)
    assert len(kept) == MISTAKES_KEPT
    assert ("g0", 99) not in names(kept) and names(kept)[-1] == ("g1", 0)


def test_two_bundles_on_one_redis_share_the_entries(make_stores: Callable[..., Stores],
                                                    backend: str) -> None:
    writer, reader = make_stores(), make_stores()
    writer.mistakes.file("ann", "g1", 1_000, [body("g1", 3, 4.0)])
    seen = names(reader.mistakes.page("ann", None, 0.0, None, 10))
    assert seen == ([] if backend == "memory" else [("g1", 3)])
