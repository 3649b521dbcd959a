"""Instants as the service writes them: RFC 3339 in UTC, with milliseconds and a ``Z``.

One spelling for every instant the service shows (a view's deadline, a record's
``finished_at``, a challenge's expiry, a log line's ``ts``…), so a client reads them all
one way. It lives in the core because the engine writes one too (a turn's deadline in a
view).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal, overload

__all__ = ["instant", "unix_of"]


@overload
def instant(unix: float, timespec: Literal["milliseconds", "seconds"] = ...) -> str: ...


@overload
def instant(unix: None, timespec: Literal["milliseconds", "seconds"] = ...) -> None: ...


@overload
def instant(unix: float | None,
            timespec: Literal["milliseconds", "seconds"] = ...) -> str | None: ...


def instant(unix: float | None,
            timespec: Literal["milliseconds", "seconds"] = "milliseconds") -> str | None:
    """Unix seconds as ``2024-05-01T12:00:00.250Z`` (``None`` stays ``None``).

    ``timespec="seconds"`` drops the fraction (truncated, never rounded up): only a
    seek's ``expires`` is written so, as it always was."""
    if unix is None:
        return None
    return datetime.fromtimestamp(unix, UTC).isoformat(timespec=timespec).replace(
        "+00:00", "Z")


def unix_of(text: str) -> float:
    """The Unix seconds of an instant as :func:`instant` writes it."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
