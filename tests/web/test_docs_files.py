"""``/docs`` works offline: its page loads Swagger UI 5 only from the service itself, under a
Content-Security-Policy that lets no request leave the origin."""

from __future__ import annotations

import re
from importlib.metadata import version

import pytest
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from service.storage import memory_stores
from service.web.docs import DOCS_STATIC_DIR, SWAGGER_UI_DIR

#: by suffix (``.js`` is one or the other, depending on the machine's mime.types)
CONTENT_TYPES = {".js": {"text/javascript", "application/javascript"}, ".css": {"text/css"},
                 ".png": {"image/png"}}


@pytest.fixture
def client() -> FlaskClient:
    return create_app(Config(rate_limit="off", rate_limit_per_address="off"),
                      stores=memory_stores()).test_client()


def test_the_docs_page_refers_only_to_local_urls_and_each_is_served(
    client: FlaskClient,
) -> None:
    page = client.get("/docs")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert "://" not in html  # no CDN, no absolute URL of any host
    assert "<script>" not in html  # no inline script: the policy allows none
    urls = re.findall(r'(?:src|href)="([^"]+)"', html)
    # the icon, the stylesheet, Swagger UI and the page's script that sets it up
    assert sorted(urls) == ["/docs/docs.js", "/docs/swagger-ui/favicon-32x32.png",
                            "/docs/swagger-ui/swagger-ui-bundle.js",
                            "/docs/swagger-ui/swagger-ui.css"]
    for url in urls:
        r = client.get(url)
        assert r.status_code == 200, url
        assert r.mimetype in CONTENT_TYPES[url[url.rindex("."):]], (url, r.mimetype)
        assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert len(client.get("/docs/swagger-ui/swagger-ui-bundle.js").data) > 1_000_000
    assert client.get("/openapi.json").status_code == 200  # what the page then loads


def test_the_page_and_its_files_are_served_with_a_policy_that_keeps_every_request_on_the_origin(
    client: FlaskClient,
) -> None:
    for url in ("/docs", "/docs/docs.js", "/docs/swagger-ui/swagger-ui-bundle.js"):
        policy = dict(d.strip().split(" ", 1) for d in
                      client.get(url).headers["Content-Security-Policy"].split(";"))
        assert policy["default-src"] == policy["script-src"] == policy["connect-src"] == "'self'"
        assert policy["img-src"] == "'self' data:"  # Swagger UI's icons are data: URLs
        assert "unsafe" not in str(policy), url


def test_swagger_ui_is_version_5_which_reads_openapi_3_1(client: FlaskClient) -> None:
    """4.x (the swagger-ui-bundle this replaced) showed "Unable to render this definition"."""
    assert version("flask-swagger-ui").startswith("5.")
    assert (SWAGGER_UI_DIR / "VERSION").read_text().strip().startswith("v5.")
    assert client.get("/openapi.json").json["openapi"].startswith("3.1")


def test_the_page_sets_up_swagger_ui_on_the_served_document_without_a_validator_badge() -> None:
    script = (DOCS_STATIC_DIR / "docs.js").read_text()
    assert 'url: "/openapi.json"' in script
    assert "validatorUrl: null" in script  # else a badge image from validator.swagger.io


def test_only_the_files_the_page_loads_are_served_not_the_rest_of_either_folder(
    client: FlaskClient,
) -> None:
    assert client.get("/docs/swagger-ui/swagger-ui.css").status_code == 200
    for name in ("index.html", "swagger-initializer.js", "index.css", "oauth2-redirect.html",
                 "swagger-ui.js", "swagger-ui-standalone-preset.js", "VERSION",
                 "../flask_swagger_ui.py", "../docs.js"):
        assert client.get(f"/docs/swagger-ui/{name}").status_code == 404, name
    for name in ("index.html", "swagger-ui.css", "../app.py", "../play/app.js"):
        assert client.get(f"/docs/{name}").status_code == 404, name
