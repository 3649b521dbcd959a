"""The account's mistakes as puzzles on /play (docs/play.md), in a real headless Chromium
against gunicorn and Redis, on a 390 px phone: an account with an analysed game's mistakes filed (through the
service layer, on the live server's Redis, as the analysis worker files them) signs in,
follows "Your mistakes", sees its positions listed newest first, opens one, answers it
from the keyboard and reads the verdict (right, and the points it saves); the next one it
answers wrong and is told the best move. The automatic analysis switch shows its quota
and changes the account's setting."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from service.config import Config
from service.core.rules import preset_rules
from service.storage import Stores, redis_stores
from tests.conftest import redis_url_for_tests
from tests.web.conftest import Page
from tests.web.test_play_account import api, new_account, sign_in


@pytest.fixture
def live_stores(redis_server: str, live_server: str) -> Iterator[Stores]:
    """The service layer on the live server's Redis."""
    stores = redis_stores(Config(redis_url=redis_url_for_tests(redis_server, 3)))
    yield stores
    stores.close()


def puzzle(game_id: str, version: int, position: dict[str, Any], action: dict[str, Any],
           best: dict[str, Any], values: dict[str, float]) -> dict[str, Any]:
    """A mistake as the analysis worker files it (``service/play/mistakes.py``)."""
    regret = values[f"{action['type']}:{action.get('card') or action.get('source')}"] - min(
        values.values())
    return {"game_id": game_id, "version": version, "seat": 0, "regret": regret,
            "standard_error": 0.5, "judgement": "mistake", "action": action, "best": best,
            "values": values, "exact": False, "position": position, "preset": "classic",
            "rules": preset_rules("classic").to_dict(), "ended": "2026-12-06T10:00:00Z"}


DISCARD = {"round": 1, "hand_size": 3, "wild_rank": "3", "phase": "discard",
           "hand": ["4H", "5H", "9C", "KC"], "discard_top": "9D", "stock_count": 30}
DRAW = {"round": 1, "hand_size": 3, "wild_rank": "3", "phase": "draw",
        "hand": ["4H", "5H", "KC"], "discard_top": "6H", "stock_count": 31}


def test_an_account_opens_its_mistakes_answers_them_and_reads_each_verdict(
    browser: Callable[..., Page], live_server: str, live_stores: Stores,
) -> None:
    handle, key = new_account(live_server, "puz")
    game_id = f"g{secrets.token_hex(6)}"
    live_stores.mistakes.file(handle, game_id, round(time.time() * 1000), [
        puzzle(game_id, 7, DISCARD, {"type": "discard", "card": "4H"},
               {"type": "discard", "card": "KC"},
               {"discard:4H": 10.0, "discard:KC": 3.0, "discard:9C": 6.0}),
        puzzle(game_id, 6, DRAW, {"type": "draw", "source": "stock"},
               {"type": "draw", "source": "discard"},
               {"draw:stock": 8.0, "draw:discard": 2.5}),
    ])
    page = browser(390, 844)  # a phone: the position and the verdict fit it
    sign_in(page, live_server, key)
    page.until(lambda: page.js("return !document.getElementById('my-mistakes').hidden"),
               what="the link to the account's mistakes")
    page.click("#my-mistakes-link")
    page.until(lambda: page.js("return document.querySelectorAll('#mistakes-list li').length") == 2,
               what="the two mistakes listed")
    listed = page.js("return [...document.querySelectorAll('#mistakes-list li')]"
                     ".map((li) => [li.dataset.game, Number(li.dataset.version)])")
    assert listed == [[game_id, 7], [game_id, 6]]  # the latest decision first
    assert "5 of 5 left" not in page.text("#auto-quota")  # off: the quota is told, not left
    assert page.js("return document.getElementById('analyse-rated').checked") is False

    # the first: a discard, answered from the keyboard (Tab to the card, Enter)
    page.click("#mistakes-list li button")
    page.until(lambda: page.js("return !document.getElementById('puzzle').hidden"),
               what="the puzzle shown")
    assert page.js("return document.activeElement.id") == "puzzle-title"
    assert "Round 1: 3 cards, 3s wild" in page.text("#puzzle-title")
    hand = page.js("return [...document.querySelectorAll('#puzzle-hand button.card')]"
                   ".map((b) => [b.dataset.card, b.getAttribute('aria-label')])")
    assert hand == [["4H", "Discard 4 of hearts"], ["5H", "Discard 5 of hearts"],
                    ["9C", "Discard 9 of clubs"], ["KC", "Discard king of clubs"]]
    assert page.js("return document.querySelector('#puzzle-pile [data-card=\"9D\"]').tagName") == "SPAN"
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page.driver.find_element(By.CSS_SELECTOR, "#puzzle-hand [data-card='KC']").send_keys(Keys.ENTER)
    page.until(lambda: page.js("return document.getElementById('puzzle-verdict').dataset.correct"),
               what="the verdict")
    verdict = page.text("#puzzle-verdict")
    assert page.js("return document.getElementById('puzzle-verdict').dataset.correct") == "true"
    assert "Right: discard K♣ is the best move." in verdict
    assert "saves 7.0 points against what you played (discard 4♥)" in verdict
    assert page.js("return document.getElementById('puzzle-verdict').getAttribute('role')") == "status"
    page.assert_fits("with the verdict")
    page.assert_inside("#mistakes", "with the verdict")
    page.screenshot("play-mistakes.png")  # docs/play.md

    # the next: a draw, answered wrong (the stock, as played): the best is told
    page.click("#puzzle-next")
    page.until(lambda: page.js("return document.getElementById('puzzle').dataset.version") == "6",
               what="the next puzzle")
    assert page.js("return document.querySelectorAll('#puzzle-hand button').length") == 0
    page.click("#puzzle-pile button[aria-label='Draw from the stock']")
    page.until(lambda: page.js("return document.getElementById('puzzle-verdict').dataset.correct"),
               what="the second verdict")
    verdict = page.text("#puzzle-verdict")
    assert "Not the best move: take the pile's top card is." in verdict
    assert "saves nothing against what you played (draw from the stock)" in verdict
    assert "The best move saves 5.5 points" in verdict

    # the automatic analysis of rated games, switched on from the page
    page.click("#analyse-rated")
    page.until(lambda: "left in the last 24 hours" in page.text("#auto-quota"),
               what="the quota left, once switched on")
    assert api(live_server, "GET", "/v1/me", key)["analyse_rated"] is True
    page.assert_clean()
