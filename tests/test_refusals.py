"""gunicorn's own refusals as problems (``service/refusals.py``, ``service/gunicorn_workers.py``):
each with the status gunicorn's own ``handle_error`` answers, in the service's problem
shape; what the service's configuration never meets keeps gunicorn's answer. Written to a
stand-in socket, so no server is needed (tests/ops/test_gunicorn_refusals.py asks a live one).
"""

from __future__ import annotations

import json
from ssl import SSLError
from types import SimpleNamespace
from typing import Any

import pytest
from gunicorn.http import errors
from gunicorn.workers.base import Worker

from service.api.schemas.problem import ProblemSchema
from service.gunicorn_workers import GeventWorker, ThreadWorker
from service.refusals import INTERNAL_ERROR, REFUSALS, refusal_of, response_bytes

#: An instance of each error REFUSALS answers, as gunicorn's parser raises it.
RAISED = {
    errors.InvalidRequestLine: errors.InvalidRequestLine("GARBAGE"),
    errors.InvalidRequestMethod: errors.InvalidRequestMethod("G@T"),
    errors.InvalidHTTPVersion: errors.InvalidHTTPVersion((9, 9)),
    errors.LimitRequestLine: errors.LimitRequestLine(10031, 8190),
    errors.InvalidHeader: errors.InvalidHeader("Bad Header"),
    errors.InvalidHeaderName: errors.InvalidHeaderName("B(d"),
    errors.ObsoleteFolding: errors.ObsoleteFolding("X-A"),
    errors.InvalidSchemeHeaders: errors.InvalidSchemeHeaders(),
    errors.LimitRequestHeaders: errors.LimitRequestHeaders("limit request headers fields"),
    errors.ExpectationFailed: errors.ExpectationFailed("foo"),
    errors.UnsupportedTransferCoding: errors.UnsupportedTransferCoding("br"),
}

LIMITS = SimpleNamespace(limit_request_line=8190, limit_request_fields=32768,
                         limit_request_field_size=8190)


class Socket:
    """What a worker writes its answer to: keeps the bytes."""

    def __init__(self) -> None:
        self.sent = b""

    def gettimeout(self) -> float:
        return 1.0

    def setblocking(self, flag: bool) -> None:
        pass

    def sendall(self, data: bytes) -> None:
        self.sent += data


class Log:
    """A worker's logger (gunicorn's ``glogging.Logger``): keeps what was logged, by level."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str, dict[str, Any]]] = []

    def __getattr__(self, level: str) -> Any:
        def log(message: str, *args: object, **kwargs: Any) -> None:
            self.lines.append((level, message % args if args else message,
                               kwargs.get("extra", {})))
        return log


def parse(sent: bytes) -> tuple[str, dict[str, str], bytes]:
    """The status line, the header fields and the body of an HTTP answer."""
    head, _, body = sent.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    return status, dict(line.split(": ", 1) for line in lines), body


def worker(cls: type[Worker], cors_any_origin: bool = True) -> Any:
    """``cls`` as the arbiter would have made it, without its socket, temporary file or
    event loop: only what ``handle_error`` reads."""
    made = cls.__new__(cls)
    made.log, made.cfg, made.cors_any_origin = Log(), LIMITS, cors_any_origin
    return made


def test_every_answered_error_is_raised_here_and_is_one_of_gunicorns() -> None:
    assert set(RAISED) == set(REFUSALS)
    assert all(issubclass(cls, errors.ParseException) for cls in REFUSALS)


@pytest.mark.parametrize("cls", list(RAISED), ids=lambda cls: cls.__name__)
def test_each_refusal_has_the_status_of_gunicorns_own_answer(cls: type) -> None:
    """gunicorn's ``Worker.handle_error`` (HTML) and the service's (problem+json) answer
    with one status (the reason phrase may differ: gunicorn 27 says "501 Bad Request")."""
    theirs, ours = Socket(), Socket()
    Worker.handle_error(worker(Worker), None, theirs, ("127.0.0.1", 1), RAISED[cls])
    worker(ThreadWorker).handle_error(None, ours, ("127.0.0.1", 1), RAISED[cls])
    assert parse(theirs.sent)[1]["Content-Type"] == "text/html"
    assert parse(ours.sent)[0].split()[1] == parse(theirs.sent)[0].split()[1]
    assert parse(ours.sent)[1]["Content-Type"] == "application/problem+json"


@pytest.mark.parametrize("worker_class", [GeventWorker, ThreadWorker])
@pytest.mark.parametrize("cls", list(RAISED), ids=lambda cls: cls.__name__)
def test_each_refusal_is_a_problem_of_the_services_shape_with_its_code(
    cls: type, worker_class: type[Worker],
) -> None:
    sent = Socket()
    refusing = worker(worker_class)
    refusing.handle_error(None, sent, ("203.0.113.7", 50000), RAISED[cls])
    status, headers, body = parse(sent.sent)
    problem = json.loads(body)
    refusal = REFUSALS[cls]
    assert status.split(" ", 2)[1] == str(refusal.status) == str(problem["status"])
    assert problem == {"type": f"urn:three-thirteen:problem:{refusal.code}",
                       "title": refusal.title, "status": refusal.status,
                       "detail": problem["detail"], "code": refusal.code}
    assert ProblemSchema().validate(problem) == {}  # its code is in the document's enum
    assert str(RAISED[cls]) in problem["detail"]
    assert int(headers["Content-Length"]) == len(body)
    assert headers["Connection"] == "close"
    assert len(headers["X-Request-ID"]) == 32
    assert headers["Access-Control-Allow-Origin"] == "*"
    ((level, message, extra),) = refusing.log.lines
    assert level == "warning" and "203.0.113.7" in message
    assert extra == {"status": refusal.status, "code": refusal.code,
                     "request_id": headers["X-Request-ID"]}


def test_a_detail_names_the_limit_and_quotes_a_long_error_in_part() -> None:
    exc = errors.InvalidRequestLine("G" * 5000)
    _, _, body = parse(response_bytes(REFUSALS[type(exc)], exc, LIMITS, "id", False))
    assert len(json.loads(body)["detail"]) < 400
    exc = errors.LimitRequestLine(10031, 4321)
    _, _, body = parse(response_bytes(REFUSALS[type(exc)], exc, SimpleNamespace(
        limit_request_line=4321, limit_request_fields=1, limit_request_field_size=1),
        "id", False))
    assert "over 4321 bytes" in json.loads(body)["detail"]


def test_without_any_origin_allowed_no_cors_header_is_sent() -> None:
    """A list of origins cannot be matched: the Origin header is among what was refused."""
    sent = Socket()
    worker(GeventWorker, cors_any_origin=False).handle_error(
        None, sent, ("127.0.0.1", 1), RAISED[errors.LimitRequestLine])
    assert not [name for name in parse(sent.sent)[1] if name.startswith("Access-Control")]


def test_any_other_error_of_a_worker_is_a_logged_500_internal_error_problem() -> None:
    sent = Socket()
    refusing = worker(GeventWorker)
    refusing.handle_error(None, sent, ("127.0.0.1", 1), RuntimeError("boom"))
    status, headers, body = parse(sent.sent)
    assert status == "HTTP/1.1 500 Internal Server Error"
    assert headers["Content-Type"] == "application/problem+json"
    assert json.loads(body)["code"] == "internal_error"
    assert "boom" not in json.loads(body)["detail"]
    assert [level for level, _, _ in refusing.log.lines] == ["exception"]
    assert refusal_of(RuntimeError("boom")) is INTERNAL_ERROR


@pytest.mark.parametrize("exc", [
    errors.ForbiddenProxyRequest("203.0.113.7"),  # PROXY protocol: off here
    SSLError("bad handshake"),  # TLS: ends at the proxy in front
    type("LaterHeaderError", (errors.InvalidHeader,), {})("X"),  # a subclass gunicorn adds
], ids=["proxy", "tls", "subclass"])
def test_what_the_service_never_meets_keeps_gunicorns_own_answer(exc: Exception) -> None:
    theirs, ours = Socket(), Socket()
    Worker.handle_error(worker(Worker), None, theirs, ("127.0.0.1", 1), exc)
    worker(GeventWorker).handle_error(None, ours, ("127.0.0.1", 1), exc)
    assert refusal_of(exc) is None
    assert ours.sent == theirs.sent
