"""Pushed streams of one game: what a follower is sent, as a generator of messages.

Why a generator of plain messages: the HTTP layer only frames them (Server-Sent Events
or NDJSON, ``service/api/stream.py``), so what a stream sends, in which order, and when
it ends is decided and tested here once, on the in-memory store, for both formats.

What a stream sends (``docs/streams.md``): on connect the events after the cursor, then
the bearer's current view; on every move the new events, then the new view; a
heartbeat when nothing happened for ``heartbeat_seconds``; on a finished game with an
analysis asked for, an ``analysis`` message (its status and progress) at once and at
each change, the stream staying open until it is done; and a last ``end`` message
(``finished`` after a finished game's final view, ``max_duration``, ``shutdown``, or
``unavailable`` when the store failed)
with a retry hint. Events carry their ``seq``, so a client resumes exactly where it was.

Why through the watch: every read and rendering goes through :meth:`GameStore.watch`,
so the streams of one game that one move wakes in a worker share one read and one
rendering per distinct view (the key is the version, the seat and the open seats), as
the long-polls of :mod:`.waits` do.

A stream only reads: the moves the service owes (a bot's, a time-out) are made by the
move workers (:mod:`.moves`), whose saves wake the streams like any other move.

Stream tickets: a browser's ``EventSource`` cannot send ``Authorization``, and a token
in a URL ends up in logs and histories. A seat trades its token for a ticket that opens
one stream within ``TICKET_TTL_SECONDS``: a random secret stored only as its sha256,
whose value is the seat's credential, taken from the store once.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from service.storage import GameRecord, GameWatch, StorageUnavailableError, Stores

from .errors import AuthError, InvalidCursorError
from .games import seat_of, seat_of_digest
from .views import game_view_bytes

__all__ = [
    "END_RETRY_MS",
    "STREAM_PAGE",
    "TICKET_TTL_SECONDS",
    "Message",
    "check_cursor",
    "end_message",
    "issue_ticket",
    "new_ticket",
    "redeem_ticket",
    "stream_messages",
    "ticket_hash",
]

#: How long a stream ticket may wait before it is used (EventSource opens at once).
TICKET_TTL_SECONDS = 30
#: The reconnect delay a stream's end suggests (SSE ``retry:``; NDJSON ``retry_ms``).
END_RETRY_MS = 1000
#: Events read per step on connect: a long catch-up goes out in pages.
STREAM_PAGE = 500


@dataclass(frozen=True, slots=True)
class Message:
    """One message of a stream.

    ``kind`` is ``event`` (``data`` the event as the bearer may see it, ``seq`` its
    number), ``view`` (``body`` the rendered view, the bytes GET returns), ``analysis``
    (``data``: ``status`` and ``progress`` of the finished game's analysis),
    ``heartbeat`` or ``end`` (``data``: ``reason`` and ``retry_ms``)."""

    kind: str
    data: dict[str, Any] | None = None
    body: bytes | None = None
    seq: int | None = None


def check_cursor(record: GameRecord, after: int) -> None:
    """Refuse a cursor beyond the game's newest event (:class:`InvalidCursorError`), as
    the events endpoint does: no event will ever come after a cursor the game never gave."""
    newest = record.state.event_seq
    if after > newest:
        raise InvalidCursorError(
            f"the cursor is {after} but the newest event of this game is {newest}",
            newest=newest)


def issue_ticket(stores: Stores, game_id: str, who: str | None) -> str:
    """A single-use ticket for a stream as the seat the credential ``who`` holds (401
    without one)."""
    if who is None:
        raise AuthError("a stream ticket needs a seat token or an account key: send "
                        "Authorization: Bearer <token>")
    record = stores.games.load(game_id)
    seat_of(record, who)  # refuses a bearer of no seat
    return new_ticket(stores, game_id, who)


def redeem_ticket(stores: Stores, game_id: str, ticket: str) -> tuple[GameRecord, int]:
    """The game and the seat a ticket was issued for, using the ticket up (401 for a
    ticket that is unknown, used or expired)."""
    digest = stores.tickets.take_ticket(game_id, ticket_hash(ticket))
    if digest is None:
        raise AuthError("this stream ticket is unknown, used or expired: get a new one")
    record = stores.games.load(game_id)
    return record, seat_of_digest(record, digest)


def new_ticket(stores: Stores, scope: str, who: str) -> str:
    """A new single-use ticket of ``scope`` (a game, or accounts' streams) for ``who``,
    valid ``TICKET_TTL_SECONDS``, stored only as its hash."""
    while True:
        ticket = secrets.token_urlsafe(24)
        if stores.tickets.put_ticket(scope, ticket_hash(ticket), who, TICKET_TTL_SECONDS):
            return ticket


def ticket_hash(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()


def stream_messages(
    stores: Stores, game_id: str, seat: int | None, after: int, *,
    max_seconds: float, heartbeat_seconds: float, stopping: Callable[[], bool],
    known_version: int | None = None, frame_view: Callable[[bytes], bytes] | None = None,
) -> Iterator[Message]:
    """The messages of one stream of ``game_id`` for ``seat`` (``None``: a spectator)
    with events after ``after``, until the game is finished, ``max_seconds`` pass, or
    ``stopping()`` says the service is shutting down (checked at every wake-up; the
    shutdown wakes every watch, :meth:`GameStore.wake_all`).

    When the store fails mid-stream (Redis restarting), the stream ends with reason
    ``unavailable`` and a retry hint rather than being cut: the response is already a
    200, so this is the only way left to tell the client to come back.

    ``known_version``: a version the caller has just read (checking the bearer). The
    stream's first read may then be one another waiter of this game made since the last
    move, if it is at least that new: a burst of streams opening on one game costs one
    Redis read, not one each, and keeps one game in memory, not one per stream.

    ``frame_view``: how the caller frames a view for the wire (SSE or NDJSON); a view
    message's ``body`` is then the framed bytes, made once per distinct view and framing
    for every stream of this wake-up (:meth:`GameWatch.shared`), so they all send and
    keep alive one object rather than a copy each."""
    # (one generator, not a wrapper over another: each generator a parked stream is
    # suspended in is one more interpreter frame on the greenlet's saved C stack)
    deadline = time.monotonic() + max_seconds
    try:
        with stores.games.watch(game_id) as watch:
            # after subscribing: nothing slips by (a shared read made before a move that is not
            # yet announced is followed by that move's wake-up, which reads again)
            record = watch.load(at_least=known_version)
            sent_view: tuple[Any, ...] | None = None
            sent_analysis: dict[str, Any] | None = None
            while True:
                newest = record.state.event_seq
                while after < newest:
                    events = [e for e in _events(watch, after, newest) if e.seq <= newest]
                    if not events:
                        break  # the log was cut short (an expired game): nothing more to send
                    for event in events:
                        yield Message("event", event.for_seat(seat), seq=event.seq)
                    after = events[-1].seq
                key = ("view", record.state.version, seat, tuple(record.open_seats))
                if key != sent_view:
                    render = partial(
                        game_view_bytes, game_id, record.state, seat, record.open_seats)
                    body = watch.shared((*key, frame_view), render if frame_view is None
                                        else partial(_framed, frame_view, render))
                    yield Message("view", body=body)
                    sent_view = key
                if record.state.finished:
                    # a finished game's analysis, followed while a worker has it: its
                    # changes are published on the game's channel like a move
                    analysis = watch.shared(("analysis",),
                                            partial(stores.analyses.load, game_id))
                    if analysis is not None:
                        shown = {"status": analysis.status, "progress": analysis.progress}
                        if shown != sent_analysis:
                            yield Message("analysis", shown)
                            sent_analysis = shown
                    if analysis is None or analysis.status == "done":
                        yield end_message("finished")
                        return
                while True:
                    if stopping():
                        yield end_message("shutdown")
                        return
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        yield end_message("max_duration")
                        return
                    if watch.wait(min(remaining, heartbeat_seconds)):
                        break
                    if stopping() or time.monotonic() >= deadline:
                        continue  # ends above, without a heartbeat first
                    yield Message("heartbeat")
                if stopping():
                    continue  # the shutdown's wake-up: end without another read
                if not record.state.finished:  # (a finished game's wake-up: its analysis)
                    record = watch.load(at_least=record.state.version)
    except StorageUnavailableError:
        yield end_message("unavailable")


def _framed(frame: Callable[[bytes], bytes], render: Callable[[], bytes]) -> bytes:
    return frame(render())


def _events(watch: GameWatch, after: int, newest: int) -> list[Any]:
    """The events after ``after``, through the watch (shared by the streams of this
    wake-up at the same cursor); re-read afresh if the shared read is older than the
    state this stream is at (read before a later move), so events never lag the view."""
    events = watch.events(after, STREAM_PAGE)
    if (not events or events[-1].seq < newest) and len(events) < STREAM_PAGE:
        events = watch.store.events(watch.game_id, after, STREAM_PAGE)
    return events


def end_message(reason: str) -> Message:
    return Message("end", {"reason": reason, "retry_ms": END_RETRY_MS})
