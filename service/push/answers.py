"""What every answer of the push tier carries, as Flask's answers carry it: the request
id, CORS, ``Vary``/``Cache-Control`` by bearer, and problems for errors.

Each rule here mirrors one of the Flask app's (``service/app.py``: flask-cors and
``ProxyFix``; ``service/api/ops.py``: the request id; ``service/api/web.py``:
``for_bearer``), or is the one both call (:func:`service.wire.problems.problem_of`: which
error is which problem), and the conformance suite (``tests/push``) holds the two to the
same answers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from service.config import Config
from service.wire.headers import (
    ALLOWED_HEADERS,
    EXPOSED_HEADERS,
    PREFLIGHT_MAX_AGE,
    REQUEST_ID_HEADER,
    cache_control,
    request_id,
)
from service.wire.problems import (
    INTERNAL_ERROR,
    PROBLEM_CONTENT_TYPE,
    Problem,
    problem_bytes,
    problem_of,
)

from .http import Request, Writer, head

__all__ = ["Answer", "Cors", "client_address", "for_bearer", "preflight", "problem_answer",
           "send"]

_EXPOSED = ", ".join(sorted(EXPOSED_HEADERS))
_ALLOWED = frozenset(h.lower() for h in ALLOWED_HEADERS)
#: flask-cors's default: every method (the route's own are not looked at)
_METHODS = "DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT"


@dataclass(frozen=True, slots=True)
class Cors:
    """flask-cors's answer for the service's ``CORS_ORIGINS`` (no credentials, no
    wildcard sent back to an ``Origin``): the origin echoed when it is allowed, ``*`` to a
    request without one when any origin is."""

    origins: tuple[str, ...]

    @classmethod
    def of(cls, config: Config) -> Cors:
        return cls(tuple(o.strip() for o in config.cors_origins.split(",")))

    def headers(self, origin: str | None) -> list[tuple[str, str]]:
        wildcard = "*" in self.origins
        if origin:
            if not wildcard and origin.lower() not in (o.lower() for o in self.origins):
                return []
            out = [("Access-Control-Allow-Origin", origin),
                   ("Access-Control-Expose-Headers", _EXPOSED)]
            if wildcard or len(self.origins) > 1:
                out.append(("Vary", "Origin"))
            return out
        if wildcard:
            return [("Access-Control-Allow-Origin", "*"),
                    ("Access-Control-Expose-Headers", _EXPOSED)]
        return [*(("Access-Control-Allow-Origin", o) for o in sorted(self.origins)),
                ("Access-Control-Expose-Headers", _EXPOSED)]


def preflight(request: Request, cors: Cors) -> Answer | None:
    """A CORS preflight (an ``OPTIONS`` with ``Access-Control-Request-Method``) answered as
    flask-cors answers it for the service's settings (``service/app.py``): the allowed
    origin, every method, the requested headers the service allows, and how long the
    answer may be kept; ``None`` for any other request. Why here: a browser asks before a
    cross-origin stream with a bearer or a ``POST`` of JSON, and a proxy routing on the
    path alone (an Ingress) sends the ``OPTIONS`` where the ``GET`` or ``POST`` goes."""
    if request.method != "OPTIONS" or "access-control-request-method" not in request.headers:
        return None
    headers: list[tuple[str, str]] = [("Content-Type", "text/html; charset=utf-8")]
    if cors.headers(request.headers.get("origin")):  # (sent by :func:`send`, as to all)
        asked = [h.strip() for h in request.headers.get(
            "access-control-request-headers", "").split(",") if h.strip()]
        allowed = sorted(h for h in asked if h.lower() in _ALLOWED)
        if allowed:
            headers.append(("Access-Control-Allow-Headers", ", ".join(allowed)))
        headers += [("Access-Control-Allow-Methods", _METHODS),
                    ("Access-Control-Max-Age", str(PREFLIGHT_MAX_AGE))]
    return Answer(200, headers, b"")


def client_address(request: Request, proxy_hops: int) -> str | None:
    """The client's address as werkzeug's ``ProxyFix(x_for=proxy_hops)`` gives Flask's
    ``remote_addr``: the ``proxy_hops``-th value of ``X-Forwarded-For`` from the right
    (what the outermost trusted proxy saw), else the TCP peer."""
    if proxy_hops:
        forwarded = request.headers.get("x-forwarded-for")
        if forwarded:
            values = [v.strip() for v in forwarded.split(",")]
            if len(values) >= proxy_hops:
                return values[-proxy_hops]
    return request.peer


def for_bearer(private: bool) -> list[tuple[str, str]]:
    """``service.api.web.for_bearer``'s headers: a body that depends on who asks."""
    return [("Vary", "Authorization"), ("Cache-Control", cache_control(private))]


@dataclass(slots=True)
class Answer:
    """A whole answer (not a stream): status, headers, body."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""


def problem_answer(exc: BaseException, request: Request, retry_after: int) -> Answer | None:
    """The problem Flask's error handlers make of ``exc`` (``None``: not one of the
    errors a view of the waiting routes raises; the caller answers 500)."""
    problem = problem_of(exc, retry_after)
    return None if problem is None else _answer(problem, request)


def internal_error(request: Request) -> Answer:
    return _answer(INTERNAL_ERROR, request)


def _answer(problem: Problem, request: Request) -> Answer:
    body = problem_bytes(problem.status, problem.code, problem.detail, request.path,
                         **problem.extra)
    return Answer(problem.status, [("Content-Type", PROBLEM_CONTENT_TYPE),
                                   *problem.headers.items()], body)


def common_headers(request: Request, cors: Cors) -> list[tuple[str, str]]:
    """The headers of every answer: CORS and the request id."""
    return [*cors.headers(request.headers.get("origin")),
            (REQUEST_ID_HEADER, request_id(request.headers.get("x-request-id")))]


def send(writer: Writer, request: Request, answer: Answer, cors: Cors) -> bool:
    """Write ``answer`` whole; whether the connection may serve another request."""
    headers = [*answer.headers, *common_headers(request, cors)]
    keep = request.keep_alive
    writer.write(head(answer.status, headers, length=len(answer.body), keep_alive=keep,
                      http11=request.http11) + answer.body)
    return keep
