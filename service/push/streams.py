"""``GET /v1/games/{id}/stream`` on the push tier: a game pushed as Server-Sent Events or
NDJSON, as Flask's ``streams.Stream.get`` and :func:`service.play.stream_messages` push it.

The checks before the first byte are the Flask view's, in its order, so errors are the
same problems. What is sent, in which order and when the stream ends is
:func:`service.play.stream_messages`'s, step for step: the events after the cursor, the
bearer's view, on every move the new events and the new view, heartbeats while idle, a
finished game's analysis until it is done, and a last ``end`` (``finished``,
``max_duration``, ``shutdown``, ``unavailable``). Only its waiting is the feed's: each
framed view, and each run of framed events after a cursor, is made once per generation
of the feed and written, the same bytes object, to every stream of its audience.

A client that falls behind is held back by its cursor, not queued for: while its writer
is paused (the connection holds :data:`~.http.HIGH_WATER_BYTES` unsent) nothing more is
written to it, not even heartbeats. Once it drains, the stream goes on from the last
event it wrote: the events after it, read from the store a page at a time (waiting for
the writer between pages), then the newest view only (a view is the whole game, so the
versions it fell behind on need none). That is what a web worker's stream does when its
socket is full (its generator waits in the write, then reads the newest record), so the
messages are the same kinds, each event once and in order, with no new message and no
resync. Only a stream's end (the deadline, the shutdown, the store's failure) is written
while paused: one short frame, once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import cache, partial
from typing import Any, Protocol

from service import play
from service.play import STREAM_PAGE, end_message
from service.storage import GameRecord
from service.wire.bearer import identity
from service.wire.deprecations import concerning, headers_of
from service.wire.framing import (
    SSE,
    Tagged,
    ndjson_message,
    ndjson_view,
    negotiate,
    sse_message,
    sse_preamble,
    sse_view,
)
from service.wire.problems import UNAVAILABLE
from service.wire.queries import event_cursor, ticket_of, valid_game_id

from .alarms import EARLY_SECONDS, Alarms
from .answers import common_headers, for_bearer
from .context import Push
from .feed import GameFeed, settle
from .http import Request, Writer, head

__all__ = ["Frames", "Sink", "follow", "stream"]

_DEPRECATION = list(headers_of(concerning("GET", "/v1/games/{game_id}/stream")).items())


def chunk(data: bytes) -> bytes:
    """``data`` as one chunk of a chunked body."""
    return b"%x\r\n%s\r\n" % (len(data), data)


class Sink(Protocol):
    """What a stream writes to: the connection's :class:`~.http.Writer`, or a stream of
    many games' count of what it wrote (:mod:`.multiplex`)."""

    @property
    def paused(self) -> bool: ...

    @property
    def closed(self) -> bool: ...

    def write(self, data: bytes) -> None: ...

    def writable(self) -> asyncio.Future[None]: ...


class Frames:
    """How one stream's messages are written: SSE or NDJSON, chunked or not (HTTP/1.0);
    with ``game``, as one game's messages on a stream of many
    (:class:`~service.wire.framing.Tagged`). A game's own streams share one object per
    way (:func:`frames_of`), with its heartbeat made once: a stream holds no bytes of its
    own."""

    __slots__ = ("chunked", "heartbeat", "key", "kind", "message", "view")

    def __init__(self, kind: str, chunked: bool, game: str | None = None) -> None:
        self.kind = kind
        self.chunked = chunked
        self.message: Callable[[play.Message], bytes]
        self.view: Callable[[bytes], bytes]
        if game is not None:
            tagged = Tagged(kind, game)
            self.message, self.view = tagged.message, tagged.view
        else:
            self.message, self.view = ((sse_message, sse_view) if kind == SSE
                                       else (ndjson_message, ndjson_view))
        #: what the bytes depend on besides the game (the game is the feed's)
        self.key = (kind, chunked, game is not None)
        self.heartbeat = self.one(play.Message("heartbeat"))

    def wire(self, data: bytes) -> bytes:
        return chunk(data) if self.chunked else data

    def one(self, message: play.Message) -> bytes:
        return self.wire(self.message(message))


@cache
def frames_of(kind: str, chunked: bool) -> Frames:
    """The :class:`Frames` of a game's own streams written one way (four at most)."""
    return Frames(kind, chunked)


async def stream(push: Push, request: Request, game_id: str, writer: Writer) -> bool:
    """Open the stream and push it until it ends (see the module); whether the connection
    may serve another request afterwards. Raises the problems of its checks."""
    query = request.query
    address = push.address(request)
    bearer = identity(request.headers.get("authorization"))
    push.slots.check(address, bearer)  # Flask's early refusal: before anything
    valid_game_id(game_id)
    kind = negotiate(request.headers.get("accept"))
    after = event_cursor(query.get("after"), request.headers.get("last-event-id"))
    ticket = query.get("ticket")
    seat: int | None
    record: GameRecord
    if ticket is not None:
        record, seat = await asyncio.to_thread(play.redeem_ticket, push.stores, game_id,
                                               ticket_of(ticket))
    else:
        who = await push.credential(request)
        record = await asyncio.to_thread(push.stores.games.load, game_id)
        seat = play.seat_of(record, who)
    play.check_cursor(record, after)
    known = record.state.version
    # the feed holds the game: a copy kept in this frame for the stream's life would be
    # a third of what an idle stream costs (the idle row of make bench-push)
    del record
    held = push.slots.take(address, bearer)  # (not a with block: see feeds.Watch)
    try:
        frames = frames_of(kind, request.http11)
        keep = request.keep_alive and request.http11
        writer.write(head(200, [("Content-Type", kind), ("X-Accel-Buffering", "no"),
                                *for_bearer(seat is not None), *_DEPRECATION,
                                *common_headers(request, push.cors)],
                          length=None, keep_alive=keep, http11=request.http11))
        if kind == SSE:
            writer.write(frames.wire(sse_preamble(play.END_RETRY_MS)))
        deadline = asyncio.get_running_loop().time() + push.config.stream_max_seconds
        reason = await follow(push, writer, game_id, seat, after, known, frames, deadline,
                              frames.heartbeat)
        writer.write(frames.one(end_message(reason)))
        if frames.chunked:
            writer.write(b"0\r\n\r\n")
    finally:
        push.slots.give(held)
    return keep


async def follow(push: Push, writer: Sink, game_id: str, seat: int | None, after: int,
                 known_version: int, frames: Frames, deadline: float,
                 heartbeat: bytes | None) -> str:
    """What :func:`service.play.stream_messages` yields but its ``end``, written as it
    goes; the reason the stream ends with (``finished``, ``max_duration``, ``shutdown``,
    ``unavailable``), which the caller writes (a stream of many games writes a game's
    ``finished`` as that game's, and ends itself for the rest).

    ``heartbeat``: written when nothing else was for ``STREAM_HEARTBEAT_SECONDS``;
    ``None``: never (a stream of many games sends its own, one for all its games)."""
    loop = asyncio.get_running_loop()
    config = push.config
    try:
        async with push.feeds.watch(game_id) as feed:
            record = await feed.load(known_version)
            sent_view: tuple[Any, ...] | None = None
            sent_analysis: dict[str, Any] | None = None
            while True:
                generation = feed.generation
                newest = record.state.event_seq
                while after < newest and not writer.paused:
                    events = [e for e in await _events(push, feed, after, newest)
                              if e.seq <= newest]
                    if not events:
                        break  # the log was cut short (an expired game): nothing more to send
                    writer.write(feed.shared(
                        ("events", after, events[-1].seq, seat, frames.key),
                        partial(_framed_events, frames, events, seat)))
                    after = events[-1].seq
                state, open_seats = record.state, record.open_seats
                key = ("view", state.version, seat, tuple(open_seats))
                if key != sent_view and not writer.paused:
                    writer.write(feed.shared((*key, frames.key), partial(
                        _framed_view, frames, feed, record, seat)))
                    sent_view = key
                if state.finished and not writer.paused:
                    analysis = await feed.shared_read(
                        ("analysis",), partial(push.stores.analyses.load, game_id))
                    if analysis is not None:
                        shown = {"status": analysis.status, "progress": analysis.progress}
                        if shown != sent_analysis:
                            writer.write(frames.one(play.Message("analysis", shown)))
                            sent_analysis = shown
                    if analysis is None or analysis.status == "done":
                        return "finished"
                while True:
                    if push.stopped():
                        return "shutdown"
                    remaining = deadline - loop.time()
                    if remaining <= EARLY_SECONDS:  # (an alarm may ring that early)
                        return "max_duration"
                    if feed.generation != generation:
                        break  # a version came while this stream was writing
                    rest = Resting(frames, seat, after, sent_view, writer)
                    feed.rest(rest)
                    try:
                        # a paused writer is waited on too: its draining goes on from the cursor
                        woken = await rest.wait(
                            push.alarms, remaining if heartbeat is None
                            else min(remaining, config.stream_heartbeat_seconds),
                            writer.writable() if writer.paused else None)
                    finally:
                        feed.unrest(rest)
                    after, sent_view = rest.after, rest.view
                    if woken:
                        break
                    if push.stopped() or loop.time() >= deadline - EARLY_SECONDS \
                            or writer.paused or heartbeat is None:
                        continue  # ends above, without a heartbeat first; none while paused
                    writer.write(heartbeat)
                if push.stopped():
                    continue  # the shutdown's wake-up: end without another read
                if feed.failed is not None:
                    raise feed.failed
                if not record.state.finished and feed.record is not None \
                        and feed.record.state.version > record.state.version:
                    record = feed.record
    except UNAVAILABLE:
        return "unavailable"


class Resting:
    """A stream that has sent everything, resting with its feed, which writes it each new
    version itself while it can (:class:`~.feed.Follower`): the events after its cursor
    and the view, framed once per audience and cursor and written as one piece. Its task
    sleeps until :meth:`wake` (what the feed cannot do), its writer drains, or its
    heartbeat's time (an alarm: :mod:`.alarms`).

    A paused writer's stream that rests waiting for the drain is left resting by a new
    version: it could write nothing, and the drain wakes it to go on from its cursor to
    the newest record. Waking it on every move to find that out cost a move its share of
    the readers' time: 1,000 clients that never read would be 1,000 tasks woken per move
    (``make bench-push``'s stalled-readers row)."""

    __slots__ = ("after", "draining", "frames", "seat", "view", "woken", "writer")

    def __init__(self, frames: Frames, seat: int | None, after: int,
                 view: tuple[Any, ...] | None, writer: Sink) -> None:
        self.frames, self.seat, self.after, self.view = frames, seat, after, view
        self.writer = writer
        self.draining = False  # whether the writer's drain wakes it
        self.woken: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    async def wait(self, alarms: Alarms, timeout: float,
                   drained: asyncio.Future[None] | None) -> bool:
        """Until woken or ``drained`` is done (``True``), or ``timeout`` seconds (up to
        an alarm's tick later: ``False``)."""
        tick = alarms.set(timeout, self)
        if drained is not None:
            drained.add_done_callback(self._drained)
            self.draining = True
        try:
            return await self.woken
        finally:
            alarms.cancel(tick, self)
            if drained is not None:
                drained.remove_done_callback(self._drained)

    def ring(self) -> None:
        settle(self.woken, False)

    def _drained(self, _: asyncio.Future[None]) -> None:
        self.wake()

    def wake(self) -> None:
        settle(self.woken, True)

    def follow(self, feed: GameFeed) -> bool:
        if self.writer.closed:
            return False
        if self.writer.paused:
            return self.draining  # (else woken once, to rest waiting for the drain)
        made = feed.shared(("rest", self.after, self.seat, self.frames.key),
                           partial(_next_move, feed, self.after, self.seat, self.frames))
        if made is None:
            return False
        data, newest, view = made
        if view != self.view:
            self.writer.write(data)
            self.after, self.view = newest, view
        return True


def _next_move(feed: GameFeed, after: int, seat: int | None,
               frames: Frames) -> tuple[bytes, int, tuple[Any, ...]] | None:
    """A resting stream's next piece from the feed's newest record and the events read
    with it: the events after ``after`` and the view, framed as one (with the cursor and
    the view's key it leaves the stream at); ``None`` where the feed cannot write it."""
    record, fresh = feed.record, feed.fresh
    if record is None or record.state.finished or fresh is None or fresh[0] != after:
        return None
    newest = record.state.event_seq
    events = [e for e in fresh[1] if e.seq <= newest]
    if newest > after and (not events or events[-1].seq != newest):
        return None  # more than a page came: the task reads them
    view = ("view", record.state.version, seat, tuple(record.open_seats))
    pieces = [_framed_events(frames, events, seat)] if events else []
    pieces.append(_framed_view(frames, feed, record, seat))
    return b"".join(pieces), newest, view


async def _events(push: Push, feed: GameFeed, after: int, newest: int) -> list[Any]:
    """The events after ``after``, read once per generation for every stream at that
    cursor; re-read afresh if the shared read is older than the state this stream is at
    (as :func:`service.play.streams._events`), so events never lag the view."""
    games = push.stores.games
    events: list[Any] = await feed.shared_read(
        ("events", after), partial(games.events, feed.game_id, after, STREAM_PAGE))
    if (not events or events[-1].seq < newest) and len(events) < STREAM_PAGE:
        events = await asyncio.to_thread(games.events, feed.game_id, after, STREAM_PAGE)
    return events


def _framed_events(frames: Frames, events: list[Any], seat: int | None) -> bytes:
    return frames.wire(b"".join(
        frames.message(play.Message("event", e.for_seat(seat), seq=e.seq)) for e in events))


def _framed_view(frames: Frames, feed: GameFeed, record: GameRecord, seat: int | None) -> bytes:
    """The view framed: rendered once per audience for every framing of it (a game's own
    stream's and a stream of many games' frame the same body)."""
    state, open_seats = record.state, record.open_seats
    body = feed.shared(("body", state.version, seat, tuple(open_seats)), partial(
        play.game_view_bytes, feed.game_id, state, seat, open_seats))
    return frames.wire(frames.view(body))

