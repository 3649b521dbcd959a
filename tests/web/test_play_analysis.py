"""The final table's analysis in /play, in a real Chromium against gunicorn with a move
worker and an analysis worker: a finished bot game opened as a spectator offers the
analysis; one click asks for it, the page follows it to the end and shows each seat's
accuracy, a chart of each seat's expected loss over the game, and the mistakes and
blunders with what was better; a click on one shows the position before it (a
spectator sees the public table and the card counts, no hand)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
import requests

from tests.conftest import PATIENCE
from tests.web.conftest import Page
from tests.web.test_play_page import served_routes

#: `random` makes mistakes in nearly every game of these rounds (a game without one is
#: checked for the page's saying so instead)
RULES = {"preset": "classic", "hand_sizes": [3, 5, 7, 9]}


def finished_bot_game(base: str) -> str:
    made = requests.post(f"{base}/v1/games", json={
        "players": [{"bot": "random"}, {"bot": "greedy"}], "rules": RULES}, timeout=5).json()
    game_id = made["game_id"]
    deadline = time.monotonic() + PATIENCE
    while requests.get(f"{base}/v1/games/{game_id}", timeout=5).json()["status"] != "finished":
        assert time.monotonic() < deadline, "the move worker finishing the bot game"
        time.sleep(0.2)
    return game_id


def test_a_finished_games_analysis_is_asked_for_followed_and_shown_with_its_worst_moves(
    browser: Callable[..., Page], live_server: str,
) -> None:
    if "POST /v1/games/{game_id}/analysis" not in served_routes(live_server):
        pytest.skip("this server offers no analysis (not in its document)")
    game_id = finished_bot_game(live_server)
    page = browser()
    page.open(f"{live_server}/play/?game={game_id}&watch=1&pace=0")
    shown = "return !document.getElementById(arguments[0]).hidden;"
    page.until(lambda: page.js(shown, "analysis") and page.js(shown, "analyse"),
               what="the analysis offered on the final table")
    page.click("#analyse")
    page.until(lambda: page.js("return document.querySelector('table.analysis-seats') !== null"),
               PATIENCE, "the analysis done and shown")
    assert page.js("return document.querySelectorAll('table.analysis-seats tr[data-seat]').length") == 2
    assert page.js("return document.querySelectorAll('svg.loss-chart polyline').length") == 2
    done = requests.get(f"{live_server}/v1/games/{game_id}/analysis", timeout=5).json()
    worst = [d for d in done["decisions"] if d["judgement"] in ("mistake", "blunder")]
    if not worst:
        assert "No mistake and no blunder" in page.text("#analysis")
        page.assert_clean()
        return
    items = page.js("return [...document.querySelectorAll('.analysis-moves li')]"
                    ".map((li) => Number(li.dataset.version))")
    assert items == [d["version"] for d in worst]
    page.click(".analysis-moves li button")
    page.until(lambda: "Before move" in page.text("#analysis-position"),
               what="the position before the first of them")
    position = page.text("#analysis-position")
    assert f"Before move {worst[0]['version'] + 1}" in position
    assert "held" in position and "hidden from this seat" in position  # a spectator's
    assert not page.js(shown, "analyse")
    page.js("document.getElementById('analysis').scrollIntoView()")
    page.screenshot("play-analysis.png")  # docs/play.md
    page.assert_clean()
