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

__all__ = ["NDJSON", "SSE", "Tagged", "ndjson_message", "ndjson_view", "negotiate",
           "sse_message", "sse_preamble", "sse_view"]

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


class Tagged:
    """The framing of one game's messages on a stream of many games (the push tier's
    ``POST /v1/streams/games``): each message the game's own stream sends, with the game
    it is about as its ``game`` member.

    NDJSON: the game's own line with ``"game"`` after ``"type"``. Server-Sent Events: the
    ``event`` field is the name as on the game's stream, and ``data`` is that NDJSON line
    without its ``type`` (``{"game": …, "event": {…}}``, ``{"game": …, "view": {…}}``…),
    since the game's own SSE data (the bare event, the bare view) has no room for it. An
    event has no ``id`` field here: ``Last-Event-ID`` names a place in one game's log,
    and a stream of many has no one such place (and ``EventSource``, the only client
    that sends it, cannot ``POST``)."""

    __slots__ = ("_head", "sse")

    def __init__(self, kind: str, game_id: str) -> None:
        self.sse = kind == SSE
        self._head = b'"game":%s' % orjson.dumps(game_id)

    def message(self, message: Message) -> bytes:
        if message.kind == "heartbeat":
            return sse_message(message) if self.sse else ndjson_message(message)
        if message.kind == "event":
            members = b'%s,"event":%s' % (self._head, orjson.dumps(message.data))
        else:
            assert message.data is not None and message.kind != "view"
            rest = orjson.dumps(message.data)
            members = self._head + (b"," + rest[1:-1] if rest != b"{}" else b"")
        return self._framed(message.kind.encode(), members)

    def view(self, body: bytes) -> bytes:
        return self._framed(b"view", b'%s,"view":%s' % (self._head, body))

    def _framed(self, name: bytes, members: bytes) -> bytes:
        if self.sse:
            return b"event: %s\ndata: {%s}\n\n" % (name, members)
        return b'{"type":"%s",%s}\n' % (name, members)
