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
from service.wire.headers import EXPOSED_HEADERS, REQUEST_ID_HEADER, cache_control, request_id
from service.wire.problems import (
    INTERNAL_ERROR,
    PROBLEM_CONTENT_TYPE,
    Problem,
    problem_bytes,
    problem_of,
)

from .http import Request, Writer, head

__all__ = ["Answer", "Cors", "client_address", "for_bearer", "problem_answer", "send"]

_EXPOSED = ", ".join(sorted(EXPOSED_HEADERS))


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
