"""The /play blueprint: the page's files, their headers, and what API they call."""

from __future__ import annotations

import json
import re

import pytest
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from service.storage import memory_stores
from service.web import PLAY_FILES, STATIC_DIR
from tests.conftest import ROOT


@pytest.fixture
def client() -> FlaskClient:
    return create_app(Config(rate_limit="off", rate_limit_per_address="off"),
                      stores=memory_stores()).test_client()


def test_play_redirects_into_its_folder_keeping_the_query(client: FlaskClient) -> None:
    r = client.get("/play?game=abc&watch=1")
    assert r.status_code == 301 and r.headers["Location"] == "/play/?game=abc&watch=1"


def test_the_page_and_its_modules_are_served_with_a_strict_content_security_policy(
    client: FlaskClient,
) -> None:
    page = client.get("/play/")
    assert page.status_code == 200 and page.mimetype == "text/html"
    assert b'<script type="module" src="app.js">' in page.data
    csp = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "connect-src *" in csp
    for name in PLAY_FILES - {"index.html"}:
        r = client.get(f"/play/{name}")
        assert r.status_code == 200, name
        assert r.mimetype == ("text/css" if name.endswith(".css") else "text/javascript"), name
        assert r.headers["X-Content-Type-Options"] == "nosniff"


def test_every_file_of_the_folder_is_served_and_nothing_else(client: FlaskClient) -> None:
    assert {p.name for p in STATIC_DIR.iterdir()} == PLAY_FILES
    assert client.get("/play/../app.py").status_code == 404
    assert client.get("/play/missing.js").status_code == 404


def test_the_page_loads_nothing_from_elsewhere() -> None:
    """No CDN: every script, stylesheet and module import is a file of the folder."""
    html = (STATIC_DIR / "index.html").read_text()
    for ref in re.findall(r'(?:src|href)="([^"]+)"', html):
        assert ref in PLAY_FILES or ref.startswith(("?", "/docs", "data:")), ref
    for name in PLAY_FILES:
        if name.endswith(".js"):
            for module in re.findall(r'from "([^"]+)"', (STATIC_DIR / name).read_text()):
                assert module.removeprefix("./") in PLAY_FILES, (name, module)


def test_the_page_calls_only_documented_routes_and_detects_the_optional_ones() -> None:
    """Every route api.js calls is in the OpenAPI document, or is one app.js looks up in the
    served document before using it (the lobby and records, optional per deployment)."""
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    documented = [(m.upper(), re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", p) + "$"))
                  for p, ops in document["paths"].items() for m in ops if m != "parameters"]
    source = (STATIC_DIR / "api.js").read_text()
    calls = {(method, re.sub(r"\$\{[^}]+\}", "x", path).split("?")[0])
             for method, path in re.findall(r'request\("(\w+)", [`"](/[^`"]*)[`"]', source)}
    assert ("POST", "/v1/games/x/actions") in calls and ("POST", "/v1/games/x/stream-tickets") in calls
    undocumented = {(m, c) for m, c in calls
                    if not any(m == dm and p.match(c) for dm, p in documented)}
    detected = set(re.findall(r'doc\.paths\["([^"]+)"\]\?\.get', (STATIC_DIR / "app.js").read_text()))
    allowed = {("GET", "/openapi.json")} | {("GET", re.sub(r"\{[^}]+\}", "x", p)) for p in detected}
    assert undocumented <= allowed, undocumented - allowed
