"""Playing /play as a person would (filling the form, clicking the stock, the pile and the
hand's cards, closing a round's result), and reaching the same game over the API beside
it (a second seat, a seat's view), for the browser tests."""

from __future__ import annotations

from typing import Any

import requests

from tests.conftest import PATIENCE
from tests.web.conftest import Page


def create_from_form(page: Page, url: str | None, rounds: str, seats: list[str],
                     name: str | None = None) -> str:
    """Fill the page's form (``seats``: a bot's name, or "" for an open seat; ``name``: the
    player's, else the form's own) and create (at ``url``, or on the page already open)."""
    if url:
        page.open(url)
    page.until(lambda: page.js("return document.querySelectorAll('#bot-rows select').length") == 1,
               what="the form")
    if name:
        page.js("document.querySelector('#create [name=name]').value = arguments[0];", name)
    page.js("document.getElementById('rounds').value = arguments[0];"
            "document.querySelector('#bot-rows .bot-row').remove();", rounds)
    for seat in seats:
        page.click("#add-bot" if seat else "#add-human")
        page.js("const s = [...document.querySelectorAll('#bot-rows select')].at(-1);"
                "s.value = arguments[0]; s.dispatchEvent(new Event('change'));", seat)
    page.click("#create-game")
    page.until(lambda: page.data("version") is not None, what="the new game's view")
    return page.data("game")  # type: ignore[return-value]


def create_game(base: str, players: list[dict[str, Any]], rules: dict[str, Any],
                **extra: Any) -> dict[str, Any]:
    """A game made over the API (its ``201``: the id and each named seat's token)."""
    r = requests.post(f"{base}/v1/games", json={"players": players, "rules": rules, **extra},
                      timeout=5)
    assert r.status_code == 201, r.text
    return r.json()  # type: ignore[no-any-return]


def open_seat(page: Page, base: str, game_id: str, seat: int, token: str,
              query: str = "&pace=0") -> None:
    """Open ``game_id`` as ``seat`` in this profile, as if the page had created or claimed it:
    the seat's token is stored where the page keeps it (per API base and game)."""
    page.open(f"{base}/play/?pace=0")
    page.until(lambda: page.js("return document.readyState") == "complete", what="the page")
    page.js("localStorage.setItem(`three-thirteen:${location.origin}:${arguments[0]}`,"
            "JSON.stringify({seat: arguments[1], token: arguments[2]}));", game_id, seat, token)
    page.open(f"{base}/play/?game={game_id}{query}")
    page.until(lambda: page.data("version") is not None and page.data("live") == "true",
               what="the game's view, live")


def dismiss_round_end(page: Page) -> bool:
    """Close a round's result if it is up (True if it was)."""
    if page.data("dialog") != "round-end":
        return False
    page.click("#round-end-close")
    page.until(lambda: page.data("dialog") is None, what="the round's result closed")
    return True


def wait_for_turn(page: Page, timeout: float = PATIENCE) -> bool:
    """Wait until it is this page's turn (True) or the game is over (False), closing each
    round's result on the way."""
    page.until(lambda: page.data("dialog") or page.data("yourTurn") == "true"
               or page.data("status") == "finished", timeout, "a turn")
    if dismiss_round_end(page):
        return wait_for_turn(page, timeout)
    return page.data("status") != "finished"


def play_turn(page: Page) -> None:
    """One click as a player would: go out when a button offers it, else draw from the
    stock, else ask for the hint and click the hand's card it ranks best."""
    version = page.data("version")
    actions = page.js("return [...document.querySelectorAll('#actions button')]"
                      ".map(b => JSON.parse(b.dataset.action));")
    if any(a["type"] == "go_out" for a in actions):
        page.click("#actions .act-go_out")
    elif page.js("return document.querySelector('button#stock') !== null"):
        page.click("#stock")
    else:
        page.click("#hint")
        best = page.until(lambda: page.js(
            "const li = document.querySelector('#hint-box li[data-card]');"
            "return li && li.dataset.card;"), what="the hint")
        page.click(f'#hand button.card[data-card="{best}"]')
    page.until(lambda: page.data("version") != version, what="the move's view")


def seat_token(page: Page, game_id: str) -> dict[str, Any]:
    return page.js("const k = Object.keys(localStorage).find(k => k.endsWith(':' + arguments[0]));"
                   "return JSON.parse(localStorage.getItem(k));", game_id)


def view_as(base: str, game_id: str, token: str | None = None) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = requests.get(f"{base}/v1/games/{game_id}", headers=headers, timeout=5)
    assert r.status_code == 200
    return r.json()  # type: ignore[no-any-return]


def act_as(base: str, game_id: str, token: str, action: dict[str, Any]) -> dict[str, Any]:
    r = requests.post(f"{base}/v1/games/{game_id}/actions", json=action,
                      headers={"Authorization": f"Bearer {token}"}, timeout=5)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]
