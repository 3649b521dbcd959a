"""What the API deprecates and when it goes: the one table, and the headers it answers.

``service/api/deprecations.py`` says how each entry is announced (the document, the
headers, the docs); the table and the headers' values are here, Flask-free, so the push
tier answers the same ``Deprecation`` and ``Sunset`` on the operations it serves.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

__all__ = ["DEPRECATED", "NOTICE", "Deprecation", "concerning", "headers_of"]

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


def concerning(method: str, path: str) -> tuple[Deprecation, ...]:
    """The entries that concern the operation ``method`` ``path`` (the document's template)."""
    return tuple(d for d in DEPRECATED if (method.upper(), path) in d.operations)
