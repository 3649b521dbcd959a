"""What the API deprecates and when it goes: the one table
(:data:`service.wire.deprecations.DEPRECATED`, shared with the push tier, which answers
the same headers), and the three ways each entry is announced from it.

* The OpenAPI document marks it ``deprecated: true``: a field on its schema's property
  (:func:`deprecated_field`, in the schema's metadata), an operation on the operation.
* Every successful response of an operation concerned (the deprecated operation, or each
  one whose responses carry the deprecated field) answers ``Deprecation`` (RFC 9745: when
  it was deprecated, ``@<unix seconds>``) and ``Sunset`` (RFC 8594: from when it may stop
  working, an HTTP-date), set by :func:`install_deprecation_headers`; the document lists
  both headers on those responses (:class:`DeprecationPlugin`).
* docs/api.md and CHANGELOG.md say it in words.

Why headers and not only the document: a client that never reads the document again still
sees them on every response, and can log or alert on them. Why a sunset at least
:data:`~service.wire.deprecations.NOTICE` after the headers first went out: a client's
owners get a season to move.
"""

from __future__ import annotations

import re
from typing import Any

from apispec import BasePlugin
from flask import Flask, Response, request

from service.wire.deprecations import DEPRECATED, Deprecation, concerning, headers_of

__all__ = ["DeprecationPlugin", "deprecated_field", "install_deprecation_headers"]


def deprecated_field(schema: str, name: str) -> dict[str, Any]:
    """The metadata of the deprecated field ``name`` of the component ``schema``: its
    description (with what to use instead and the sunset) and ``deprecated: true``."""
    (entry,) = [d for d in DEPRECATED if d.field == (schema, name)]
    return {"description": f"Deprecated: {entry.what}. Use {entry.instead}. Sent until its "
                           f"sunset, {entry.sunset:%Y-%m-%d} (the `Sunset` header of the "
                           f"responses that carry it), and may be gone after.",
            "deprecated": True}


#: The two headers as the document lists them on a successful response.
def _documented(entries: tuple[Deprecation, ...]) -> dict[str, Any]:
    values = headers_of(entries)
    what = "; ".join(f"{d.what} (use {d.instead})" for d in entries)
    return {
        "Deprecation": {
            "description": f"RFC 9745: when what this response carries was deprecated, "
                           f"`@<unix seconds>`. Deprecated here: {what}.",
            "schema": {"type": "string", "pattern": "^@-?[0-9]+$"},
            "example": values["Deprecation"],
        },
        "Sunset": {
            "description": "RFC 8594: from when the deprecated part may be gone, an "
                           "HTTP-date (at least 90 days after it was first announced).",
            "schema": {"type": "string"},
            "example": values["Sunset"],
        },
    }


class DeprecationPlugin(BasePlugin):
    """Marks, in the document, what :data:`DEPRECATED` names: a deprecated operation
    ``deprecated: true``, and the successful responses of every operation concerned with
    the two headers they answer."""

    def operation_helper(self, path: str | None = None,
                         operations: dict[str, Any] | None = None, **kwargs: Any) -> None:
        for method, operation in (operations or {}).items():
            entries = concerning(method, path or "")
            if not entries:
                continue
            if any(d.field is None for d in entries):
                operation["deprecated"] = True
            for status, response in operation.get("responses", {}).items():
                if str(status).startswith("2") and isinstance(response, dict):
                    response.setdefault("headers", {}).update(_documented(entries))


#: A Flask rule's variables (``<game_id>``, ``<int:seat>``) as the document's ``{game_id}``.
_VARIABLE = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")


def install_deprecation_headers(app: Flask) -> None:
    """Answer ``Deprecation`` and ``Sunset`` on every successful response of an operation
    that :data:`DEPRECATED` concerns (looked up once per route and method, not per request)."""
    by_rule: dict[tuple[str, str], dict[str, str]] = {}

    @app.after_request
    def _announce(response: Response) -> Response:
        rule = request.url_rule
        if rule is not None and 200 <= response.status_code < 300:
            method = "GET" if request.method == "HEAD" else request.method
            headers = by_rule.get((method, rule.rule))
            if headers is None:
                template = _VARIABLE.sub(r"{\1}", rule.rule)
                headers = by_rule[(method, rule.rule)] = headers_of(concerning(method, template))
            if headers:
                response.headers.update(headers)
        return response
