"""A tournament's page on /play (issue 22, item 5) in a real headless Chromium against
gunicorn, Redis and ``python -m service.workers`` (whose move workers pair the rounds):
reached from the header's list of tournaments, it follows a Swiss tournament of four
accounts at two-seat tables by itself, from open to finished, while its games are
played over HTTP with the entrants' keys: its standings equal the API's after each
round, the next round's tables appear, a table's "Watch" opens its game as a spectator,
and once the tournament is over the page stops reading it. Nothing scrolls sideways on a
360 px phone, no request fails and nothing is logged as an error."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

import pytest
import requests

from tests.conftest import PATIENCE
from tests.web.conftest import Page
from tests.web.test_play_account import api, new_account
from tests.web.test_play_ratings import rows

#: The narrowest phone the page is made for, and a laptop.
SIZES = {"360px": (360, 740), "1280px": (1280, 800)}

#: One round of 3 cards, at most 3 turns each: a game is a few requests.
SHORT = {"preset": "classic", "hand_sizes": [3], "turn_limit": 3}


@pytest.fixture(params=list(SIZES.values()), ids=list(SIZES))
def size(request: pytest.FixtureRequest) -> tuple[int, int]:
    return request.param  # type: ignore[no-any-return]


def tournament(base: str, tid: str) -> dict[str, Any]:
    r = requests.get(f"{base}/v1/tournaments/{tid}", timeout=5)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def wait_for(base: str, tid: str, ready: Callable[[dict[str, Any]], bool],
             seconds: float = PATIENCE) -> dict[str, Any]:
    """The tournament once ``ready(t)``: the live server's move worker pairs it meanwhile."""
    deadline = time.monotonic() + seconds
    while not ready(t := tournament(base, tid)):
        assert time.monotonic() < deadline, f"the tournament did not get there: {t}"
        time.sleep(0.1)
    return t


def game_view(base: str, game_id: str, key: str | None = None,
              seconds: float = PATIENCE) -> dict[str, Any]:
    """The game's view once it exists (a round is stored before its games are created)."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    deadline = time.monotonic() + seconds
    while (r := requests.get(f"{base}/v1/games/{game_id}", headers=headers, timeout=5)).status_code == 404:
        assert time.monotonic() < deadline, f"game {game_id} was never created"
        time.sleep(0.1)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def play_round(base: str, t: dict[str, Any], keys: dict[str, str]) -> None:
    """Play every game of ``t``'s last round to its end, the first legal action each turn,
    with the key of the account whose turn it is."""
    for table in t["played"][-1]["tables"]:
        while (view := game_view(base, table["game_id"]))["status"] != "finished":
            key = keys[view["players"][view["round"]["current_seat"]]["account"]]
            mine = game_view(base, table["game_id"], key)
            api(base, "POST", f"/v1/games/{table['game_id']}/actions", key, **mine["legal_actions"][0])


def standings(t: dict[str, Any]) -> list[list[str]]:
    """The API's standings as the page's table writes them."""
    return [[str(s["place"]), s["handle"], f"{s['points']:g}", f"{s['buchholz']:g}", str(s["total"]),
             str(s["games"])] for s in t["standings"]]


def shown_standings(page: Page) -> list[list[str]]:
    return [r["cells"] for r in rows(page, "#tournament-standings tr")]


def shown_tables(page: Page, round_number: int) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.js(
        "return [...document.querySelectorAll(arguments[0])].map(li => ({game: li.dataset.game,"
        " players: [...li.querySelectorAll('a:not(.watch)')].map(a => a.textContent),"
        " watch: li.querySelector('a.watch').getAttribute('href')}));",
        f'#tournament-rounds .round[data-round="{round_number}"] li')
    return found


def reads(page: Page, tid: str) -> int:
    """How many times the page has read the tournament so far."""
    page.read_logs()
    return sum(url.endswith(f"/v1/tournaments/{tid}") for url in page.urls.values())


def test_a_tournaments_page_follows_it_live_from_open_to_finished(
    browser: Callable[..., Page], live_server: str, size: tuple[int, int],
) -> None:
    accounts = [new_account(live_server, "tn") for _ in range(4)]
    keys = dict(accounts)
    handles = [h for h, _ in accounts]
    creator = accounts[0][1]
    name = f"Cup {secrets.token_hex(3)}"
    tid = api(live_server, "POST", "/v1/tournaments", creator, 201, name=name, system="swiss",
              seats=2, rounds=2, rules=SHORT, turn_seconds=600, rated=False,
              entrants=handles)["tournament_id"]
    for _, key in accounts[1:]:  # the invited accept
        api(live_server, "POST", f"/v1/tournaments/{tid}/join", key)

    # the header's link to the tournaments, and this one listed among the open ones
    page = browser(*size)
    page.open(f"{live_server}/play/?pace=0")
    page.until(lambda: page.js("return !document.getElementById('setup').hidden"), what="the home page")
    assert page.js("return document.getElementById('nav-tournaments').getAttribute('href')") == "?pace=0&tournaments"
    page.click("#nav-tournaments")
    page.until(lambda: page.data("tournaments") == "shown", what="the tournaments")
    assert page.driver.current_url.endswith("/play/?pace=0&tournaments")
    entry = f'#tournaments-open li[data-tournament="{tid}"] a'
    assert page.js("return document.querySelector(arguments[0])?.getAttribute('href')", entry) == \
        f"?pace=0&tournament={tid}"
    assert "Swiss, 2 a table · 4 entrants" in page.text(f'#tournaments-open li[data-tournament="{tid}"]')
    page.assert_fits("on the list")
    page.click(entry)
    page.until(lambda: page.data("tournament") == "open:0:0", what="the open tournament")
    assert page.text("#tournament-title") == name and page.text("#tournament-system") == "Swiss"
    assert page.text("#tournament-status") == "open"
    assert page.js("return [...document.querySelectorAll('#tournament-entrants a')].map(a => a.textContent)") \
        == handles

    # started over HTTP: the page shows round 1 by itself, without a reload
    page.js("window.__same_page = true;")
    api(live_server, "POST", f"/v1/tournaments/{tid}/start", creator)
    t = wait_for(live_server, tid, lambda t: len(t["played"]) == 1)
    page.until(lambda: page.data("tournament") == "running:1:0", what="round 1")
    assert page.text("#tournament-status") == "running"
    assert [(x["game"], x["players"]) for x in shown_tables(page, 1)] == \
        [(x["game_id"], x["players"]) for x in t["played"][0]["tables"]]
    assert shown_standings(page) == standings(t)
    page.assert_fits("in round 1")

    # round 1 played: the standings follow, and round 2's tables appear
    play_round(live_server, t, keys)
    t = wait_for(live_server, tid, lambda t: len(t["played"]) == 2)
    page.until(lambda: page.data("tournament") == "running:2:2" and shown_standings(page) == standings(t),
               what="the standings after round 1")
    # a point a table: a win, or a half each for a tie
    points = sorted(s["points"] for s in t["standings"])
    assert sum(points) == 2 and set(points) <= {0, 0.5, 1}, points
    tables = shown_tables(page, 2)
    assert [(x["game"], x["players"]) for x in tables] == \
        [(x["game_id"], x["players"]) for x in t["played"][1]["tables"]]
    assert all(x["watch"] == f"?pace=0&game={x['game']}&watch=1" for x in tables)
    assert page.js("return window.__same_page") is True
    page.assert_fits("in round 2")
    # the standings fit the phone too: every column on the screen, no box scrolling sideways
    page.assert_inside("#tournament-standings-box", "in round 2")

    # Watch: round 2's first game, opened as a spectator while it is played
    game_view(live_server, tables[0]["game"])
    page.click(f'#tournament-rounds li[data-game="{tables[0]["game"]}"] a.watch')
    page.until(lambda: page.data("game") == tables[0]["game"] and page.data("live") == "true",
               what="the game, watched")
    assert page.data("seat") == "spectator"
    page.assert_fits("watching")
    page.driver.back()
    page.until(lambda: page.data("tournament") == "running:2:2", what="back on the tournament")

    # round 2 played: the final standings, and then no more reads
    play_round(live_server, t, keys)
    t = wait_for(live_server, tid, lambda t: t["status"] == "finished")
    page.until(lambda: page.data("tournament") == "finished:2:4" and shown_standings(page) == standings(t),
               what="the final standings")
    assert page.text("#tournament-standings-title") == "Final standings"
    assert page.text("#tournament-progress") == f"won by {t['standings'][0]['handle']} after 2 rounds"
    assert rows(page, "#tournament-standings tr")[0]["href"] == f"?pace=0&profile={t['standings'][0]['handle']}"
    before = reads(page, tid)
    time.sleep(3.5)  # more than the page's 3 s between reads
    assert reads(page, tid) == before
    page.assert_fits("once finished")
    page.assert_clean()
