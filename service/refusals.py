"""What gunicorn's own refusals become: the service's problem+json, not gunicorn's HTML.

gunicorn refuses a request it cannot parse before the app sees it (a malformed request
line or header, a request line over ``limit_request_line``, too many header fields or
one over ``limit_request_field_size``…) and writes a ``text/html`` page for it. Every
other error of the service is ``application/problem+json`` with a stable ``code``
(``service/api/problems.py``), and a client that switches on ``code`` must not meet an
HTML page it cannot read. :data:`REFUSALS` gives each such gunicorn error its problem,
with the status gunicorn itself answers (tests/test_refusals.py holds the two together);
the worker classes of ``service/gunicorn_workers.py`` write them.

Why a module of its own: the gunicorn master imports the worker classes before it forks,
long before the app, so what they use is kept to gunicorn's parser errors and orjson;
``service/api/problems.py`` reads the codes from here so that they are in the one table
of codes (``CODE_STATUSES``) and the OpenAPI document's enum.
"""

from __future__ import annotations

import os
from ssl import SSLError
from typing import NamedTuple, Protocol

import orjson
from gunicorn.http.errors import (
    ExpectationFailed,
    InvalidHeader,
    InvalidHeaderName,
    InvalidHTTPVersion,
    InvalidRequestLine,
    InvalidRequestMethod,
    InvalidSchemeHeaders,
    LimitRequestHeaders,
    LimitRequestLine,
    ObsoleteFolding,
    ParseException,
    UnsupportedTransferCoding,
)

__all__ = ["INTERNAL_ERROR", "REFUSALS", "Limits", "Refusal", "new_request_id", "refusal_of",
           "response_bytes"]

#: How much of gunicorn's own description of the error a ``detail`` quotes (it may hold
#: a whole request line of 8 KB).
QUOTED_CHARACTERS = 200


class Limits(Protocol):
    """The gunicorn settings a refusal's ``detail`` names (gunicorn's ``Config``)."""

    @property
    def limit_request_line(self) -> int: ...

    @property
    def limit_request_fields(self) -> int: ...

    @property
    def limit_request_field_size(self) -> int: ...


class Refusal(NamedTuple):
    """One problem gunicorn's refusal becomes: its status (with the status line's reason
    phrase), ``code``, ``title`` and a ``detail`` that may name the settings of
    :class:`Limits` (``{limit_request_line}``…)."""

    status: int
    code: str
    title: str
    reason: str
    detail: str


_BAD_REQUEST_LINE = Refusal(
    400, "bad_request_line", "Bad request", "Bad Request",
    "the request line is not a method, a target and HTTP/1.0 or HTTP/1.1")
_BAD_HEADER_FIELD = Refusal(
    400, "bad_header_field", "Bad request", "Bad Request",
    "a header field is malformed, folded over lines, or contradicts another "
    "(Content-Length, Transfer-Encoding, the forwarded scheme)")

#: gunicorn's parser errors, by exact class, and their problems. The statuses are the ones
#: gunicorn's own ``Worker.handle_error`` answers (only the body and its type change).
#: Exact classes: a subclass gunicorn adds later (its ``InvalidResponseHeader``, an error
#: of the app's own headers, is a 500 there) is not taken for its parent.
REFUSALS: dict[type[BaseException], Refusal] = {
    InvalidRequestLine: _BAD_REQUEST_LINE,
    InvalidRequestMethod: _BAD_REQUEST_LINE,
    InvalidHTTPVersion: _BAD_REQUEST_LINE,
    LimitRequestLine: Refusal(
        414, "request_line_too_long", "URI too long", "URI Too Long",
        "the request line (method, target and version) is over {limit_request_line} bytes"),
    InvalidHeader: _BAD_HEADER_FIELD,
    InvalidHeaderName: _BAD_HEADER_FIELD,
    ObsoleteFolding: _BAD_HEADER_FIELD,
    InvalidSchemeHeaders: _BAD_HEADER_FIELD,
    LimitRequestHeaders: Refusal(
        431, "header_fields_too_large", "Request header fields too large",
        "Request Header Fields Too Large",
        "more than {limit_request_fields} header fields, or one over "
        "{limit_request_field_size} bytes"),
    ExpectationFailed: Refusal(
        417, "expectation_failed", "Expectation failed", "Expectation Failed",
        "an Expect header other than 100-continue"),
    UnsupportedTransferCoding: Refusal(
        501, "unsupported_transfer_coding", "Not implemented", "Not Implemented",
        "a Transfer-Encoding other than chunked, gzip, deflate or compress"),
}

#: What any other error of a worker becomes (gunicorn answers those 500 as well): an
#: exception of the app that escaped it before it began its answer.
INTERNAL_ERROR = Refusal(500, "internal_error", "Internal server error",
                         "Internal Server Error", "an unexpected error occurred")


def refusal_of(exc: BaseException) -> Refusal | None:
    """The problem for ``exc``, or ``None`` for the other errors of gunicorn's, which keep
    gunicorn's own answer: those of what the service does not use (PROXY protocol, TLS,
    HTTP/2), a setting gunicorn finds wrong, and a malformed chunk of a body (the app
    reads the body itself; gunicorn meets one only when it skips what the app left
    unread, after the app's answer)."""
    found = REFUSALS.get(type(exc))
    if found is not None:
        return found
    if isinstance(exc, ParseException | SSLError):
        return None
    return INTERNAL_ERROR


def response_bytes(refusal: Refusal, exc: BaseException, limits: Limits,
                   request_id: str, cors_any_origin: bool) -> bytes:
    """The whole HTTP/1.1 answer, closing the connection as gunicorn's own does.

    ``detail`` names the limit at fault and quotes gunicorn's description of the error
    (``'Invalid HTTP header name: "B(d"'``), cut at :data:`QUOTED_CHARACTERS`; a 500 quotes
    nothing. There is no ``instance``: the request's path is what could not be read.
    ``cors_any_origin``: ``CORS_ORIGINS`` allows any origin, so the answer carries
    ``Access-Control-Allow-Origin: *`` as the app's do (a list of origins cannot be
    matched: the ``Origin`` header is among what was refused, so none is sent)."""
    detail = refusal.detail.format(
        limit_request_line=limits.limit_request_line,
        limit_request_fields=limits.limit_request_fields,
        limit_request_field_size=limits.limit_request_field_size)
    if refusal is not INTERNAL_ERROR:
        said = str(exc)
        if len(said) > QUOTED_CHARACTERS:
            said = said[:QUOTED_CHARACTERS] + "…"
        detail = f"{detail} ({said})"
    body = orjson.dumps({
        "type": f"urn:three-thirteen:problem:{refusal.code}",
        "title": refusal.title,
        "status": refusal.status,
        "detail": detail,
        "code": refusal.code,
    })
    head = [f"HTTP/1.1 {refusal.status} {refusal.reason}", "Connection: close",
            "Content-Type: application/problem+json", f"Content-Length: {len(body)}",
            f"X-Request-ID: {request_id}"]
    if cors_any_origin:
        head += ["Access-Control-Allow-Origin: *", "Access-Control-Expose-Headers: X-Request-ID"]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def new_request_id() -> str:
    """A fresh id as the app gives a request that sent none (``service/api/ops.py``)."""
    return os.urandom(16).hex()
