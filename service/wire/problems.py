"""Problem documents (RFC 9457 ``application/problem+json``) as bytes, the exception the
HTTP layers raise for one, and the problems of the errors both front ends meet.

Flask's error handlers (``service/api/problems.py``, which also maps the engine's errors
and werkzeug's) and the push tier (``service/push/answers.py``) both answer the errors a
read can raise through :func:`problem_of`, so they write byte for byte the same problems
with the same headers.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis

from service.play import PlayError
from service.storage import StorageUnavailableError, UnknownGameError

__all__ = ["INTERNAL_ERROR", "PROBLEM_CONTENT_TYPE", "TITLES", "UNAVAILABLE", "ApiProblem",
           "Problem", "problem_bytes", "problem_of", "status_headers"]

log = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"

TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    404: "Not found",
    405: "Method not allowed",
    406: "Not acceptable",
    408: "Request timeout",
    409: "Conflict",
    412: "Precondition failed",
    413: "Request body too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    428: "Precondition required",
    429: "Too many requests",
    500: "Internal server error",
    503: "Service unavailable",
}


class ApiProblem(Exception):
    """An error raised by the HTTP layer itself (bad JSON, bad query, unknown route…)."""

    def __init__(self, status: int, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.extra = extra


#: What a store's failure is raised as: a problem ``503 storage_unavailable``, a stream's
#: ``end`` ``unavailable``.
UNAVAILABLE = (StorageUnavailableError, redis.ConnectionError, redis.TimeoutError)


@dataclass(frozen=True, slots=True)
class Problem:
    """A problem to answer: its status, ``code``, ``detail``, the headers that go with it,
    and the document's extra members."""

    status: int
    code: str
    detail: str
    headers: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


#: The problem of an error nothing else maps (logged by the caller).
INTERNAL_ERROR = Problem(500, "internal_error", "an unexpected error occurred")


def status_headers(status: int, retry_after: int) -> dict[str, str]:
    """The headers a service error's status brings: the challenge of a 401, and when to
    come back after a 429 or a 503 (``RETRY_AFTER_SECONDS``)."""
    if status == 401:
        return {"WWW-Authenticate": 'Bearer realm="three-thirteen"'}
    if status in (429, 503):
        return {"Retry-After": str(retry_after)}
    return {}


def problem_of(exc: BaseException, retry_after: int) -> Problem | None:
    """The problem of ``exc`` if it is an :class:`ApiProblem`, a service-layer error, an
    unknown game or a store's failure; ``None`` for anything else (the engine's errors and
    werkzeug's are Flask's to map, the rest a 500)."""
    if isinstance(exc, ApiProblem):
        extra = dict(exc.extra)
        headers: dict[str, str] = extra.pop("headers", None) or {}
        return Problem(exc.status, exc.code, exc.detail, dict(headers), extra)
    if isinstance(exc, PlayError):
        return Problem(exc.status, exc.code, exc.message,
                       status_headers(exc.status, retry_after), exc.details)
    if isinstance(exc, UnknownGameError):
        return Problem(404, "unknown_game", "there is no game with this id (or it expired)")
    if isinstance(exc, UNAVAILABLE):
        log.warning("storage unavailable: %s", exc)
        return Problem(503, "storage_unavailable", "the game store is unreachable; retry later",
                       status_headers(503, retry_after))
    return None


def problem_bytes(status: int, code: str, detail: str, instance: str, **extra: Any) -> bytes:
    """The problem document: ``type`` (``urn:three-thirteen:problem:<code>``), ``title``,
    ``status``, ``detail``, ``code``, ``instance`` (the request's path) and ``extra``."""
    body = {
        "type": f"urn:three-thirteen:problem:{code}",
        "title": TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
        "code": code,
        "instance": instance,
        **extra,
    }
    try:
        return orjson.dumps(body, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:  # a detail that does not serialize (e.g. a huge integer): drop details
        return orjson.dumps({k: body[k] for k in ("type", "title", "status", "detail", "code")})
