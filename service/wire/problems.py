"""Problem documents (RFC 9457 ``application/problem+json``) as bytes, and the exception
the HTTP layers raise for one.

The mapping of every error to a problem is ``service/api/problems.py``'s; the shape of the
document, its titles and the exception are here so that the push tier
(``service/push``) writes byte for byte the problems Flask writes.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["PROBLEM_CONTENT_TYPE", "TITLES", "ApiProblem", "problem_bytes"]

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
