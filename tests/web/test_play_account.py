"""Signing in on /play (issue 21, item 8) in a real headless Chromium against gunicorn and
Redis: an account made on the page shows its key once; a key signs in and survives a reload,
and signing out forgets it; "My games" lists the game awaiting the account's move first and
opens it played with the key; a challenge made to the account appears live from its stream
and accepting it opens the game; a challenge the account makes waits with a cancel, and its
game is offered when accepted; a challenge to a reference bot starts a game the bot plays.

Every test checks that the key never appears in a URL the browser requested, in the page's
address or on its console, that the page does not scroll sideways, and that no request
failed but those the test caused on purpose."""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

import requests

from tests.conftest import PATIENCE
from tests.web.conftest import Page
from tests.web.player import create_from_form, create_game, play_turn, view_as, wait_for_turn

PHONE = (390, 844)


def new_account(base: str, prefix: str) -> tuple[str, str]:
    """An account made over the API: its handle and key."""
    handle = f"{prefix}{secrets.token_hex(4)}"
    r = requests.post(f"{base}/v1/accounts", json={"handle": handle}, timeout=5)
    assert r.status_code == 201, r.text
    return handle, r.json()["key"]


def as_account(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def api(base: str, method: str, path: str, key: str, status: int = 200, **body: Any) -> Any:
    r = requests.request(method, f"{base}{path}", json=body if body else None,
                         headers=as_account(key), timeout=5)
    assert r.status_code == status, r.text
    return r.json()


def open_home(page: Page, base: str) -> None:
    page.open(f"{base}/play/?pace=0")
    page.until(lambda: page.js("return !document.getElementById('account').hidden"),
               what="the account panel")


def signed_in(page: Page) -> bool:
    return bool(page.js("return !document.getElementById('signed-in').hidden"
                        " && document.getElementById('signed-out').hidden"))


def sign_in(page: Page, base: str, key: str) -> None:
    """Sign in with ``key`` through the page's form, and wait for the lists to load."""
    open_home(page, base)
    page.js("document.getElementById('sign-in-key').value = arguments[0];", key)
    page.click("#sign-in-button")
    page.until(lambda: signed_in(page) and page.js(
        "return document.querySelectorAll('#my-games li, #incoming li, #outgoing li').length >= 3"),
        what="signed in, with the lists")


def assert_key_kept_out(page: Page, key: str) -> None:
    """The key is in no URL the browser asked for, nor in the address, nor on the console."""
    logs = page.read_logs()
    assert page.urls, "no requests were recorded"
    assert not [u for u in page.urls.values() if key in u]
    assert key not in page.driver.current_url
    assert not [m for m in logs["console"] if key in m]


def entries(page: Page, selector: str) -> list[dict[str, Any]]:
    return page.js("return [...document.querySelectorAll(arguments[0])].map(li => ({"
                   "game: li.dataset.game, challenge: li.dataset.challenge, myTurn: li.dataset.myTurn,"
                   "text: li.textContent, href: li.querySelector('a')?.getAttribute('href')}));", selector)


def done(page: Page, key: str) -> None:
    assert_key_kept_out(page, key)
    page.assert_fits()
    page.assert_clean()


def test_a_new_account_shows_its_key_once_and_stays_signed_in_after_a_reload(
    browser: Callable[..., Page], live_server: str, size: tuple[int, int],
) -> None:
    page = browser(*size)
    open_home(page, live_server)
    handle = f"ann{secrets.token_hex(4)}"
    page.js("document.getElementById('sign-up-handle').value = arguments[0];", handle)
    page.click("#sign-up-button")
    page.until(lambda: page.js("return !document.getElementById('new-key').hidden"), what="the key")
    key = page.text("#new-key-value")
    assert key.startswith(f"{handle}.") and len(key) > 30
    assert "Keep this key: it is shown only this once" in page.text("#new-key-title")
    assert page.js("return document.activeElement.id") == "new-key"  # read first
    assert api(live_server, "GET", "/v1/me", key)["handle"] == handle  # the key is the account's
    page.until(lambda: signed_in(page) and page.text("#account-handle") == handle, what="signed in")
    page.assert_fits("with the key shown")  # the long key wraps on a phone
    page.click("#kept-key")
    assert page.js("return document.getElementById('new-key').hidden") is True
    assert key not in page.js("return document.documentElement.outerHTML")
    page.driver.refresh()
    page.until(lambda: signed_in(page) and page.text("#account-handle") == handle,
               what="still signed in after a reload")
    # shown once: the key is kept by the browser, never on the page again
    assert key not in page.js("return document.documentElement.outerHTML")
    assert page.js("return document.getElementById('new-key').hidden") is True
    assert key in page.js("return Object.values(localStorage).join(' ')")
    page.until(lambda: "No games yet" in page.text("#my-games"), what="my (empty) games")
    done(page, key)


def test_a_key_signs_in_for_good_until_signing_out_forgets_it(
    browser: Callable[..., Page], live_server: str,
) -> None:
    handle, key = new_account(live_server, "bob")
    page = browser(*PHONE)
    open_home(page, live_server)
    page.js("document.getElementById('sign-in-key').value = arguments[0];", key + "x")
    page.click("#sign-in-button")
    page.until(lambda: "not an account's" in page.text("#status"), what="a wrong key refused")
    assert not signed_in(page)
    # the refusal itself, on the network and the console: the one failure expected
    page.until(lambda: page.read_logs()["console"], what="the refusal logged")
    assert page.failed == [f"401 {live_server}/v1/me"] and len(page.console) == 1
    page.failed.clear()
    page.console.clear()
    page.js("document.getElementById('sign-in-key').value = arguments[0];", key)
    page.click("#sign-in-button")
    page.until(lambda: signed_in(page) and page.text("#account-handle") == handle, what="signed in")
    assert page.js("return document.getElementById('sign-in-key').value") == ""
    page.driver.refresh()
    page.until(lambda: signed_in(page) and page.text("#account-handle") == handle,
               what="signed in after a reload")
    page.click("#sign-out")
    page.until(lambda: not signed_in(page), what="signed out")
    assert key not in page.js("return Object.values(localStorage).join(' ')")
    page.driver.refresh()
    open_home(page, live_server)
    assert not signed_in(page)
    assert page.js("return document.getElementById('my-games').children.length") == 0
    done(page, key)


def test_my_games_lists_the_game_awaiting_my_move_first_and_opens_it_played_with_the_key(
    browser: Callable[..., Page], live_server: str, size: tuple[int, int],
) -> None:
    handle, key = new_account(live_server, "cy")
    players = [{"account": handle}, {"name": "bob"}]
    # seed 61: seat 0 moves first. The game joined first waits for bob once cy has moved;
    # the one joined second awaits cy's move, so it is listed first by its turn alone.
    waiting = api(live_server, "POST", "/v1/games", key, 201, players=players,
                  rules={"hand_sizes": [3]}, seed="61", turn_seconds=900)["game_id"]
    api(live_server, "POST", f"/v1/games/{waiting}/actions", key, type="draw", source="stock")
    api(live_server, "POST", f"/v1/games/{waiting}/actions", key, type="discard", card="5H")
    mine = api(live_server, "POST", "/v1/games", key, 201, players=players,
               rules={"hand_sizes": [3]}, seed="61", turn_seconds=900)["game_id"]
    page = browser(*size)
    sign_in(page, live_server, key)
    page.until(lambda: len(entries(page, "#my-games li[data-game]")) == 2, what="my two games")
    first, second = entries(page, "#my-games li[data-game]")
    assert (first["game"], first["myTurn"], second["game"], second["myTurn"]) == (mine, "true", waiting, "false")
    assert first["text"].startswith("Your move against bob · round 1 of 1 · your turn: ")
    assert "min left" in first["text"]  # the turn's deadline, counting down
    assert second["text"].startswith("Waiting for bob")
    assert page.js("return document.querySelector('#my-games time.deadline').dateTime") == \
        api(live_server, "GET", "/v1/me/games", key)["games"][0]["deadline"]
    assert first["href"] == f"?pace=0&game={mine}"  # nothing of the key in the link
    page.click(f'#my-games li[data-game="{mine}"] a')
    page.until(lambda: page.data("game") == mine and page.data("live") == "true", what="the game, live")
    assert page.data("viewSeat") == "0" and page.data("yourTurn") == "true"
    assert page.hand() == ["5H", "8H", "QH"]
    play_turn(page)  # the key acts for the seat: the draw is made
    assert view_as(live_server, mine)["round"]["phase"] == "discard"
    # the seat is the account's: no token of it is stored per game
    assert page.js("return Object.keys(localStorage).filter(k => k.endsWith(arguments[0])).length", mine) == 0
    done(page, key)


def test_an_incoming_challenge_appears_live_and_accepting_it_opens_the_game(
    browser: Callable[..., Page], live_server: str,
) -> None:
    dee, dee_key = new_account(live_server, "dee")
    eve, eve_key = new_account(live_server, "eve")
    page = browser(*PHONE)
    sign_in(page, live_server, dee_key)
    page.until(lambda: "None right now" in page.text("#incoming"), what="no challenge yet")
    page.js("window.__same_page = true;")
    time.sleep(2.5)  # past the test server's 2 s streams: the page follows them reconnected
    made = api(live_server, "POST", "/v1/challenges", eve_key, 201, to=[dee],
               rules={"preset": "classic"}, turn_seconds=300)
    challenge = made["challenge_id"]
    page.until(lambda: entries(page, f'#incoming li[data-challenge="{challenge}"]'), PATIENCE,
               what="the challenge, live")
    assert page.js("return window.__same_page") is True  # no reload: the stream brought it
    (entry,) = entries(page, "#incoming li[data-challenge]")
    assert entry["text"].startswith(f"{eve} challenges you · classic · 5 min a turn · answer ")
    assert f"{eve} challenges you." in page.text("#account-news")
    assert page.js("return document.querySelector('#incoming button[data-answer=accept]')"
                   ".getAttribute('aria-label')") == f"Accept {eve}'s challenge"
    page.assert_fits("with a challenge")
    page.click(f'#incoming li[data-challenge="{challenge}"] button[data-answer="accept"]')
    page.until(lambda: page.data("game") is not None and page.data("live") == "true", what="the game opened")
    game_id = page.data("game")
    assert api(live_server, "GET", f"/v1/challenges/{challenge}", eve_key)["game_id"] == game_id
    view = view_as(live_server, game_id)
    assert [p["account"] for p in view["players"]] == [eve, dee]  # the challenger is seat 0
    assert page.data("viewSeat") == "1" and view["clock"]["turn_seconds"] == 300
    done(page, dee_key)


def test_a_challenge_i_make_waits_with_a_cancel_and_its_game_is_offered_once_accepted(
    browser: Callable[..., Page], live_server: str,
) -> None:
    fay, fay_key = new_account(live_server, "fay")
    gus, gus_key = new_account(live_server, "gus")
    page = browser(*PHONE)
    sign_in(page, live_server, fay_key)

    def challenge_gus(clock: str) -> str:
        page.js("const s = document.getElementById('challenge-opponent'); s.value = '';"
                "s.dispatchEvent(new Event('change'));"
                "document.getElementById('challenge-handle').value = arguments[0];"
                "document.getElementById('challenge-preset').value = 'family';"
                "document.getElementById('challenge-clock').value = arguments[1];", gus, clock)
        page.click("#send-challenge")
        page.until(lambda: entries(page, "#outgoing li[data-challenge]"), what="the challenge made")
        (entry,) = entries(page, "#outgoing li[data-challenge]")
        return entry["challenge"]  # type: ignore[no-any-return]

    first = challenge_gus("86400")
    (entry,) = entries(page, "#outgoing li[data-challenge]")
    assert entry["text"].startswith(f"To {gus} · family · 1 day a turn · answer ")
    (theirs,) = api(live_server, "GET", "/v1/challenges", gus_key)["challenges"]
    assert theirs["challenge_id"] == first and theirs["challenger"] == fay
    page.click(f'#outgoing li[data-challenge="{first}"] button[data-answer="cancel"]')
    page.until(lambda: "None waiting" in page.text("#outgoing"), what="the challenge canceled")
    assert api(live_server, "GET", f"/v1/challenges/{first}", gus_key)["status"] == "canceled"

    second = challenge_gus("")
    accepted = api(live_server, "POST", f"/v1/challenges/{second}/accept", gus_key)
    game_id = accepted["game_id"]
    page.until(lambda: page.js("return document.querySelector('#account-news a.open-game')"
                               "?.dataset.game") == game_id, what="the started game offered")
    assert f"Your game with {gus} has started. Open the game" in page.text("#account-news")
    page.until(lambda: "None waiting" in page.text("#outgoing"), what="no challenge left waiting")
    page.click("#account-news a.open-game")
    page.until(lambda: page.data("game") == game_id and page.data("live") == "true", what="the game")
    assert page.data("viewSeat") == "0"
    assert view_as(live_server, game_id)["clock"] is None  # no clock, as chosen
    done(page, fay_key)


def test_challenging_a_reference_bot_starts_a_game_the_bot_plays(
    browser: Callable[..., Page], live_server: str, size: tuple[int, int],
) -> None:
    _, key = new_account(live_server, "hal")
    page = browser(*size)
    sign_in(page, live_server, key)
    assert page.js("return [...document.getElementById('challenge-opponent').options].map(o => o.value)") \
        == ["random", "simple", "greedy", "strong", "expert", ""]
    assert page.js("return document.getElementById('challenge-handle-label').hidden") is True
    page.js("document.getElementById('challenge-opponent').value = 'greedy';"
            "document.getElementById('challenge-clock').value = '300';")
    page.click("#send-challenge")
    page.until(lambda: page.data("game") is not None and page.data("live") == "true", what="the bot's game")
    game_id = page.data("game")
    view = view_as(live_server, game_id)
    assert [(p["kind"], p["name"]) for p in view["players"]][1] == ("bot", "greedy")
    assert page.data("viewSeat") == "0" and view["clock"]["turn_seconds"] == 300

    def greedy_moved() -> bool:
        events = requests.get(f"{live_server}/v1/games/{game_id}/events", timeout=5).json()["events"]
        return any(e["type"] in ("discard", "went_out") and e["seat"] == 1 for e in events)

    if not greedy_moved():  # who plays first is the game's draw: play a turn if it is mine
        assert wait_for_turn(page)
        play_turn(page)  # the draw
        play_turn(page)  # the discard (or going out)
    page.until(greedy_moved, PATIENCE, what="greedy's move")
    page.until(lambda: page.js("return [...document.querySelectorAll('#log li')].some(li =>"
                               " ['discard', 'went_out'].includes(li.dataset.type) && li.textContent.startsWith('greedy'))"),
               what="greedy's move in the move log")
    done(page, key)


def test_signed_in_a_game_made_by_the_form_and_a_seat_taken_by_an_invite_are_the_accounts(
    browser: Callable[..., Page], live_server: str,
) -> None:
    handle, key = new_account(live_server, "ivy")
    page = browser(*PHONE)
    sign_in(page, live_server, key)
    assert page.js("return document.getElementById('create-name').hidden") is True  # the handle names it
    made = create_from_form(page, None, "1", ["greedy"])
    assert view_as(live_server, made)["players"][0]["account"] == handle
    assert page.data("viewSeat") == "0"
    invited = create_game(live_server, [{"name": "jo"}, {"name": None}], {"hand_sizes": [3]})["game_id"]
    page.open(f"{live_server}/play/?game={invited}&claim=1&pace=0")
    page.until(lambda: f"take it as {handle}" in page.text("#status"), what="the invite, signed in")
    assert page.js("return document.getElementById('invite-name').closest('label').hidden") is True
    page.click("#take-seat")
    page.until(lambda: page.data("game") == invited and page.data("live") == "true", what="the seat taken")
    assert page.data("viewSeat") == "1"
    assert view_as(live_server, invited)["players"][1]["account"] == handle
    # neither seat has a token: nothing is stored per game, the key plays both
    assert page.js("return Object.keys(localStorage).filter(k => k.startsWith('three-thirteen:')).length") == 0
    open_home(page, live_server)
    page.until(lambda: {e["game"] for e in entries(page, "#my-games li[data-game]")} == {made, invited},
               what="both games in my games")
    done(page, key)
