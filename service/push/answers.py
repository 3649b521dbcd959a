"""What every answer of the push tier carries, as Flask's answers carry it: the request
id, CORS, ``Vary``/``Cache-Control`` by bearer, and problems for errors.

Each rule here mirrors one of the Flask app's (``service/app.py``: flask-cors and
``ProxyFix``; ``service/api/ops.py``: the request id; ``service/api/problems.py``: which
error is which problem; ``service/api/web.py``: ``for_bearer``), and the conformance
suite (``tests/push``) holds the two to the same answers.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import redis

from service.config import Config
from service.core.errors import EngineError
from service.play import PlayError
from service.storage import StorageUnavailableError, UnknownGameError
from service.wire.headers import EXPOSED_HEADERS, REQUEST_ID_HEADER, request_id
from service.wire.problems import PROBLEM_CONTENT_TYPE, ApiProblem, problem_bytes

from .http import Request, Writer, head

__all__ = ["Answer", "Cors", "client_address", "for_bearer", "problem_of", "send"]

log = logging.getLogger("three_thirteen.push")

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
    return [("Vary", "Authorization"),
            ("Cache-Control", "private, no-cache" if private else "no-cache")]


@dataclass(slots=True)
class Answer:
    """A whole answer (not a stream): status, headers, body."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""


def problem_of(exc: BaseException, request: Request, retry_after: int) -> Answer | None:
    """The problem Flask's error handlers make of ``exc`` (``None``: not one of the
    errors a view of the waiting routes raises; the caller answers 500)."""
    path = request.path
    if isinstance(exc, ApiProblem):
        extra = dict(exc.extra)
        named: dict[str, str] = extra.pop("headers", None) or {}  # as Flask's handler
        return _problem(exc.status, exc.code, exc.detail, path, list(named.items()), extra)
    if isinstance(exc, PlayError):
        status = exc.status
        headers = ([("WWW-Authenticate", 'Bearer realm="three-thirteen"')] if status == 401
                   else [("Retry-After", str(retry_after))] if status in (429, 503) else [])
        return _problem(status, exc.code, exc.message, path, headers, exc.details)
    if isinstance(exc, UnknownGameError):
        return _problem(404, "unknown_game", "there is no game with this id (or it expired)",
                        path, [], {})
    if isinstance(exc, (StorageUnavailableError, redis.ConnectionError, redis.TimeoutError)):
        log.warning("storage unavailable: %s", exc)
        return _problem(503, "storage_unavailable", "the game store is unreachable; retry later",
                        path, [("Retry-After", str(retry_after))], {})
    if isinstance(exc, EngineError):
        return None  # none is raised by a read: a 500 says so
    return None


def _problem(status: int, code: str, detail: str, path: str, headers: list[tuple[str, str]],
             extra: dict[str, object]) -> Answer:
    body = problem_bytes(status, code, detail, path, **extra)
    return Answer(status, [("Content-Type", PROBLEM_CONTENT_TYPE), *headers], body)


def internal_error(request: Request) -> Answer:
    return _problem(500, "internal_error", "an unexpected error occurred", request.path, [], {})


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
