"""The /play page in a real headless Chromium against gunicorn (gevent) and Redis: games
played by clicking, a spectator following live, a reload resuming the seat, two profiles
kept apart, the page from another origin; no request fails and the console stays clean."""

from __future__ import annotations

import itertools
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import requests

from service.bots import GreedyBot
from service.client import Client
from tests.conftest import PATIENCE, ROOT
from tests.web.conftest import Page
from tests.web.player import (
    act_as,
    create_from_form,
    dismiss_round_end,
    play_turn,
    seat_token,
    view_as,
    wait_for_turn,
)

#: Milliseconds the page waits between an opponent's moves (``?pace=``): short, so the
#: tests are quick, long enough to measure that moves appear one by one.
PACE = 150

#: Records each line the page adds to its move log, with its time. Installed once the page
#: follows live (``data-live``: the stream's replay of earlier moves is shown at once).
RECORD_LOG = """
window.__log = [];
new MutationObserver((changes) => {
  for (const c of changes) for (const n of c.addedNodes)
    window.__log.push({type: n.dataset.type, text: n.textContent, t: performance.now()});
}).observe(document.getElementById('log'), {childList: true});
"""


def paced_pairs(page: Page, mover: str, earlier: list[dict[str, Any]] = ()) -> list[float]:  # type: ignore[assignment]
    """The gaps (ms) between a mover's draw and the discard that follows it, as the page
    added them to its log while it followed live (``earlier``: before a reload)."""
    log = [*earlier, {"type": "reload", "text": "", "t": 0}, *page.js("return window.__log;")]
    mine = [e for e in log if e["text"].startswith(mover)]
    return [b["t"] - a["t"] for a, b in itertools.pairwise(mine)
            if a["type"] == "draw" and b["type"] == "discard"]


def check_hand_marks_and_solver(page: Page, base: str, game_id: str) -> None:
    """The page's hand, its wild marks, its arrangement and its hint are the solver's."""
    view = view_as(base, game_id, seat_token(page, game_id)["token"])
    wild = view["round"]["wild_rank"]
    marked = page.js("return Object.fromEntries([...document.querySelectorAll('#hand .card')]"
                     ".map(c => [c.dataset.card, c.classList.contains('wild')]));")
    assert marked == {c: c == "JK" or c[0] == wild for c in view["you"]["hand"]}
    solved = requests.post(f"{base}/v1/solve", json={
        "hand": view["you"]["hand"], "round": view["round"]["number"], "rules": view["rules"]},
        timeout=5).json()
    groups = page.js("return [...document.querySelectorAll('#hand .meld')]"
                     ".map(m => [...m.children].map(c => c.dataset.card));")
    assert groups == solved["melds"]
    assert page.text("#hand .penalty").strip() == f"deadwood {solved['penalty']}"
    hints = page.js("return [...document.querySelectorAll('#hint-box li')].map(li => li.textContent);")
    assert [h.split(": penalty ")[1].split(" ")[0] for h in hints] == \
        [str(d["penalty"]) for d in solved["discards"]]


def test_a_whole_game_against_a_bot_is_played_by_clicking_to_the_final_table_as_a_spectator_follows(
    browser: Callable[..., Page], live_server: str,
) -> None:
    player = browser(1280, 800)
    spectator = browser(390, 844)  # a phone-sized screen
    # the round's result holds until closed here (the test closes it after its screenshot)
    game_id = create_from_form(player, f"{live_server}/play?pace={PACE}&linger=60000", "2", ["greedy"],
                               name="ann")
    player.until(lambda: player.data("live") == "true", what="the player following live")
    player.js(RECORD_LOG)
    spectator.open(f"{live_server}/play/?game={game_id}&watch=1&pace={PACE}")
    spectator.until(lambda: spectator.data("live") == "true", what="the spectator following live")
    spectator.js(RECORD_LOG)
    # every version the spectator's page shows, as it shows it (a short game gives the
    # loop below few turns to sample it at)
    spectator.js("window.__versions = new Set([document.body.dataset.version]);"
                 "new MutationObserver(() => window.__versions.add(document.body.dataset.version))"
                 ".observe(document.body, {attributes: true, attributeFilter: ['data-version']});")
    shots: set[str] = set()
    spectator_versions: set[str] = set()
    reloaded = False
    before_reload: list[dict[str, Any]] = []
    while True:
        player.until(lambda: player.data("dialog") or player.data("yourTurn") == "true"
                     or player.data("status") == "finished", PATIENCE, "a turn")
        spectator_versions.add(spectator.data("version"))  # type: ignore[arg-type]
        dismiss_round_end(spectator)  # a human plays: the spectator's result waits for a click
        if player.data("dialog"):
            if "round-end" not in shots:
                # the round's result, with the next round's hand kept out of sight under it
                assert "Round 1 ended" in player.text("#round-end")
                assert player.js("return document.getElementById('hand').getClientRects().length") == 0
                player.screenshot("play-round-end.png")
                shots.add("round-end")
            dismiss_round_end(player)
            continue
        if player.data("status") == "finished":
            break
        round_number = player.data("round")
        if player.data("yourTurn") == "true" and "turn" not in shots and len(player.hand()) > 3:
            player.click("#arrange")
            player.click("#hint")
            player.until(lambda: player.text("#hint-box"), what="the hint")
            player.until(lambda: player.js("return document.querySelector('#hand .meld, #hand .deadwood') !== null"),
                          what="the arranged hand")
            check_hand_marks_and_solver(player, live_server, game_id)
            player.screenshot("play-your-turn.png")
            shots.add("turn")
        if "phone" not in shots and round_number == "2" and \
                spectator.js("return document.querySelector('#felt .move') !== null"):
            # at rest: no card in flight, no move line still flashing
            spectator.until(lambda: spectator.js("return document.getAnimations().length === 0"),
                            what="the table at rest")
            spectator.screenshot("play-phone.png")
            shots.add("phone")
        if round_number == "2" and not reloaded:
            hand = player.hand()
            before_reload = player.js("return window.__log;")
            player.driver.refresh()  # the middle of the game: the seat resumes from localStorage
            player.until(lambda: player.data("version") is not None, what="the view after reload")
            # the same seat and hand (shown sorted again: "Arrange melds" is not kept)
            assert player.data("seat") == "0" and sorted(player.hand()) == sorted(hand)
            player.until(lambda: player.data("live") == "true", what="live again after reload")
            # the reload does not show the round's result again: it was read
            assert player.data("dialog") is None
            player.js(RECORD_LOG)
            reloaded = True
            continue
        play_turn(player)

    final = player.text("#final")
    assert "Final table" in final and "Seed" in final
    assert player.js("return document.querySelectorAll('#final svg.chart polyline').length") == 2
    player.js("document.getElementById('final').scrollIntoView()")
    player.screenshot("play-final-table.png")
    assert reloaded and shots >= {"turn", "round-end"}, shots

    def spectator_at_the_end() -> bool:
        dismiss_round_end(spectator)
        return spectator.data("status") == "finished"

    spectator.until(spectator_at_the_end, what="the spectator's end")
    dismiss_round_end(spectator)
    assert "Final table" in spectator.text("#final")
    assert spectator.data("seat") == spectator.data("viewSeat") == "spectator"
    assert spectator.js("return document.getElementById('hand-area').hidden") is True
    assert spectator.hand() == []
    # readable on the phone-sized window: nothing wider than the screen
    spectator.assert_fits("on the final table")
    player.assert_fits("on the final table")
    # live: the spectator saw the game move on, view by view, not only its end
    spectator_versions |= set(spectator.js("return [...window.__versions];"))
    assert len(spectator_versions) >= 4, spectator_versions
    # every move reached both pages; the player's log was rebuilt after the reload
    count = "return document.querySelectorAll('#log li').length"
    player.until(lambda: player.js(count) == spectator.js(count) and
                 player.js("return document.querySelector('#log li').dataset.type") == "game_finished",
                 what="both logs ending with the game's end")
    # the bot's draw and discard appeared one after the other, not at once: on every page
    # for every such turn it saw whole (the player's reload may split one), and on the
    # spectator's (which followed the whole game) for at least one, unless the random deal
    # had the bot go out on each of its turns (a go-out is one event: nothing to pace)
    bot_discards = [e for e in Client(live_server).events(game_id)[0]
                    if e["type"] == "discard" and e["seat"] == 1]
    for page, earlier in ((player, before_reload), (spectator, [])):
        gaps = paced_pairs(page, "greedy (bot)", earlier)
        assert all(gap >= PACE * 0.8 for gap in gaps), gaps
        if page is spectator:
            assert gaps or not bot_discards, (gaps, len(bot_discards))
    # the seat's token stayed in the player's profile: the spectator's page never had it
    token = seat_token(player, game_id)["token"]
    assert token not in spectator.js("return JSON.stringify(localStorage);")
    assert view_as(live_server, game_id, token)["you"]["seat"] == 0
    player.assert_clean()
    spectator.assert_clean()


def test_two_seats_in_two_browser_profiles_never_see_each_others_hand(
    browser: Callable[..., Page], live_server: str,
) -> None:
    ann, bob = browser(), browser()
    game_id = create_from_form(ann, f"{live_server}/play?pace=0", "1", [""])
    bob.open(f"{live_server}/play/")
    # the form is in the HTML from the start, but hidden until the page has set it up
    bob.until(lambda: bob.js("return !document.getElementById('setup').hidden"), what="the form")
    bob.js("const f = document.getElementById('join').elements;"
           "f.game.value = arguments[0]; f.name.value = 'bob';", game_id)
    bob.click("#claim")
    bob.until(lambda: bob.data("seat") == "1" and bob.data("version") is not None,
              what="bob's seat")
    tokens = {0: seat_token(ann, game_id)["token"], 1: seat_token(bob, game_id)["token"]}
    assert tokens[0] != tokens[1]
    assert seat_token(bob, game_id)["seat"] == 1
    pages = {0: ann, 1: bob}
    for _ in range(12):
        view = view_as(live_server, game_id)
        if view["status"] == "finished":
            break
        mover = view["round"]["current_seat"]
        for seat, page in pages.items():
            own = view_as(live_server, game_id, tokens[seat])
            page.until(lambda p=page, v=own: p.data("version") == str(v["version"]),
                       what="the page catching up")
            other = view_as(live_server, game_id, tokens[1 - seat])["you"]["hand"]
            assert sorted(page.hand()) == sorted(own["you"]["hand"])
            assert page.data("viewSeat") == str(seat)  # every view the page showed was its own
            if sorted(other) != sorted(own["you"]["hand"]):
                assert sorted(page.hand()) != sorted(other)
            stored = page.js("return JSON.stringify(localStorage);")
            assert tokens[1 - seat] not in stored
        wait_for_turn(pages[mover])
        play_turn(pages[mover])
    ann.assert_clean()
    bob.assert_clean()


def test_the_page_served_from_another_origin_plays_through_cors_and_stream_tickets(
    browser: Callable[..., Page], live_server: str, other_origin: str,
) -> None:
    page = browser(390, 844)
    page.open(f"{other_origin}/index.html?api={live_server}&pace=0")
    page.until(lambda: page.js("return document.querySelector('#create [name=turn_seconds]')"),
               what="the form")
    page.js("document.querySelector('#create [name=turn_seconds]').value = '600';")
    create_from_form(page, None, "1", ["greedy"])  # goes out early: a short game
    assert page.js("return location.origin") != live_server
    page.until(lambda: page.text("#clock").endswith("s left"), what="the turn clock")
    while wait_for_turn(page):
        play_turn(page)
    assert "Final table" in page.text("#final")
    page.assert_fits("on a phone")
    page.read_logs()
    requested = list(page.urls.values())
    assert any("/stream-tickets" in url for url in requested)
    assert any(url.startswith(f"{live_server}/v1/games/") and "/stream?" in url for url in requested)
    page.assert_clean()


def served_routes(base: str) -> set[str]:
    """The routes the server's own document lists, as "METHOD /path"."""
    paths = requests.get(f"{base}/openapi.json", timeout=5).json()["paths"]
    return {f"{m.upper()} {p}" for p, ops in paths.items() for m in ops}


def test_a_game_is_opened_from_the_lobby_by_taking_its_open_seat_then_watched(
    browser: Callable[..., Page], live_server: str,
) -> None:
    if "GET /v1/games" not in served_routes(live_server):
        pytest.skip("this server has no lobby (GET /v1/games is not in its document)")
    r = requests.post(f"{live_server}/v1/games", json={
        "players": [{"name": "ann"}, {"name": None}], "rules": {"hand_sizes": [3]}}, timeout=5)
    assert r.status_code == 201
    game_id = r.json()["game_id"]
    page = browser()
    page.open(f"{live_server}/play/?pace=0")
    page.until(lambda: page.js("return !document.getElementById('lobby').hidden"), what="the lobby")
    page.click("#lobby-refresh")
    entry = f'#lobby-games li[data-game="{game_id}"]'
    page.until(lambda: page.js("return document.querySelector(arguments[0]) !== null", entry),
               what="the open game in the lobby")
    page.click(f"{entry} button")
    page.until(lambda: page.data("seat") == "1" and page.data("version") is not None,
               what="the seat taken from the lobby")
    assert len(page.hand()) == 3
    assert seat_token(page, game_id)["seat"] == 1
    page.assert_clean()

    watcher = browser()
    watcher.open(f"{live_server}/play/")
    watcher.until(lambda: watcher.js("return !document.getElementById('lobby').hidden"),
                  what="the lobby")
    watcher.js("const s = document.getElementById('lobby-status'); s.value = 'in_progress';"
               "s.dispatchEvent(new Event('change'));")
    watcher.until(lambda: watcher.js("return document.querySelector(arguments[0] + ' a') !== null",
                                     entry), what="the game among those being played")
    watcher.click(f"{entry} a")
    watcher.until(lambda: watcher.data("seat") == "spectator" and watcher.data("version") is not None,
                  what="the spectator's view")
    assert watcher.hand() == []
    watcher.assert_clean()


def test_the_final_table_shows_the_records_score_sheet_and_the_record_verifies(
    browser: Callable[..., Page], live_server: str, tmp_path: Path,
) -> None:
    if "GET /v1/games/{game_id}/record" not in served_routes(live_server):
        pytest.skip("this server keeps no records (GET /v1/games/{id}/record is not in its document)")
    page = browser()
    # greedy goes out early (random plays all 30 turns of the round): the same record, sooner
    game_id = create_from_form(page, f"{live_server}/play?pace=0", "1", ["greedy"])
    while wait_for_turn(page):
        play_turn(page)
    page.until(lambda: page.text("#final .sheet"), what="the score sheet")
    assert game_id in page.text("#final .sheet")
    link = page.js("return document.querySelector('#final a[download]').href")
    assert link == f"{live_server}/v1/games/{game_id}/record"
    assert f"python -m service.verify {game_id}.json" in page.text("#final")
    record = tmp_path / f"{game_id}.json"
    record.write_bytes(requests.get(link, timeout=5).content)
    verified = subprocess.run([sys.executable, "-m", "service.verify", str(record)],
                              cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    page.assert_clean()


def test_resigning_against_bots_ends_the_game_at_once_and_offers_no_rematch(
    browser: Callable[..., Page], live_server: str,
) -> None:
    page = browser()
    create_from_form(page, f"{live_server}/play?pace=0", "2", ["greedy"])
    shown = "return !document.getElementById(arguments[0]).hidden;"
    page.until(lambda: page.js(shown, "resign"), what="the resign button")
    page.click("#resign")
    assert "Click again" in page.text("#resign") and page.data("status") == "in_progress"
    page.click("#resign")
    # the bot is the last player standing: it wins at once, the round in play unscored
    page.until(lambda: page.data("status") == "finished", PATIENCE, "the game's end")
    assert "resigned" in page.text("#final")
    assert "everyone but greedy (bot) resigned" in page.text("#final .finish-reason")
    assert not page.js(shown, "resign")
    assert not page.js(shown, "rematch-box")  # a resigned player is not asked
    page.assert_clean()


def test_aborting_before_the_first_move_ends_the_game_with_no_result(
    browser: Callable[..., Page], live_server: str,
) -> None:
    page = browser()
    create_from_form(page, f"{live_server}/play?pace=0", "1", ["greedy"])
    shown = "return !document.getElementById(arguments[0]).hidden;"
    page.until(lambda: page.js(shown, "abort"), what="the abort button")
    page.click("#abort")
    page.until(lambda: page.data("status") == "finished", PATIENCE, "the game's end")
    assert "no result" in page.text("#final")
    assert not page.js(shown, "abort") and not page.js(shown, "resign")
    page.assert_clean()


def test_the_rematch_on_the_final_table_opens_as_the_same_seat(
    browser: Callable[..., Page], live_server: str,
) -> None:
    page = browser()
    game_id = create_from_form(page, f"{live_server}/play?pace=0", "1", ["greedy"])
    shown = "return !document.getElementById(arguments[0]).hidden;"
    token = seat_token(page, game_id)["token"]
    while view_as(live_server, game_id)["status"] != "finished":  # ann plays greedy's moves
        mine = view_as(live_server, game_id, token)
        if mine["legal_actions"]:
            act_as(live_server, game_id, token, GreedyBot().choose(mine))
        else:
            time.sleep(0.02)
    # the button sits in a box hidden until the page's own view of the end arrives
    page.until(lambda: page.data("status") == "finished" and page.js(shown, "rematch-box")
               and page.js(shown, "rematch"), what="the rematch button")
    dismiss_round_end(page)  # the last round's result, over the final table
    page.click("#rematch")  # the bot accepts at once, so the rematch starts now
    page.until(lambda: page.data("game") != game_id and page.data("status") == "in_progress",
               what="the rematch's view")
    new_id = page.data("game")
    assert view_as(live_server, game_id)["rematch"]["game_id"] == new_id
    assert page.data("viewSeat") == "0"
    assert seat_token(page, new_id)["token"] == token  # a reload of the rematch resumes it
    assert view_as(live_server, new_id, token)["you"]["hand"] == page.hand()
    page.until(lambda: page.data("live") == "true", what="the rematch's stream")
    page.assert_clean()


def test_an_unknown_game_says_so_once_and_does_not_retry(
    browser: Callable[..., Page], live_server: str,
) -> None:
    page = browser()
    page.open(f"{live_server}/play/?game=no-such-game")
    page.until(lambda: "unknown_game" in page.text("#status"), what="the problem's code")
    assert page.js("return document.getElementById('game').hidden") is True
    time.sleep(1.5)  # the page gave up: no stream was opened, nothing is retried
    logs = page.read_logs()
    assert logs["failed"] == [f"404 {live_server}/v1/games/no-such-game"], logs
