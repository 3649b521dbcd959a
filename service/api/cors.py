"""CORS for browser frontends, with flask-cors, and a fast path for everyone else.

flask-cors decides the headers of every response anew (about 30 µs a request,
a tenth of a whole game view). A request without an ``Origin`` header (a bot,
curl, a server) always gets the same answer from it: with ``always_send`` it
still adds ``Access-Control-Allow-Origin`` and the exposed headers, which is
harmless and which clients may rely on. So that answer is taken from flask-cors
once and replayed; requests with an ``Origin`` (browsers) and preflights still
go through flask-cors every time.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, request
from flask_cors import CORS

__all__ = ["install_cors"]


def install_cors(app: Flask, **options: Any) -> None:
    """``CORS(app, **options)``, its after-request hook wrapped with the fast path."""
    hooks = app.after_request_funcs.setdefault(None, [])
    before = list(hooks)
    CORS(app, **options)
    added = [f for f in hooks if f not in before]
    if len(added) != 1:  # flask-cors changed how it hooks in: keep it as it is
        return
    cors_after_request = added[0]
    replay: list[tuple[str, str]] | None = None

    def after_request(response: Response) -> Response:
        nonlocal replay
        environ = request.environ  # one proxy lookup; header names as WSGI spells them
        if environ["REQUEST_METHOD"] == "OPTIONS" or "HTTP_ORIGIN" in environ:
            return cors_after_request(response)  # type: ignore[no-any-return]
        if replay is None:
            had = set(response.headers.keys())
            response = cors_after_request(response)
            replay = [(k, v) for k, v in response.headers.items() if k not in had]
            return response
        response.headers.extend(replay)  # (flask-cors set them; nothing else does)
        return response

    hooks[hooks.index(cors_after_request)] = after_request
