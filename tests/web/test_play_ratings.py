"""Ratings on /play (issue 22, item 7) in a real headless Chromium against gunicorn, Redis
and ``python -m service.workers`` (whose rating worker thread applies the rated games):
an account's profile shows its rating in every preset and its history as a chart with
one point per rated game, reached from the signed-in account's own handle and linking
to the games, whose seats link back to the profiles; a leaderboard lists its entries in
rank order, a page at a time, for people and for bots. Nothing scrolls sideways on a
360 px phone, neither the page nor a table's box, and every column is on the screen; no
request fails."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

from service.config import Config
from service.core.instants import instant
from service.ratings import Rating
from service.storage import HistoryPoint, StoredRating, Stores, redis_stores
from tests.conftest import PATIENCE, redis_url_for_tests, wait_until
from tests.web.conftest import Page
from tests.web.test_play_account import api, new_account, sign_in

#: The narrowest phone the page is made for, and a laptop.
SIZES = {"360px": (360, 740), "1280px": (1280, 800)}


@pytest.fixture(params=list(SIZES.values()), ids=list(SIZES))
def size(request: pytest.FixtureRequest) -> tuple[int, int]:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def live_stores(redis_server: str, live_server: str) -> Iterator[Stores]:
    """The stores of the live server's Redis, to write ratings as the worker would."""
    stores = redis_stores(Config(redis_url=redis_url_for_tests(redis_server, 3)))
    yield stores
    stores.close()


def rated_game_resigned(base: str, challenger: tuple[str, str], opponent: tuple[str, str]) -> str:
    """A rated classic game between two accounts (a challenge, accepted), ended at once by
    the challenger resigning: the fastest rated game there is."""
    made = api(base, "POST", "/v1/challenges", challenger[1], 201, to=[opponent[0]],
               rules={"preset": "classic"}, turn_seconds=300, rated=True)
    game_id: str = api(base, "POST", f"/v1/challenges/{made['challenge_id']}/accept",
                       opponent[1])["game_id"]
    r = requests.post(f"{base}/v1/games/{game_id}/actions", json={"type": "resign"},
                      headers={"Authorization": f"Bearer {challenger[1]}",
                               "Idempotency-Key": secrets.token_hex(8)}, timeout=5)
    assert r.status_code == 200 and r.json()["status"] == "finished", r.text
    return game_id


def history(base: str, handle: str) -> list[dict[str, Any]]:
    r = requests.get(f"{base}/v1/accounts/{handle}/ratings/classic", timeout=5)
    assert r.status_code == 200, r.text
    return r.json()["history"]  # type: ignore[no-any-return]


def rows(page: Page, selector: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.js(
        "return [...document.querySelectorAll(arguments[0])].map(tr => ({...tr.dataset,"
        " cells: [...tr.cells].map(c => c.textContent.trim()),"
        " href: tr.querySelector('a')?.getAttribute('href')}));", selector)
    return found


def done(page: Page) -> None:
    page.assert_fits()
    page.assert_clean()


def test_the_profile_shows_the_ratings_and_a_chart_with_one_point_per_rated_game(
    browser: Callable[..., Page], live_server: str, size: tuple[int, int],
) -> None:
    ann, bob = new_account(live_server, "ann"), new_account(live_server, "bob")
    games = [rated_game_resigned(live_server, ann, bob) for _ in range(3)]
    # the rating worker of the live server's python -m service.workers applies them
    wait_until(lambda: len(history(live_server, ann[0])) == 3, PATIENCE, "three ratings applied")
    points = history(live_server, ann[0])
    assert [p["game_id"] for p in points] == games
    page = browser(*size)
    sign_in(page, live_server, ann[1])
    assert page.js("return document.getElementById('account-handle').getAttribute('href')") == \
        f"?pace=0&profile={ann[0]}"
    page.click("#account-handle")  # your own handle opens your profile
    page.until(lambda: page.data("historyPreset") == "classic", what="the profile's history")
    assert page.data("profile") == ann[0] and page.text("#profile-title") == ann[0]
    ratings = {r["preset"]: r for r in rows(page, "#profile-ratings tr")}
    assert set(ratings) == {"classic", "bga", "family"}
    classic = api(live_server, "GET", f"/v1/accounts/{ann[0]}", ann[1])["ratings"]["classic"]
    assert ratings["classic"]["cells"][1].split()[0] == str(round(classic["rating"]))
    assert ratings["classic"]["cells"][2:] == [str(round(classic["deviation"])), "3"]
    assert round(classic["rating"]) < 1500  # resigned three times: last each time
    # never played rated: the initial rating, marked provisional
    assert ratings["bga"]["cells"][1:] == ["1500 provisional", "350", "0"]
    assert ratings["bga"]["provisional"] == "true"
    assert ratings["classic"]["provisional"] == str(classic["provisional"]).lower()
    # the chart: one point per rated game, in order, with its title and description
    chart = page.js("const s = document.querySelector('#profile-history svg.rating-chart');"
                    "return {points: [...s.querySelectorAll('circle.point')].map(c => c.dataset.game),"
                    " title: s.querySelector('title').textContent, desc: s.querySelector('desc').textContent,"
                    " labelled: s.getAttribute('aria-labelledby'), band: s.querySelectorAll('.band').length,"
                    " width: s.getBoundingClientRect().width};")
    assert chart["points"] == games
    assert chart["title"] == f"{ann[0]}'s classic rating over 3 rated games"
    assert chart["desc"].startswith(f"From {round(points[0]['rating'])} after the first game to "
                                    f"{round(points[-1]['rating'])} ± {round(points[-1]['deviation'])}")
    assert chart["labelled"] == "rating-chart-title rating-chart-desc" and chart["band"] == 1
    assert chart["width"] <= size[0]
    # the same points as a table, each game a link that opens it as a spectator
    table = rows(page, "#profile-history details tbody tr")
    assert [(r["game"], r["cells"][2], r["cells"][3]) for r in table] == [
        (p["game_id"], "2 of 2", str(round(p["rating"]))) for p in points]
    assert table[0]["href"] == f"?pace=0&game={games[0]}&watch=1"
    page.assert_fits("on the profile")
    page.assert_inside("#profile", "on the profile")
    # another preset's history: none yet; the choice is kept in the address
    page.js("const s = document.getElementById('profile-preset'); s.value = 'bga';"
            "s.dispatchEvent(new Event('change'));")
    page.until(lambda: page.data("historyPreset") == "bga", what="bga's history")
    assert "No rated bga games yet" in page.text("#profile-history")
    assert page.driver.current_url.endswith(f"?pace=0&profile={ann[0]}&preset=bga")
    # a rated game, opened from the profile: its seats link to the players' profiles
    page.open(f"{live_server}/play/{table[-1]['href']}")  # the table's link to it
    page.until(lambda: page.data("live") == "true" and page.js(
        "return document.querySelectorAll('.seat a.name').length") == 2, what="the game's seats")
    assert sorted(page.js("return [...document.querySelectorAll('.seat a.name')].map(a => a.getAttribute('href'))")) \
        == sorted([f"?pace=0&profile={ann[0]}", f"?pace=0&profile={bob[0]}"])
    done(page)


def test_the_leaderboard_lists_its_entries_in_rank_order_a_page_at_a_time(
    browser: Callable[..., Page], live_server: str, live_stores: Stores, size: tuple[int, int],
) -> None:
    """An established rating takes many rated games (a deviation of 75 or less), so the
    ratings are written here through the rating store, as the rating worker writes them
    (``apply``, then ``rank``), in the live server's Redis: this tests the page, not the
    ratings (tests/play/test_ratings.py and tests/api do)."""
    now = time.time()
    tag = secrets.token_hex(3)
    handles = [new_account(live_server, f"lb{tag}x")[0] for _ in range(27)]
    # above anything on the board (an earlier run's too), so these are its top 27
    top = requests.get(f"{live_server}/v1/leaderboards/classic?limit=1", timeout=5).json()["entries"]
    base = max([3000, *(round(e["rating"]) + 10 for e in top)])
    for i, handle in enumerate(handles):
        rating, deviation = base + 10 * i, 40 + i  # established: 75 or less
        point = HistoryPoint(f"seed-{handle}", instant(now), rating, deviation, 1, 2, None)
        live_stores.ratings.apply(handle, "classic", f"seed-{handle}", StoredRating(
            Rating(rating, deviation, 0.06), 30 + i, now), point)
        live_stores.ratings.rank("classic", False, handle, rating)
    best_first = handles[::-1]
    page = browser(*size)
    page.open(f"{live_server}/play/?pace=0")
    page.until(lambda: page.js("return !document.getElementById('setup').hidden"), what="the home page")
    page.click("#nav-leaderboard")
    page.until(lambda: page.data("board") == "classic:false", what="the classic board")
    assert page.driver.current_url.endswith("/play/?pace=0&leaderboard=classic")
    shown = rows(page, "#board-entries tr")
    assert len(shown) == 25  # a page
    assert [r["handle"] for r in shown] == best_first[:25]
    assert [r["rank"] for r in shown] == [str(n) for n in range(1, 26)]
    assert shown[0]["cells"] == ["1", handles[-1], str(base + 260), "66", "56"]
    assert shown[0]["href"] == f"?pace=0&profile={handles[-1]}&preset=classic"
    page.assert_fits("on the first page")
    # every column of every entry on the screen, a phone's too: nothing past its edge, no
    # box scrolling sideways
    page.assert_inside("#leaderboard", "on the first page")
    assert all(page.shown("#board-entries td"))
    page.click("#board-more")
    page.until(lambda: len(rows(page, "#board-entries tr")) >= 27, what="the next page")
    shown = rows(page, "#board-entries tr")
    assert [r["handle"] for r in shown[:27]] == best_first
    assert [r["rank"] for r in shown] == [str(n) for n in range(1, len(shown) + 1)]
    ratings = [int(r["cells"][2]) for r in shown]
    assert ratings == sorted(ratings, reverse=True)
    # the bots' board: the reference bots, the anchors, marked so
    page.js("const s = document.getElementById('board-bot'); s.value = 'true';"
            "s.dispatchEvent(new Event('change'));")
    page.until(lambda: page.data("board") == "classic:true", what="the bots' board")
    assert page.driver.current_url.endswith("leaderboard=classic&bot=true")
    bots = rows(page, "#board-entries tr")
    assert {"greedy", "strong", "random"} <= {r["handle"] for r in bots}
    assert all(r["cells"][1].endswith(" reference") for r in bots if r["handle"] in ("greedy", "strong"))
    assert [int(r["cells"][2]) for r in bots] == sorted((int(r["cells"][2]) for r in bots), reverse=True)
    page.assert_fits("on the bots' board")
    page.assert_inside("#leaderboard", "on the bots' board")
    assert all(page.shown("#board-entries td"))
    # an entry opens its profile
    page.click(f'#board-entries tr[data-handle="{bots[0]["handle"]}"] a')
    page.until(lambda: page.data("profile") == bots[0]["handle"] and page.data("historyPreset"),
               what="the bot's profile")
    assert "reference bot" in page.text("#profile-kind")
    done(page)


def eventually(check: Callable[[], list[str]], timeout: float, what: str) -> list[str]:
    """What ``check`` answers once it is not empty (polled every 100 ms)."""
    deadline = time.monotonic() + timeout
    while not (found := check()):
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.1)
    return found


def ladder_games(base: str, handle: str) -> list[str]:
    r = requests.get(f"{base}/v1/ladder/classic", timeout=5)
    assert r.status_code == 200, r.text
    return [g["game_id"] for g in r.json()["games"] if handle in g["players"]]


def resign(base: str, key: str, game_id: str) -> None:
    r = requests.post(f"{base}/v1/games/{game_id}/actions", json={"type": "resign"},
                      headers={"Authorization": f"Bearer {key}",
                               "Idempotency-Key": secrets.token_hex(8)}, timeout=5)
    assert r.status_code in (200, 409), r.text  # 409: the game ended meanwhile


def test_the_ladder_lists_its_games_in_play_as_they_change_each_with_a_link_to_watch_it(
    browser: Callable[..., Page], live_server: str, size: tuple[int, int],
) -> None:
    handle = f"lad{secrets.token_hex(4)}"
    r = requests.post(f"{live_server}/v1/accounts", json={"handle": handle, "bot": True}, timeout=5)
    assert r.status_code == 201, r.text
    key = r.json()["key"]
    api(live_server, "PUT", "/v1/me/ladder/classic", key, min_players=2, max_players=2,
        games_at_once=1)
    try:
        # the move worker pairs the ladder every 2 s: our bot against a reference bot
        first = eventually(lambda: ladder_games(live_server, handle), PATIENCE, "a ladder game")[0]
        page = browser(*size)
        page.open(f"{live_server}/play/?pace=0")
        page.until(lambda: page.js("return !document.getElementById('setup').hidden"), what="the home page")
        page.click("#nav-ladder")
        page.until(lambda: page.js("return !!document.querySelector(arguments[0])",
                                   f'#ladder-games li[data-game="{first}"]'), what="the game listed")
        assert page.driver.current_url.endswith("/play/?pace=0&ladder=classic")
        members = rows(page, "#ladder-members tr")
        assert handle in [m["handle"] for m in members]
        assert [m["cells"][2] for m in members if m["handle"] == handle] == ["1 of 1"]
        assert all(m["cells"][0].endswith(" reference") for m in members
                   if m["handle"] in ("greedy", "strong", "random"))
        page.assert_fits("on the ladder")
        page.assert_inside("#ladder", "on the ladder")
        # the game ends (our bot resigns): the next pass seats another, and the page,
        # reading the ladder again on its timer, lists that one instead
        page.js("window.__same_page = true;")
        resign(live_server, key, first)
        second = eventually(lambda: [g for g in ladder_games(live_server, handle) if g != first],
                            PATIENCE, "the next ladder game")[0]
        page.until(lambda: page.js("return [...document.querySelectorAll('#ladder-games li')]"
                                   ".map(li => li.dataset.game).includes(arguments[0])", second)
                   and not page.js("return !!document.querySelector(arguments[0])",
                                   f'#ladder-games li[data-game="{first}"]'), PATIENCE,
                   what="the ladder refreshed")
        assert page.js("return window.__same_page") is True
        watch = f'#ladder-games li[data-game="{second}"] a.watch'
        assert page.js("return document.querySelector(arguments[0]).getAttribute('href')", watch) == \
            f"?pace=0&game={second}&watch=1"
        page.click(watch)
        page.until(lambda: page.data("game") == second and page.data("live") == "true",
                   what="the game, watched")
        assert page.data("seat") == "spectator"
        done(page)
    finally:  # off the ladder, its last game ended: nothing left running for later tests
        requests.delete(f"{live_server}/v1/me/ladder/classic",
                        headers={"Authorization": f"Bearer {key}"}, timeout=5)
        for game_id in ladder_games(live_server, handle):
            resign(live_server, key, game_id)
