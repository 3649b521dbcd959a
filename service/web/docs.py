"""``/docs``: Swagger UI 5 for the service's OpenAPI 3.1 document, every file from this origin.

Swagger UI reads OpenAPI 3.1 from version 5 on (4.x shows "Unable to render this
definition"). Its files come from PyPI's ``flask-swagger-ui``, whose version is the Swagger UI
release it ships (swagger-ui-dist's ``dist`` folder): ``pip install`` brings them, so the page
works offline and with no build step or npm. Only those files are used, not that package's
blueprint: its page configures Swagger UI in an inline script and serves every file of its
folder. The page here is a file of this package, ``static/docs/index.html``, and Swagger UI is
set up by ``docs.js`` next to it, so the Content-Security-Policy allows scripts from this
origin only and ``connect-src 'self'``: the browser itself refuses any request (try-it-out, a
validator badge, fonts, telemetry) that would leave the origin. A plain Flask blueprint: the
page is not part of the API, so it is not in the OpenAPI document.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from flask import Blueprint, Response, abort, send_from_directory

__all__ = ["DOCS_FILES", "DOCS_STATIC_DIR", "SWAGGER_UI_DIR", "SWAGGER_UI_FILES", "blp"]

#: The page and its initializer.
DOCS_STATIC_DIR = Path(__file__).resolve().parent / "static" / "docs"
DOCS_FILES = frozenset({"index.html", "docs.js"})

#: swagger-ui-dist's files as flask-swagger-ui ships them (``VERSION`` there says which).
SWAGGER_UI_DIR = Path(str(files("flask_swagger_ui") / "dist"))
#: What the page loads; nothing else of that folder is served (no demo page, no OAuth2 redirect).
SWAGGER_UI_FILES = frozenset({"swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"})

#: What Swagger UI needs and no more: scripts and the stylesheet from this origin, ``data:``
#: images (the icons in its CSS), requests to this origin only. No ``'unsafe-inline'`` style:
#: React sets its inline styles through the DOM, which the policy allows (the browser test
#: fails on any violation: the console reports each one).
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'")

blp = Blueprint("docs", __name__)


@blp.get("/docs")
def docs_page() -> Response:
    """The page (``/docs``, the URL the README, the /play page and deployments link to)."""
    return _sent(DOCS_STATIC_DIR, "index.html")


@blp.get("/docs/<name>")
def docs_file(name: str) -> Response:
    """The page's own script."""
    if name not in DOCS_FILES - {"index.html"}:
        abort(404)
    return _sent(DOCS_STATIC_DIR, name)


@blp.get("/docs/swagger-ui/<name>")
def swagger_ui_file(name: str) -> Response:
    """One of Swagger UI's files (conditional GETs answered by ``send_from_directory``)."""
    if name not in SWAGGER_UI_FILES:
        abort(404)
    return _sent(SWAGGER_UI_DIR, name)


def _sent(folder: Path, name: str) -> Response:
    response = send_from_directory(folder, name)
    response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
