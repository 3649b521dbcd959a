"""A stream's messages on the wire: Server-Sent Events or newline-delimited JSON.

What a stream sends is the service layer's (:func:`service.play.stream_messages`, and the
push tier's feeds); how each message looks in bytes is decided here once, so a stream
from a web worker and one from a push process are the same bytes.
"""

from __future__ import annotations

import orjson
from werkzeug.datastructures import MIMEAccept
from werkzeug.http import parse_accept_header

from service.play import Message

from .problems import ApiProblem

__all__ = ["NDJSON", "SSE", "ndjson_message", "ndjson_view", "negotiate", "sse_message",
           "sse_preamble", "sse_view"]

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"


def negotiate(accept: str | None) -> str:
    """The stream's format by ``Accept``: SSE when it allows anything (or is absent),
    NDJSON when preferred; 406 when it allows neither (read as werkzeug reads it for
    Flask, so both front ends choose alike)."""
    if not (accept or "").strip():
        return SSE
    best = parse_accept_header(accept, MIMEAccept).best_match([SSE, NDJSON])
    if best is None:
        raise ApiProblem(
            406, "not_acceptable",
            f"a stream is sent as {SSE} or {NDJSON}: accept one of them (or */*)",
            available=[SSE, NDJSON])
    return best


def sse_preamble(retry_ms: int) -> bytes:
    """What an SSE stream starts with: the reconnect delay ``EventSource`` is to use."""
    return b"retry: %d\n\n" % retry_ms


def sse_view(body: bytes) -> bytes:
    return b"event: view\ndata: %s\n\n" % body


def ndjson_view(body: bytes) -> bytes:
    return b'{"type":"view","view":%s}\n' % body


def sse_message(message: Message) -> bytes:
    if message.kind == "event":
        assert message.seq is not None
        return b"id: %d\nevent: event\ndata: %s\n\n" % (message.seq, orjson.dumps(message.data))
    if message.kind == "view":
        assert message.body is not None
        return message.body  # framed by sse_view
    if message.kind == "heartbeat":
        return b": ping\n\n"
    assert message.data is not None
    if message.kind == "end":
        return b"event: end\nretry: %d\ndata: %s\n\n" % (message.data["retry_ms"],
                                                        orjson.dumps(message.data))
    return b"event: %s\ndata: %s\n\n" % (message.kind.encode(), orjson.dumps(message.data))


def ndjson_message(message: Message) -> bytes:
    if message.kind == "event":
        return b'{"type":"event","event":%s}\n' % orjson.dumps(message.data)
    if message.kind == "view":
        assert message.body is not None
        return message.body  # framed by ndjson_view
    if message.kind == "heartbeat":
        return b"\n"
    return orjson.dumps({"type": message.kind, **(message.data or {})}) + b"\n"
