"""The one place where errors become HTTP responses: RFC 9457 ``application/problem+json``.

Every error the service can meet (engine errors, service-layer errors, storage
errors, Flask's own 404/405/413, webargs' 422, and anything unexpected) is
turned into ``{"type", "title", "status", "detail", "code", "instance", …}``
here, with a stable machine-readable ``code`` (those the push tier meets too through
:func:`service.wire.problems.problem_of`, which both call). Views never build error
responses themselves; they raise. (What gunicorn refuses before the app sees the
request is written in the same shape by the service's gunicorn workers:
``service/refusals.py``.)

``type`` is ``urn:three-thirteen:problem:<code>``: stable, and the same string
a client would switch on if it prefers ``type`` to ``code``.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from service.core.errors import (
    EngineError,
    IllegalActionError,
    InvalidInputError,
    NotYourTurnError,
    SolverBudgetExceeded,
)
from service.play import PlayError
from service.refusals import REFUSALS
from service.storage import UnknownGameError
from service.wire.problems import (
    INTERNAL_ERROR,
    PROBLEM_CONTENT_TYPE,
    TITLES,
    UNAVAILABLE,
    ApiProblem,
    Problem,
    problem_bytes,
    problem_of,
    status_headers,
)

__all__ = [
    "CODE_STATUSES",
    "PROBLEM_CODES",
    "PROBLEM_CONTENT_TYPE",
    "ApiProblem",
    "problem_response",
    "register_error_handlers",
]

log = logging.getLogger(__name__)

#: The HTTP status of each kind of engine error, by the engine's few bases (the first in
#: the class's MRO wins): the engine knows no HTTP, so its statuses are kept here. A
#: service-layer error carries its own (``PlayError.status``, ``service/play/errors.py``).
ENGINE_STATUS: dict[type[EngineError], int] = {
    InvalidInputError: 422,
    SolverBudgetExceeded: 422,
    NotYourTurnError: 409,
    IllegalActionError: 409,
}

#: Codes of errors Flask/werkzeug raise themselves, by status (others: ``http_error``).
HTTP_CODES = {
    400: "bad_request",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
    422: "invalid_body",
    429: "rate_limited",
    500: "internal_error",
}


#: Codes of the problems the HTTP layer raises itself (``ApiProblem`` and the handlers),
#: with their status (``http_error`` is any other 4xx: none is documented for it).
API_CODES = {
    "invalid_json": 422, "invalid_query": 422, "invalid_cursor": 422, "unknown_game": 404,
    "storage_unavailable": 503, "http_error": 400, "too_many_waits": 429,
    "creation_limited": 429, "not_acceptable": 406,
    "body_timeout": 408,
    # the push tier's stream of many games (service/push/multiplex.py), which the web
    # workers do not serve: its changes' problems
    "unknown_stream": 404, "too_many_games": 409, "stream_unresponsive": 503,
}


def _error_classes(root: type[EngineError] | type[PlayError]
                   ) -> list[type[EngineError] | type[PlayError]]:
    """Every error class below ``root`` (the roots are never raised)."""
    found: list[type[EngineError] | type[PlayError]] = []
    todo: list[type[EngineError] | type[PlayError]] = list(root.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def _code_statuses() -> dict[str, tuple[int, ...]]:
    pairs = {(status, code) for code, status in API_CODES.items()}
    pairs |= {(status, code) for status, code in HTTP_CODES.items()}
    pairs |= {(refusal.status, refusal.code) for refusal in REFUSALS.values()}
    pairs |= {(_status_of_class(cls), cls.code)
              for cls in _error_classes(EngineError) + _error_classes(PlayError)}
    statuses: dict[str, set[int]] = {}
    for status, code in pairs:
        statuses.setdefault(code, set()).add(status)
    return {code: tuple(sorted(found)) for code, found in sorted(statuses.items())}


def _status_of_class(cls: type[EngineError] | type[PlayError]) -> int:
    if issubclass(cls, PlayError):
        return cls.status
    for base in cls.__mro__:
        if base in ENGINE_STATUS:
            return ENGINE_STATUS[base]
    raise TypeError(f"{cls.__name__} is below no base of ENGINE_STATUS: every error a view "
                    "can raise is answered with its own status")


#: The one table of codes: each ``code`` a problem of this service can carry, with the
#: statuses it comes with (``version_conflict``: 409 when a write kept losing its race,
#: 412 for a stale ``If-Match``), gunicorn's refusals (``service/refusals.py``) included.
#: Each operation's documented problems are drawn from it (``service/api/docs.py``), so a
#: code cannot be documented under a status it never has.
CODE_STATUSES = _code_statuses()

#: Every ``code`` a problem of this service can carry (the enum of ``Problem.code``).
PROBLEM_CODES = tuple(CODE_STATUSES)


def problem_response(
    status: int, code: str, detail: str, headers: dict[str, str] | None = None, **extra: Any
) -> Response:
    data = problem_bytes(status, code, detail, request.path, **extra)
    response = Response(data, status=status, content_type=PROBLEM_CONTENT_TYPE)
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _answer(problem: Problem) -> Response:
    return problem_response(problem.status, problem.code, problem.detail, problem.headers,
                            **problem.extra)


def register_error_handlers(app: Flask, retry_after_seconds: int) -> None:
    """Install the mapping on ``app``. Flask picks the most specific handler per class."""

    @app.errorhandler(EngineError)
    def _engine(exc: EngineError) -> Response:
        status = _status_of_class(type(exc))
        return problem_response(status, exc.code, exc.message,
                                status_headers(status, retry_after_seconds), **exc.details)

    # what the push tier answers the same way (service.wire.problems.problem_of)
    @app.errorhandler(PlayError)
    @app.errorhandler(ApiProblem)
    @app.errorhandler(UnknownGameError)
    def _shared(exc: Exception) -> Response:
        problem = problem_of(exc, retry_after_seconds)
        assert problem is not None  # (registered for the classes problem_of maps)
        return _answer(problem)

    for unavailable in UNAVAILABLE:
        app.register_error_handler(unavailable, _shared)


def http_exception_problem(error: HTTPException) -> Response:
    """Flask's and webargs' own errors (404, 405, 413, 422 of a query…) as problems."""
    status = error.code or 500
    # the limiter's own problem (Retry-After), a Flask response (flask-limiter keeps no other)
    if status == 429 and isinstance(error.response, Response):
        return error.response
    if status >= 500:
        original = getattr(error, "original_exception", None)
        if original is not None:
            log.error("unhandled error", exc_info=original)
        return _answer(INTERNAL_ERROR)
    extra: dict[str, Any] = {}
    data = getattr(error, "data", None) or {}
    messages = data.get("messages") or data.get("errors")
    if messages:
        extra["errors"] = messages
    code = HTTP_CODES.get(status, "http_error")
    if status == 422 and messages and "query" in messages:
        code = "invalid_query"
    detail = error.description or TITLES.get(status, "error")
    headers = {}
    if status == 405 and error.get_response().headers.get("Allow"):
        headers["Allow"] = error.get_response().headers["Allow"]
    return problem_response(status, code, str(detail), headers, **extra)
