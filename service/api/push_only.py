"""``/v1/streams/…`` on the web workers: what only the push tier serves.

A stream of many games (``POST /v1/streams/games``) and its changes are held by the push
processes (``service/push/multiplex.py``), which a deployment's proxy routes
``/v1/streams/`` to (``deploy/nginx.conf``); a web worker holds none. Asked here (a
client of ``make run``, which has no proxy, or a proxy that does not route them), the
answer is a ``404 not_found`` that says where they are, rather than the bare one of an
unknown path. These routes are not operations of the OpenAPI document: the web workers,
which serve that document, do not answer them (the AsyncAPI document describes the
stream, docs/streams.md the requests).
"""

from __future__ import annotations

from flask import Blueprint, Response

from .problems import problem_response

__all__ = ["blp"]

blp = Blueprint("push_only", __name__)

_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]


@blp.route("/v1/streams/games", methods=_METHODS)
@blp.route("/v1/streams/<path:rest>", methods=_METHODS)
def push_only(rest: str | None = None) -> Response:
    return problem_response(
        404, "not_found", "streams of many games are served by the push tier "
        "(python -m service.push) only, where the proxy routes /v1/streams/; this server "
        "is a web worker (see docs/streams.md)")
