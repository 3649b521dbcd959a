"""``GET /v1/me/stream`` on the push tier: an account's notes pushed as they come, as
Flask's ``me.MyStream.get`` and :func:`service.play.note_messages` push them.

The checks before the first byte are the Flask view's, in its order (the early refusal,
the format, the cursor, the ticket or the key, the cursor against the newest note, the
wait slot), so errors are the same problems; what is sent and when the stream ends is
:func:`service.play.note_messages`'s, step for step: the notes after the cursor, a page
at a time, then each new note as it is appended, heartbeats while idle, and a last
``end`` (``max_duration``, ``shutdown``, ``unavailable``). It waits on the account's
channel (:func:`service.storage.redis.accounts.account_topic`), which each appended note
publishes on: one :class:`~.feed.Feed` per account and process, whose streams share one
read of the notes after a cursor per publication.

Why this stream writes, where every other request of the push tier only reads: while it
is open it holds its account's waiting seeks, as a web worker's does
(:mod:`service.play.seek_holds`: a seek ends when the stream holding it closes, and is
never matched after that), and a hold is a write to the seek board (with the game a
match it completes makes). The holds are the service layer's own
(:func:`service.play.stream_holds`), worked in threads one step at a time, and the
connection they look at is this one: a client that goes away cancels the stream's task,
and the stream then cancels the seeks it held, as a worker's does when its write fails.

A client that stops reading is written nothing more (heartbeats neither) until it has
drained; the stream then goes on from the last note it wrote (its cursor), as a game's
stream does (:mod:`.streams`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from service import play
from service.play import end_message
from service.storage import Account
from service.storage.redis.accounts import account_topic
from service.wire.bearer import identity
from service.wire.framing import SSE, negotiate, sse_preamble
from service.wire.problems import UNAVAILABLE
from service.wire.queries import event_cursor, ticket_of

from .answers import common_headers
from .context import Push
from .http import Request, Writer, head
from .streams import Frames, frames_of

__all__ = ["account_stream"]

T = TypeVar("T")


async def account_stream(push: Push, request: Request, writer: Writer) -> bool:
    """Open the stream and push it until it ends (see the module); whether the connection
    may serve another request afterwards. Raises the problems of its checks."""
    query = request.query
    address = push.address(request)
    bearer = identity(request.headers.get("authorization"))
    push.slots.check(address, bearer)  # Flask's early refusal: before anything
    kind = negotiate(request.headers.get("accept"))
    after = event_cursor(query.get("after"), request.headers.get("last-event-id"))
    ticket = query.get("ticket")
    if ticket is not None:
        mine = await asyncio.to_thread(play.redeem_account_ticket, push.stores,
                                       ticket_of(ticket))
    else:
        mine = await push.account(request)
    await asyncio.to_thread(play.check_note_cursor, push.stores, mine, after)
    with push.slots.hold(address, bearer):
        frames = frames_of(kind, request.http11)
        headers = [("Content-Type", kind), ("X-Accel-Buffering", "no"),
                   ("Cache-Control", "private, no-cache"), *common_headers(request, push.cors)]
        keep = request.keep_alive and request.http11
        writer.write(head(200, headers, length=None, keep_alive=keep, http11=request.http11))
        if kind == SSE:
            writer.write(frames.wire(sse_preamble(play.END_RETRY_MS)))
        await _push(push, writer, mine, after, frames)
        if frames.chunked:
            writer.write(b"0\r\n\r\n")
    return keep


class _Connection:
    """This stream's connection as the holds look at it
    (:class:`service.play.seek_holds.Connection`)."""

    __slots__ = ("writer",)

    def __init__(self, writer: Writer) -> None:
        self.writer = writer

    def closed(self) -> bool:
        return self.writer.closed


class _Holding:
    """The stream's holds, worked in threads one step at a time: a step still running
    when the stream's task was cancelled (its client went away) ends before the last one
    (:meth:`service.play.StreamHolds.end`) begins."""

    def __init__(self, holds: play.StreamHolds) -> None:
        self.holds = holds
        #: a step was begun and its end not seen (the task was cancelled meanwhile)
        self.unsettled = False
        self._lock = threading.Lock()

    async def step(self, work: Callable[[], T]) -> T:
        self.unsettled = True
        result = await asyncio.to_thread(self._one, work)
        self.unsettled = False
        return result

    def _one(self, work: Callable[[], T]) -> T:
        with self._lock:
            return work()


async def _push(push: Push, writer: Writer, mine: Account, after: int,
                frames: Frames) -> None:
    """What :func:`service.play.note_messages` yields, written as it goes."""
    loop = asyncio.get_running_loop()
    config = push.config
    deadline = loop.time() + config.stream_max_seconds
    notes_of = partial(push.stores.accounts.notes, mine.handle)
    holding = _Holding(play.stream_holds(push.stores, mine, _Connection(writer)))
    holds = holding.holds
    closed = False
    try:
        async with push.feeds.watch_topic(account_topic(mine.handle)) as feed:
            while True:
                generation = feed.generation  # (before the read: a note after it wakes us)
                if not await holding.step(holds.look):
                    closed = True
                    return  # the client is gone: nobody to send anything to
                if not writer.paused:
                    notes = await feed.shared_read(("notes", after),
                                                   partial(notes_of, after, play.NOTES_PAGE))
                    if notes:
                        writer.write(frames.wire(b"".join(
                            frames.message(play.note_message(note)) for note in notes)))
                        after = notes[-1].seq
                    if len(notes) == play.NOTES_PAGE:
                        continue
                sent = loop.time()
                while True:
                    if push.stopped():
                        writer.write(frames.one(end_message("shutdown")))
                        return
                    remaining = deadline - loop.time()
                    if remaining <= 0:
                        writer.write(frames.one(end_message("max_duration")))
                        return
                    quiet = config.stream_heartbeat_seconds - (loop.time() - sent)
                    if holds.held:
                        quiet = min(quiet, play.LOOK_SECONDS)
                    quiet = max(0.0, min(remaining, quiet))
                    if writer.paused:  # its notes wait in the store until it has drained
                        woken = await _drained(writer, quiet)
                    else:
                        woken = await feed.wait(generation, quiet)
                    if woken:
                        break
                    if not await holding.step(holds.tick):
                        closed = True
                        return
                    if loop.time() - sent >= config.stream_heartbeat_seconds:
                        if not push.stopped() and loop.time() < deadline \
                                and not writer.paused:
                            writer.write(frames.heartbeat)
                        # (a paused writer's heartbeat is skipped, not owed: else every
                        # later pass would find it due and wait for nothing, a busy loop)
                        sent = loop.time()
    except UNAVAILABLE:
        writer.write(frames.one(end_message("unavailable")))
    except asyncio.CancelledError:  # the client went away
        closed = True
        raise
    finally:
        if holding.unsettled or holds.held:
            # a store down now: the holds lapse by themselves (and end their seeks)
            with contextlib.suppress(*UNAVAILABLE):
                await asyncio.shield(holding.step(partial(holds.end, closed)))


async def _drained(writer: Writer, timeout: float) -> bool:
    """Whether ``writer`` drained within ``timeout`` seconds."""
    done, _ = await asyncio.wait({writer.writable()}, timeout=timeout)
    return bool(done)
