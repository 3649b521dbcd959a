"""The final table's wide tables on a 360 px phone (issue 33, item 8), in a real Chromium
against gunicorn with a move worker and an analysis worker: a finished four-bot game's
analysis (seven columns), its scores by round (a column per player) and the record's
score sheet (lines of 70 characters and more) show every column with nothing past the
window's edge and no box scrolling sideways: the analysis and the scores by round as a
block per row of label: value pairs, still tables to a screen reader; the sheet's long
lines wrapped. On a laptop they are the tables they were, a row a line. The same checks
run on the leaderboard, the profile and the ladder (test_play_ratings.py), the standings
(test_play_tournament.py), and eight players' scores by round with a 40-character name
(test_play_ui.py)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
import requests

from tests.conftest import PATIENCE
from tests.web.conftest import Page
from tests.web.player import view_as
from tests.web.test_play_page import served_routes

#: The narrowest phone the page is made for, and a laptop.
SIZES = {"360px": (360, 740), "1280px": (1280, 800)}

#: The analysis table's columns after the player's, as the API's seat fields.
COLUMNS = {"Accuracy": "accuracy", "Points lost": "expected_loss", "Inaccuracies": "inaccuracies",
           "Mistakes": "mistakes", "Blunders": "blunders", "Luck": "luck"}


@pytest.fixture(params=list(SIZES.values()), ids=list(SIZES))
def size(request: pytest.FixtureRequest) -> tuple[int, int]:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def analysed_game(live_server: str) -> dict[str, Any]:
    """A four-bot game played to its end by the move worker and analysed by the analysis
    worker: its public view and its analysis (one game for both window sizes)."""
    routes = served_routes(live_server)
    if "POST /v1/games/{game_id}/analysis" not in routes or "GET /v1/games/{game_id}/record" not in routes:
        pytest.skip("this server offers no analysis or no records (not in its document)")
    made = requests.post(f"{live_server}/v1/games", json={
        "players": [{"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}],
        "rules": {"preset": "classic", "hand_sizes": [3, 4, 5]}}, timeout=5).json()
    game_id = made["game_id"]
    deadline = time.monotonic() + PATIENCE
    while view_as(live_server, game_id)["status"] != "finished":
        assert time.monotonic() < deadline, "the move worker finishing the bot game"
        time.sleep(0.2)
    r = requests.post(f"{live_server}/v1/games/{game_id}/analysis", timeout=5)
    assert r.status_code in (200, 202), r.text
    deadline = time.monotonic() + PATIENCE
    while (analysis := requests.get(f"{live_server}/v1/games/{game_id}/analysis", timeout=5).json())["status"] != "done":
        assert time.monotonic() < deadline, "the analysis worker analysing the game"
        time.sleep(0.2)
    return {"view": view_as(live_server, game_id), "analysis": analysis}


def cells(page: Page, rows: str) -> list[dict[str, Any]]:
    """Each row ``rows`` finds: its cells' text, and the label a phone shows beside each
    (the ``::before`` content the stylesheet gives it, as ``"Luck" / ""``: the text shown,
    then what a screen reader reads of it; ``none`` without one)."""
    found: list[dict[str, Any]] = page.js(
        "return [...document.querySelectorAll(arguments[0])].map((tr) => ({...tr.dataset,"
        " cells: [...tr.cells].map((c) => ({text: c.textContent,"
        " label: getComputedStyle(c, '::before').content}))}));", rows)
    return found


def roles(page: Page, selector: str) -> list[str]:
    return [role for role, _ in page.read_out(selector)]


def laid_out_as_a_table(page: Page, table: str) -> bool:
    """Whether the table ``table`` finds is laid out as a table: each row's cells side by
    side on one line, each in its column, under its header."""
    return bool(page.js(
        "const t = document.querySelector(arguments[0]);"
        "const lefts = (tr) => [...tr.cells].map((c) => Math.round(c.getBoundingClientRect().left));"
        "const head = lefts(t.rows[0]);"
        "return [...t.rows].every((tr) => JSON.stringify(lefts(tr)) === JSON.stringify(head)"
        " && new Set([...tr.cells].map((c) => Math.round(c.getBoundingClientRect().top))).size === 1)"
        " && head.every((x, i) => i === 0 || x > head[i - 1]);", table))


def visual_lines(page: Page, selector: str) -> int:
    """How many lines the text in what ``selector`` finds takes on the screen."""
    found: int = page.js(
        "const texts = document.createTreeWalker(document.querySelector(arguments[0]), NodeFilter.SHOW_TEXT);"
        "const tops = new Set();"
        "for (let t = texts.nextNode(); t; t = texts.nextNode()) {"
        " const range = document.createRange(); range.selectNodeContents(t);"
        " for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top)); }"
        "return tops.size;", selector)
    return found


def close(shown: str, value: float) -> bool:
    """A number the page shows with one decimal (``toFixed(1)``), against the API's."""
    return shown != "–" and abs(float(shown) - value) <= 0.05 + 1e-9


def test_a_finished_games_tables_show_every_column_on_a_360_px_phone_and_stay_tables_on_a_laptop(
    browser: Callable[..., Page], live_server: str, analysed_game: dict[str, Any],
    size: tuple[int, int],
) -> None:
    view, analysis = analysed_game["view"], analysed_game["analysis"]
    game_id = view["game_id"]
    phone = size[0] < 600
    page = browser(*size)
    page.open(f"{live_server}/play/?game={game_id}&watch=1&pace=0")
    page.until(lambda: page.js("return !document.getElementById('analyse').hidden")
               and page.text("#final .sheet"), what="the final table with its score sheet")
    page.click("#analyse")  # analysed already: shown at once
    page.until(lambda: page.js("return document.querySelector('table.analysis-seats') !== null"),
               30, "the analysis shown")
    page.js("document.getElementById('scores').open = true;")

    # the analysis: every seat's every column, with the API's numbers
    table = "table.analysis-seats"
    assert page.js(f"return [...document.querySelector('{table}').rows[0].cells]"
                   ".map((c) => c.textContent)") == ["Player", *COLUMNS]
    rows = cells(page, f"{table} tr[data-seat]")
    assert [int(r["seat"]) for r in rows] == [s["seat"] for s in analysis["seats"]]
    for row, seat in zip(rows, analysis["seats"], strict=True):
        assert row["cells"][0]["text"] == view["players"][seat["seat"]]["name"] + " (bot)"
        shown = dict(zip(COLUMNS, (c["text"] for c in row["cells"][1:]), strict=True))
        for column in ("Accuracy", "Points lost", "Luck"):
            value = seat[COLUMNS[column]]
            assert shown[column] == "–" if value is None else close(shown[column], value), (column, shown, seat)
        assert [shown[c] for c in ("Inaccuracies", "Mistakes", "Blunders")] == \
            [str(seat[COLUMNS[c]]) for c in ("Inaccuracies", "Mistakes", "Blunders")]

    # the scores by round: a row per round, each player's score in it, and the totals
    players = view["players"]
    scores = cells(page, "#scores tbody tr, #scores tfoot tr")
    assert [[c["text"] for c in r["cells"]] for r in scores] == [
        [str(n + 1), *(str(p["round_scores"][n]) for p in players)] for n in range(3)] + [
        ["Total", *(str(p["total"]) for p in players)]]

    # the score sheet: the record's, line for line
    sheet = requests.get(f"{live_server}/v1/games/{game_id}/record",
                         headers={"Accept": "text/plain"}, timeout=5).text
    assert page.text("#final .sheet") == sheet
    written = len([line for line in sheet.split("\n") if line])

    if phone:
        # nothing past the window's edge, no box that scrolls sideways, every value seen
        page.assert_fits("on the final table")
        for part in ("#final", "#analysis", "#scores"):
            page.assert_inside(part, "on the final table")
        assert all(page.shown(f"{table} tr[data-seat] > *"))
        assert all(page.shown("#scores tbody th, #scores tbody td, #scores tfoot td"))
        assert all(page.shown("#final .sheet .line"))
        assert visual_lines(page, "#final .sheet") > written  # the long ones wrapped
        # each value beside its label: the column's name, or the player's for a score
        # (shown, not read out: the column's header, out of sight, already names it)
        for row in rows:
            assert [c["label"] for c in row["cells"][1:]] == [f'"{c}" / ""' for c in COLUMNS]
        names = [f'"{p["name"]} (bot)" / ""' for p in players]
        assert all([c["label"] for c in r["cells"][1:]] == names for r in scores)
        # still tables to a screen reader, as the browser computes it: the header row kept
        # for it, out of sight; rows of cells, each read as its value alone
        assert not any(page.shown(f"{table} thead th"))
        for part, headers, values in ((table, 7, [c["text"] for r in rows for c in r["cells"][1:]]),
                                      ("#scores table", 5, [c["text"] for r in scores for c in r["cells"][1:]])):
            assert roles(page, part) == ["table"]
            assert roles(page, f"{part} thead th") == ["columnheader"] * headers
            assert set(roles(page, f"{part} tbody th, {part} tfoot th")) == {"rowheader"}
            assert page.read_out(f"{part} tbody td, {part} tfoot td") == [("cell", v) for v in values]
        page.js("document.getElementById('analysis').scrollIntoView()")
        page.screenshot("play-phone-analysis.png")  # docs/play.md
    else:
        # the laptop's tables as they were: the header row on show, a row a line
        assert all(page.shown(f"{table} thead th"))
        assert laid_out_as_a_table(page, table) and laid_out_as_a_table(page, "#scores table")
        assert [c["label"] for r in rows for c in r["cells"]] == ["none"] * 7 * len(rows)
        # and the sheet's lines as written, none wrapped (a box of their own scrolls)
        assert visual_lines(page, "#final .sheet") == written
        page.assert_fits("on the final table")
    page.assert_clean()
