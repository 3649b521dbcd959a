"""``/play``: the reference web client, static files served by the service itself.

The page is a frontend like any other: it talks to the public API only (over
``fetch`` and ``EventSource``), so the same files work when served from another
origin with ``?api=https://host``. No build step and no CDN: ES modules, one
stylesheet and one HTML file inside the package, sent by ``send_from_directory``
(which answers conditional GETs). A plain Flask blueprint, like Swagger UI's files:
the page is not part of the API, so it is not in the OpenAPI document.
"""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Response, abort, redirect, request, send_from_directory
from werkzeug.wrappers import Response as BaseResponse

__all__ = ["PLAY_FILES", "STATIC_DIR", "blp"]

#: Where the page's files live (tests serve the same folder from a second origin).
STATIC_DIR = Path(__file__).resolve().parent / "static" / "play"

#: The files the page is made of; nothing else in the folder is served.
PLAY_FILES = frozenset({"index.html", "style.css", "account.js", "analysis.js", "api.js",
                        "app.js", "cards.js", "challenges.js", "chart.js", "dom.js", "ladder.js",
                        "leaderboard.js", "mistakes.js", "motion.js", "mygames.js", "profile.js",
                        "ratingchart.js", "render.js", "roundend.js", "seat.js", "session.js",
                        "setup.js", "svg.js", "table.js", "tournament.js"})

blp = Blueprint("play", __name__)


@blp.get("/play")
def play_redirect() -> BaseResponse:
    """``/play`` to ``/play/``, keeping the query: the page's relative module URLs
    (``./app.js``) then resolve inside the folder."""
    query = request.query_string.decode("latin-1")
    return redirect("/play/" + (f"?{query}" if query else ""), code=301)


@blp.get("/play/")
def play_page() -> Response:
    """The page itself."""
    return _file("index.html")


@blp.get("/play/<name>")
def play_file(name: str) -> Response:
    """One of the page's modules or its stylesheet."""
    if name not in PLAY_FILES:
        abort(404)
    return _file(name)


def _file(name: str) -> Response:
    response = send_from_directory(STATIC_DIR, name, max_age=0)
    # the page's own files only: scripts from this origin, API calls to any (``?api=``)
    response.headers["Content-Security-Policy"] = (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src *; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
    response.headers["X-Content-Type-Options"] = "nosniff"
    return response
