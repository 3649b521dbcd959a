"""What the API deprecates and when it goes: the one table (:data:`DEPRECATED`), and the
three ways each entry is announced from it.

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
:data:`NOTICE` after the headers first went out: a client's owners get a season to move.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

from apispec import BasePlugin
from flask import Flask, Response, request

__all__ = ["DEPRECATED", "NOTICE", "Deprecation", "DeprecationPlugin", "deprecated_field",
           "headers_of", "install_deprecation_headers"]

#: The least time from the first response that announces a sunset to the sunset.
NOTICE = timedelta(days=90)


@dataclass(frozen=True, slots=True)
class Deprecation:
    """One deprecated field or operation."""

    #: What is deprecated, and what to use instead, in words (docs, descriptions).
    what: str
    instead: str
    #: When it was deprecated: the ``Deprecation`` header's date.
    deprecated: datetime
    #: When the headers first announced it (the release that added them).
    announced: datetime
    #: From when it may be gone: the ``Sunset`` header.
    sunset: datetime
    #: (METHOD, path template) of each operation concerned: a deprecated operation itself,
    #: or each one whose successful responses carry the deprecated field.
    operations: tuple[tuple[str, str], ...]
    #: (component schema, property) of a deprecated field; ``None``: the operations
    #: themselves are deprecated.
    field: tuple[str, str] | None = None


#: Everything deprecated today.
DEPRECATED: tuple[Deprecation, ...] = (
    Deprecation(
        what="the `round` of a `round_started` event (the round's number under its old name)",
        instead="its `number` (the name `round_ended` and the view's `round` use)",
        deprecated=datetime(2026, 12, 2, tzinfo=UTC),
        announced=datetime(2026, 12, 5, tzinfo=UTC),
        sunset=datetime(2027, 3, 31, tzinfo=UTC),
        operations=(("GET", "/v1/games/{game_id}/events"),
                    ("GET", "/v1/games/{game_id}/stream")),
        field=("RoundStartedEvent", "round"),
    ),
)
assert all(d.sunset - d.announced >= NOTICE for d in DEPRECATED), "a sunset without notice"
assert all(d.deprecated <= d.announced for d in DEPRECATED)


def headers_of(entries: tuple[Deprecation, ...]) -> dict[str, str]:
    """The ``Deprecation`` and ``Sunset`` header values for ``entries`` (the earliest of
    each, when an operation is concerned by several)."""
    if not entries:
        return {}
    deprecated = min(d.deprecated for d in entries)
    sunset = min(d.sunset for d in entries)
    return {"Deprecation": f"@{int(deprecated.timestamp())}",
            "Sunset": format_datetime(sunset, usegmt=True)}


def _concerning(method: str, path: str) -> tuple[Deprecation, ...]:
    return tuple(d for d in DEPRECATED if (method.upper(), path) in d.operations)


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
            entries = _concerning(method, path or "")
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
    that :data:`DEPRECATED` concerns."""
    by_operation = {(method, path): headers_of(_concerning(method, path))
                    for d in DEPRECATED for method, path in d.operations}

    @app.after_request
    def _announce(response: Response) -> Response:
        rule = request.url_rule
        if rule is not None and 200 <= response.status_code < 300:
            method = "GET" if request.method == "HEAD" else request.method
            headers = by_operation.get((method, _VARIABLE.sub(r"{\1}", rule.rule)))
            if headers:
                response.headers.update(headers)
        return response
