"""An account's stream: its notes pushed as they come (``GET /v1/me/stream``).

The notes (``challenge``, ``challenge_declined``, ``challenge_canceled``,
``game_started``, ``your_turn``, ``game_finished``) are the account's own numbered log
(:mod:`service.storage.accounts`), so a stream resumes exactly after the last note its
client saw (``Last-Event-ID``, or ``after``): every note once, in order, across
reconnections. It waits the way a game's stream does: parked on the worker's hub (the
account is a channel there), woken by the append of a note, heartbeats while idle, an
``end`` message at ``max_seconds`` or a shutdown, and ``unavailable`` (with a retry hint)
if the store fails mid-stream. A bot needs this one stream and one request per move.
While open, it holds the account's seeks: they end when the client closes it
(:mod:`.seek_holds`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator

from service.storage import Account, Note, StorageUnavailableError, Stores

from .errors import AuthError, InvalidCursorError
from .seek_holds import LOOK_SECONDS, StreamHolds
from .streams import Message, end_message, new_ticket, ticket_hash

__all__ = ["PAGE", "check_note_cursor", "issue_account_ticket", "note_message",
           "note_messages", "redeem_account_ticket"]

#: The tickets of account streams share one hash tag (a ticket is 30 s of one key).
_TICKETS = "me"

#: Notes read from the store at a time.
PAGE = 200


def check_note_cursor(stores: Stores, account: Account, after: int) -> None:
    """Refuse a cursor beyond the account's newest note (no note comes after it)."""
    newest = stores.accounts.newest(account.handle)
    if after > newest:
        raise InvalidCursorError(
            f"the cursor is {after} but the newest note of this account is {newest}",
            newest=newest)


def note_message(note: Note) -> Message:
    """A note as its stream's message: numbered by its seq, which is its event id."""
    return Message("event", {"seq": note.seq, **note.body}, seq=note.seq)


def note_messages(stores: Stores, account: Account, after: int, *, max_seconds: float,
                  heartbeat_seconds: float, stopping: Callable[[], bool],
                  holds: StreamHolds | None = None) -> Iterator[Message]:
    """The account's notes after ``after`` as stream messages, until ``max_seconds``
    pass or ``stopping()`` (a graceful shutdown). With ``holds``, the stream holds the
    account's seeks meanwhile (:mod:`.seek_holds`): it looks at its connection on every
    wake and every ``LOOK_SECONDS`` while it holds any, ends at once (canceling them) when
    its client closed it, and releases them when it ends otherwise."""
    deadline = time.monotonic() + max_seconds
    handle = account.handle
    closed = False
    try:
        with stores.accounts.watch(handle) as watch:  # subscribed before the first read
            while True:
                if holds is not None and not holds.look():
                    closed = True
                    return  # the client is gone: nobody to send anything to
                notes = stores.accounts.notes(handle, after, PAGE)
                for note in notes:
                    yield note_message(note)
                    after = note.seq
                if len(notes) == PAGE:
                    continue
                sent = time.monotonic()
                while True:
                    if stopping():
                        yield end_message("shutdown")
                        return
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        yield end_message("max_duration")
                        return
                    quiet = heartbeat_seconds - (time.monotonic() - sent)
                    if holds is not None and holds.held:
                        quiet = min(quiet, LOOK_SECONDS)
                    if watch.wait(max(0.0, min(remaining, quiet))):
                        break
                    if holds is not None and not holds.tick():
                        closed = True
                        return
                    if (time.monotonic() - sent >= heartbeat_seconds and not stopping()
                            and time.monotonic() < deadline):
                        yield Message("heartbeat")
                        sent = time.monotonic()
    except StorageUnavailableError:
        yield end_message("unavailable")
    except GeneratorExit:  # the server could not write to the client: it is gone
        closed = True
        raise
    finally:
        if holds is not None and holds.held:
            # a store down now: the holds lapse by themselves (and end their seeks)
            with contextlib.suppress(StorageUnavailableError):
                holds.end(closed=closed)


def issue_account_ticket(stores: Stores, account: Account) -> str:
    """A single-use ticket opening one stream of ``account`` within 30 s: a browser's
    ``EventSource`` cannot send its key (as for a game's stream, ``.streams``)."""
    return new_ticket(stores, _TICKETS, account.handle)


def redeem_account_ticket(stores: Stores, ticket: str) -> Account:
    """The open account a ticket was issued for, using the ticket up (401 otherwise)."""
    handle = stores.tickets.take_ticket(_TICKETS, ticket_hash(ticket))
    account = None if handle is None else stores.accounts.load(handle)
    if account is None or account.closed:
        raise AuthError("this stream ticket is unknown, used or expired: get a new one")
    return account


