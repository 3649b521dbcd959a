"""/docs in a real headless Chromium against gunicorn and Redis: Swagger UI renders every
operation of the OpenAPI 3.1 document, sends requests from its "Try it out" console with
each credential its "Authorize" dialog offers (a seat token on a game view; an account key
on `/v1/me`, a challenge and then the challenge's game), nothing it loads or sends leaves
the origin, and the console stays clean (a Content-Security-Policy violation would be an
error there)."""

from __future__ import annotations

import json
from collections.abc import Callable
from urllib.parse import urlsplit

import requests

from tests.web.conftest import Page

#: The keys of an OpenAPI path item that are operations (the others are not).
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def documented_operations(base: str) -> set[tuple[str, str]]:
    """(METHOD, path) of every operation of the document the service serves, its webhooks'
    too (Swagger UI draws each under its name)."""
    doc = requests.get(f"{base}/openapi.json", timeout=5).json()
    items = {**doc["paths"], **doc.get("webhooks", {})}
    return {(method.upper(), path) for path, item in items.items()
            for method in item if method in METHODS}


def rendered_operations(page: Page) -> set[tuple[str, str]]:
    """(METHOD, path) of every operation block on the page."""
    return {(method, path) for method, path in page.js(
        "return [...document.querySelectorAll('.opblock')].map(b => ["
        "b.querySelector('.opblock-summary-method').textContent,"
        "b.querySelector('.opblock-summary-path').dataset.path]);")}


def present(page: Page, selector: str) -> bool:
    return page.js("return document.querySelector(arguments[0]) !== null", selector)  # type: ignore[no-any-return]


def try_out(page: Page, block: str, body: object = None, **parameters: str) -> tuple[str, str]:
    """Open the operation whose element id is ``block``, click "Try it out", type
    ``parameters`` into their fields (and ``body``, as JSON, over the example in the
    request body's field), click "Execute", and return the status and body of the response
    the page shows."""
    from selenium.webdriver.common.keys import Keys

    page.click(f"#{block} .opblock-summary-control")
    page.until(lambda: present(page, f"#{block} .try-out__btn"), what=f"{block}'s Try it out")
    page.click(f"#{block} .try-out__btn")
    page.until(lambda: present(page, f"#{block} .execute"), what=f"{block}'s Execute")
    for name, value in parameters.items():
        page.driver.find_element("css selector", f'#{block} input[placeholder="{name}"]'
                                 ).send_keys(value)
    if body is not None:
        field = page.driver.find_element("css selector", f"#{block} textarea.body-param__text")
        field.send_keys(Keys.CONTROL, "a")
        field.send_keys(Keys.DELETE)
        field.send_keys(json.dumps(body))
    page.click(f"#{block} .execute")
    response = f"#{block} .live-responses-table tr.response"
    status = page.until(lambda: page.text(f"{response} .response-col_status").strip(),
                        what=f"{block}'s response")
    return status, page.text(f"{response} .response-col_description pre")


def _scheme_form(scheme: str) -> str:
    """The XPath of the "Authorize" dialog's form of the security scheme ``scheme``."""
    return (f'//div[contains(@class, "modal-ux")]//div[contains(@class, "auth-container")]'
            f'[.//h4[contains(normalize-space(.), "{scheme}")]]')


def authorize(page: Page, scheme: str, credential: str) -> None:
    """Give ``credential`` to the scheme ``scheme`` (``seatToken``, ``accountKey``) in the
    "Authorize" dialog, as a user of the page would, and close the dialog."""
    page.click(".auth-wrapper .authorize")
    page.until(lambda: present(page, ".modal-ux input"), what="the Authorize dialog")
    form = _scheme_form(scheme)
    offered = page.js("return [...document.querySelectorAll('.modal-ux .auth-container h4')]"
                      ".map(h => h.textContent);")
    assert page.driver.find_elements("xpath", form), f"no {scheme} to authorize: {offered}"
    page.driver.find_element("xpath", f"{form}//input").send_keys(credential)
    page.driver.find_element("xpath", f'{form}//button[contains(@class, "authorize")]').click()
    page.until(lambda: page.driver.find_elements(
        "xpath", f'{form}//button[normalize-space(.)="Logout"]'), what=f"{scheme} taken")
    page.click(".modal-ux .btn-done")
    page.until(lambda: not present(page, ".modal-ux"), what="the dialog closed")


def test_the_docs_render_every_operation_and_try_them_without_a_request_leaving_the_origin(
    browser: Callable[..., Page], live_server: str,
) -> None:
    page = browser(1200, 1300)
    expected = documented_operations(live_server)
    page.open(f"{live_server}/docs")
    page.until(lambda: len(rendered_operations(page)) == len(expected),
               what="every operation rendered")
    assert rendered_operations(page) == expected
    assert "Unable to render" not in page.text("#swagger-ui")

    status, body = try_out(page, "operations-rules-getPresets")
    assert status == "200", body
    assert "classic" in json.loads(body)["presets"]

    # the seat-token bearer auth: a request from the console is then that seat's
    created = requests.post(f"{live_server}/v1/games", json={
        "players": [{"name": "ann"}, {"name": "bob"}], "rules": {"hand_sizes": [3]}}, timeout=5)
    game_id, token = created.json()["game_id"], created.json()["seats"][1]["token"]
    authorize(page, "seatToken", token)
    status, body = try_out(page, "operations-games-getGame", game_id=game_id)
    assert status == "200", body
    view = json.loads(body)
    assert view["you"]["seat"] == 1 and len(view["you"]["hand"]) == 3  # the seat's hand
    assert f"Authorization: Bearer {token}" in page.text("#operations-games-getGame .curl-command")

    page.read_logs()  # every request the page made, from Chrome's performance log
    requested = set(page.urls.values())
    assert {f"{live_server}/docs", f"{live_server}/openapi.json",
            f"{live_server}/v1/rules/presets", f"{live_server}/v1/games/{game_id}"} <= requested
    origin = urlsplit(live_server)[:2]
    # data: URLs (Swagger UI's icons, in its stylesheet) never leave the browser
    assert [url for url in requested
            if not url.startswith("data:") and urlsplit(url)[:2] != origin] == []
    page.assert_clean()  # no request failed, no error or warning on the console


def test_an_account_key_given_under_authorize_is_the_account_on_me_challenges_and_its_game(
    browser: Callable[..., Page], live_server: str,
) -> None:
    created = requests.post(f"{live_server}/v1/accounts", json={"handle": "docs-reader"},
                            timeout=5)
    assert created.status_code == 201, created.text
    key = created.json()["key"]
    page = browser(1200, 1300)
    page.open(f"{live_server}/docs")
    page.until(lambda: present(page, "#operations-me-getMe"), what="the operations rendered")

    authorize(page, "accountKey", key)
    status, body = try_out(page, "operations-me-getMe")
    assert status == "200", body
    assert json.loads(body)["handle"] == "docs-reader"
    assert f"Authorization: Bearer {key}" in page.text("#operations-me-getMe .curl-command")

    # a challenge of a reference bot: it accepts at once, and the game is the account's
    status, body = try_out(page, "operations-challenges-createChallenge",
                           body={"to": ["random"], "rules": {"hand_sizes": [3]}})
    assert status == "201", body
    challenge = json.loads(body)
    assert challenge["challenger"] == "docs-reader" and challenge["status"] == "accepted"

    # the key plays the account's seat (seat 0, the challenger's) on the game's view
    status, body = try_out(page, "operations-games-getGame", game_id=challenge["game_id"])
    assert status == "200", body
    view = json.loads(body)
    assert view["you"]["seat"] == 0 and len(view["you"]["hand"]) == 3
    page.assert_clean()
