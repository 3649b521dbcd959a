"""HTTP/1.1 for the push tier: one asyncio protocol per connection, parsed by httptools.

Why httptools and a protocol of our own rather than a framework: the push tier's every
answer is a few pre-rendered byte strings (a head and a view shared by thousands of
waiters), so what a request costs is the parser and the loop. httptools is llhttp's
binding (the parser Node.js maintains, and uvicorn's), and an ``asyncio.Protocol`` on
uvloop adds a few microseconds per request where a framework's request objects, hooks
and middleware add tens (measured on the gevent workers).

A connection serves its requests one after another (HTTP/1.1 keep-alive; a pipelined
request waits for the one before it). Only a ``POST`` may have a body (the stream of many
games and its changes: a list of game ids), of at most the service's ``MAX_BODY_BYTES``
(else ``413``, as the web workers answer); a body on any other method is refused, as
before. When the client goes away, the task answering it is cancelled, so a parked
request gives its wait slot back at once.

A client that stops reading is not written to without bound: the kernel's buffer for it
is :data:`SEND_BUFFER_BYTES` (not grown by Linux's autotuning), and the transport pauses
the connection's :class:`Writer` once it holds :data:`HIGH_WATER_BYTES` unsent, and a handler
writes nothing more until it has drained (a stream goes on from its cursor then:
:mod:`.streams`); a pipelined request is not answered while the answer before it waits.
"""

from __future__ import annotations

import asyncio
import http
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.utils import formatdate
from typing import cast
from urllib.parse import parse_qsl, unquote

import httptools

from service.wire.problems import PROBLEM_CONTENT_TYPE, problem_bytes

__all__ = ["Connection", "Request", "Writer", "head"]

#: The most a request's head (its URL and headers) may take: a GET of this API needs a
#: few hundred bytes; more is refused (431) before anything is looked up.
MAX_HEAD_BYTES = 16 * 1024
#: How long a connection may sit without a request before it is closed (an idle keep-alive).
KEEPALIVE_SECONDS = 75.0
#: The unsent bytes a connection's transport may hold before its writer is paused. Why
#: so few: a client that stops reading (a closed laptop, a stalled proxy) would otherwise
#: have this process hold every later message for it, and a stream does not need a queue
#: here, since its cursor in the game's event log is one: a few frames (a view is a few
#: KB) keep a reader that is merely slow busy, and the rest waits in Redis, shared.
HIGH_WATER_BYTES = 64 * 1024
#: The kernel's send buffer of each connection (``SO_SNDBUF``; Linux doubles it for its
#: bookkeeping). Why set: left alone, Linux grows a socket's send buffer with the
#: connection's congestion window, on the loopback to 4 MB (``net.ipv4.tcp_wmem``'s
#: maximum), so a client that stopped reading would cost the kernel megabytes before its
#: writer paused at all (``make bench-push``'s stalled-readers row: about 2,800 moves of a
#: game). 32 KiB holds several of a stream's messages; a reader keeps up through it at
#: 32 KiB per round trip, far more than a game pushes.
SEND_BUFFER_BYTES = 32 * 1024
#: Where a paused writer resumes: a quarter of the high-water mark, so a draining client
#: is not paused and resumed on every frame.
LOW_WATER_BYTES = HIGH_WATER_BYTES // 4


@dataclass(slots=True)
class Request:
    """One parsed request: its method, path (percent-decoded), first value of each query
    parameter, headers (names lower-cased, first value of each), the client address, and
    its body (a ``POST``'s; empty for any other)."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    peer: str | None
    keep_alive: bool
    http11: bool
    body: bytes = b""


class Writer:
    """What a handler writes its answer with: the connection's transport, whether the
    client is still there, and whether it keeps up (``paused``: the transport holds more
    than :data:`HIGH_WATER_BYTES` unsent, until it is down to :data:`LOW_WATER_BYTES`).

    :meth:`write` always writes (a handler that must end, ends); a handler that writes
    more than one message checks ``paused`` between them and waits on :meth:`writable`.
    """

    __slots__ = ("_writable", "closed", "paused", "transport")

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.closed = False
        self.paused = False
        self._writable: asyncio.Future[None] | None = None

    def write(self, data: bytes) -> None:
        if not self.closed:
            self.transport.write(data)

    def writable(self) -> asyncio.Future[None]:
        """A future done once this writer may write again (the transport drained or the
        connection was lost): done already when it is not paused. A future rather than a
        coroutine so that a handler can wait on it together with other wake-ups."""
        waiter = self._writable
        if waiter is None or waiter.cancelled():
            waiter = self._writable = asyncio.get_running_loop().create_future()
            if not self.paused or self.closed:
                waiter.set_result(None)
        return waiter

    def pause(self) -> None:
        self.paused = True
        if self._writable is not None and self._writable.done():
            self._writable = None

    def resume(self) -> None:
        self.paused = False
        self._wake()

    def lose(self) -> None:
        self.closed = True
        self._wake()

    def _wake(self) -> None:
        waiter = self._writable
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


Handler = Callable[[Request, Writer], Awaitable[bool]]
"""Answers one request; returns whether the connection may serve another after it."""


_REASONS = {status.value: status.phrase for status in http.HTTPStatus}
_date: tuple[int, bytes] = (0, b"")


def http_date() -> bytes:
    """Now as an HTTP-date (made once a second)."""
    global _date
    now = int(time.time())
    if _date[0] != now:
        _date = (now, formatdate(now, usegmt=True).encode())
    return _date[1]


def head(status: int, headers: list[tuple[str, str]], *, length: int | None,
         keep_alive: bool, http11: bool = True) -> bytes:
    """A response's status line and headers: with ``Content-Length`` when ``length`` is
    given, else chunked (HTTP/1.1) or to the close (HTTP/1.0)."""
    reason = _REASONS.get(status, "")
    lines = [b"HTTP/1.1 %d %s\r\nDate: %s\r\n" % (status, reason.encode(), http_date())]
    if length is not None:
        lines.append(b"Content-Length: %d\r\n" % length)
    elif http11:
        lines.append(b"Transfer-Encoding: chunked\r\n")
    else:
        keep_alive = False
    lines.append(b"Connection: keep-alive\r\n" if keep_alive else b"Connection: close\r\n")
    lines.extend(f"{name}: {value}\r\n".encode("latin-1") for name, value in headers)
    lines.append(b"\r\n")
    return b"".join(lines)


class Connection(asyncio.Protocol):
    """One client connection: parses its requests and runs ``handler`` on each in turn.
    Slotted, as :class:`Writer`: an idle stream's connection is held 100,000 times."""

    __slots__ = ("_body", "_handler", "_head_bytes", "_headers", "_idle", "_max_body",
                 "_on_close",
                 "_on_open", "_parser", "_peer", "_pending", "_task", "_transport", "_url",
                 "_writer")

    def __init__(self, handler: Handler, on_open: Callable[[Connection], None],
                 on_close: Callable[[Connection], None], max_body: int = 65536) -> None:
        self._handler = handler
        self._max_body = max_body
        self._on_open = on_open
        self._on_close = on_close
        self._parser = httptools.HttpRequestParser(self)
        self._transport: asyncio.Transport | None = None
        self._writer: Writer | None = None
        self._peer: str | None = None
        self._url = b""
        self._headers: dict[str, str] = {}
        self._head_bytes = 0
        self._body = bytearray()
        self._pending: list[Request] = []
        self._task: asyncio.Task[None] | None = None
        self._idle: asyncio.TimerHandle | None = None

    # -- asyncio's side ----------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports are not asyncio.Transport's subclasses, but have its methods)
        self._transport = cast(asyncio.Transport, transport)
        self._transport.set_write_buffer_limits(HIGH_WATER_BYTES, LOW_WATER_BYTES)
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER_BYTES)
        self._writer = Writer(self._transport)
        peer = transport.get_extra_info("peername")
        self._peer = str(peer[0]) if isinstance(peer, tuple) else None
        self._on_open(self)
        self._arm_idle()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._writer is not None:
            self._writer.lose()
        if self._task is not None:
            self._task.cancel()
        if self._idle is not None:
            self._idle.cancel()
        self._on_close(self)

    def pause_writing(self) -> None:
        if self._writer is not None:
            self._writer.pause()

    def resume_writing(self) -> None:
        if self._writer is not None:
            self._writer.resume()

    def data_received(self, data: bytes) -> None:
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._refuse(400, "bad_request_line", "a protocol upgrade is not served here")
        except httptools.HttpParserError:
            self._refuse(400, "bad_request_line",
                         "the request is not a method, a target and HTTP/1.0 or HTTP/1.1, "
                         "with well-formed header fields")

    def close(self) -> None:
        """Close at once (the process is stopping and this connection is idle, or done)."""
        if self._transport is not None:
            self._transport.close()

    @property
    def busy(self) -> bool:
        return self._task is not None

    @property
    def paused(self) -> bool:
        """Whether the client has fallen behind (its writer is paused)."""
        return self._writer is not None and self._writer.paused

    @property
    def unsent(self) -> int:
        """The bytes written to this connection that its transport still holds."""
        if self._transport is None:
            return 0
        return self._transport.get_write_buffer_size()

    # -- httptools' callbacks ----------------------------------------------------------

    def on_message_begin(self) -> None:
        self._url = b""
        self._headers = {}
        self._head_bytes = 0
        self._body = bytearray()

    def on_url(self, url: bytes) -> None:
        self._url += url
        self._grow(len(url))

    def on_header(self, name: bytes, value: bytes) -> None:
        self._grow(len(name) + len(value))
        key = name.decode("latin-1").lower()
        if key not in self._headers:  # the first of a repeated header, as werkzeug's get()
            self._headers[key] = value.decode("latin-1")

    def on_body(self, body: bytes) -> None:
        self._body += body
        if len(self._body) > self._max_body:
            self._refuse(413, "body_too_large",
                         f"the request body is over {self._max_body} bytes")
            raise httptools.HttpParserError("body too large")

    def on_message_complete(self) -> None:
        method = self._parser.get_method().decode("latin-1")
        if self._body and method != "POST":
            self._refuse(413, "body_too_large", "the waiting routes take no request body")
            return
        parsed = httptools.parse_url(self._url)
        path = unquote(parsed.path.decode("latin-1"), errors="replace")
        query: dict[str, str] = {}
        if parsed.query:
            for name, value in parse_qsl(parsed.query.decode("latin-1"), keep_blank_values=True):
                query.setdefault(name, value)
        request = Request(method, path, query, self._headers, self._peer,
                          self._parser.should_keep_alive(),
                          self._parser.get_http_version() == "1.1", bytes(self._body))
        self._body = bytearray()
        if self._task is None:
            self._start(request)
        else:
            self._pending.append(request)
            assert self._transport is not None
            self._transport.pause_reading()  # one request ahead at most

    # -- running the handler -----------------------------------------------------------

    def _grow(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > MAX_HEAD_BYTES:
            self._refuse(431, "header_fields_too_large",
                         f"the request's target and header fields exceed {MAX_HEAD_BYTES} bytes")
            raise httptools.HttpParserError("head too large")

    def _start(self, request: Request) -> None:
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        self._task = asyncio.get_running_loop().create_task(self._run(request))

    async def _run(self, request: Request) -> None:
        assert self._writer is not None and self._transport is not None
        keep = False
        try:
            keep = await self._handler(request, self._writer) and request.keep_alive
            if keep and self._pending:
                await self._writer.writable()  # the next answer once this one is taken
        finally:
            self._task = None
        if not keep or self._writer.closed:
            self._transport.close()
            return
        if self._pending:
            self._start(self._pending.pop(0))
            self._transport.resume_reading()
        else:
            self._arm_idle()

    def _arm_idle(self) -> None:
        self._idle = asyncio.get_running_loop().call_later(KEEPALIVE_SECONDS, self.close)

    def _refuse(self, status: int, code: str, detail: str) -> None:
        """A request this process will not parse, answered as the problem gunicorn's
        refusal of it is (``service/refusals.py``), and the connection closed."""
        if self._transport is None or self._transport.is_closing():
            return
        body = problem_bytes(status, code, detail, "")
        self._transport.write(head(status, [("Content-Type", PROBLEM_CONTENT_TYPE)],
                                   length=len(body), keep_alive=False) + body)
        self._transport.close()
