"""Seeks held by connections: a seek ends when the connection holding it closes, and is
never matched after that close (no ghost matches).

Why holds: a seeker whose client went away (a closed tab, a crashed bot) must not be
given a seat it will never play. A seek is *held* by the long-poll that opened it
(``POST /v1/seeks?timeout=``; a ``GET`` only reads) and, for an account's seek, by each
of the account's streams (``GET /v1/me/stream``). A holder looks at its connection whenever a group of its
pool waits for it (a seeker arrived: the board wakes the pool's long-polls, and names
the accounts whose streams must look), every :data:`LOOK_SECONDS` meanwhile (its own
socket only), and marks what it saw
(:meth:`~service.storage.SeekBoard.hold`): the board matches a group only once each of
its holds was found open after the group's newest seeker arrived
(:mod:`service.storage.seeks` says why that is enough). A holder that finds its
connection closed cancels the seek at once. Its hold lapses :data:`HOLD_LEASE_SECONDS`
after its last renewal, which ends the seek too: the worker holding it died. A holder
that ends normally (a long-poll's answer, a stream's ``end``) releases its hold, and the
seek waits on, held by nothing, until it expires or is held again.

A connection is anything that can say whether its client closed it
(:class:`Connection`): the HTTP layer's socket, or none (``None``: a client that cannot
close, such as a test's), which is always open.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Protocol

from service.storage import Account, Hold, Matching, SeekEntry, Stores
from service.storage.seeks import Waiter

__all__ = ["CLOSED", "DEADLINE", "HOLD_LEASE_SECONDS", "LOOK_SECONDS", "RENEW_SECONDS",
           "Connection", "StreamHolds", "look_and_hold", "new_holder", "quiet_wait"]

#: How long a hold lasts unless renewed: its worker died when it lapses.
HOLD_LEASE_SECONDS = 15.0
#: How often a holder renews its hold.
RENEW_SECONDS = 5.0
#: How often a holder looks at its connection while its pool is quiet (a look of its own
#: socket: no store is read for it).
LOOK_SECONDS = 1.0
#: Why :func:`quiet_wait` returned, besides a wake-up of the pool or a renewal due.
CLOSED, DEADLINE, WOKEN, RENEW = "closed", "deadline", "woken", "renew"


class Connection(Protocol):
    """The client's connection, as the HTTP layer sees it."""

    def closed(self) -> bool:
        """Whether the client has closed it (what it sent before stays readable)."""
        ...


def new_holder(handle: str | None = None) -> str:
    """A holder's id: ``p.<random>`` for a long-poll, ``s.<handle>.<random>`` for a stream
    of the account ``handle`` (the board names the streams a waiting match needs by it)."""
    mark = secrets.token_urlsafe(9)  # no "." in it, nor in a handle
    return f"p.{mark}" if handle is None else f"s.{handle}.{mark}"


def _open(connection: Connection | None) -> bool:
    return connection is None or not connection.closed()


def look_and_hold(stores: Stores, pool: str, key: str, entry: SeekEntry, holder: str,
                  connection: Connection | None, renewed: float,
                  settle: Callable[[str, str, Matching], None]) -> float | None:
    """One look of ``holder`` at its connection for the waiting seek ``entry`` (read
    before this look, so what it marks as seen had arrived before the connection was
    found open): ``None`` if the connection closed (the seek is canceled), else when the
    hold was last renewed (``time.monotonic()``; renewed now if due, or if seekers arrived
    since its last mark). ``settle`` creates the game of anything matched."""
    if not _open(connection):
        stores.seeks.cancel(pool, key)
        return None
    mine = None if entry.record is None else entry.record.holds.get(holder)
    if mine is not None and mine[1] >= entry.arrivals and (
            time.monotonic() - renewed < RENEW_SECONDS):
        return renewed
    game_id = secrets.token_urlsafe(12)
    matching = stores.seeks.hold(pool, key, Hold(holder, time.time() + HOLD_LEASE_SECONDS,
                                                 entry.arrivals), game_id, time.time())
    if matching is not None:
        settle(pool, game_id, matching)
    return time.monotonic()


def quiet_wait(watch: Waiter, connection: Connection | None, deadline: float,
               renewed: float) -> str:
    """Sleep until the pool wakes the holder (:data:`WOKEN`), its hold is due for renewal
    (:data:`RENEW`), ``deadline`` (``time.monotonic()``) passes (:data:`DEADLINE`) or its
    connection is found closed (:data:`CLOSED`, looked at every :data:`LOOK_SECONDS`)."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return DEADLINE
        if watch.wait(min(remaining, LOOK_SECONDS)):
            return WOKEN
        if time.monotonic() - renewed >= RENEW_SECONDS:
            return RENEW
        if not _open(connection):
            return CLOSED


class StreamHolds:
    """An account stream's holds on the account's waiting seeks (``look`` on every wake of
    the stream, ``tick`` at most :data:`LOOK_SECONDS` apart while it holds any; ``end``
    once)."""

    def __init__(self, stores: Stores, account: Account, connection: Connection | None,
                 parse: Callable[[str], tuple[str, str]],
                 settle: Callable[[str, str, Matching], None]) -> None:
        self.stores = stores
        self.handle = account.handle
        self.connection = connection
        self.holder = new_holder(account.handle)
        self._parse = parse
        self._settle = settle
        self.held: dict[str, float] = {}  # seek id -> when its hold was renewed

    def look(self) -> bool:
        """Hold every waiting seek of the account and mark what was seen; ``False`` once
        the connection is found closed (then every waiting seek of the account is
        canceled, those it had not held yet too)."""
        now = time.time()
        seen: list[tuple[str, str, str, SeekEntry]] = []
        for seek_id in self.stores.seeks.indexed(self.handle, now):
            pool, key = self._parse(seek_id)
            entry = self.stores.seeks.get(pool, key)
            if entry.record is None or entry.expires is None or entry.expires <= now:
                self.stores.seeks.unindex(self.handle, seek_id)  # matched or gone
                self.held.pop(seek_id, None)
                continue
            seen.append((seek_id, pool, key, entry))
        if not _open(self.connection):
            for seek_id, *_ in seen:
                self.held.setdefault(seek_id, 0.0)
            self.end(closed=True)
            return False
        for seek_id, pool, key, entry in seen:
            renewed = look_and_hold(self.stores, pool, key, entry, self.holder, None,
                                    self.held.get(seek_id, -RENEW_SECONDS), self._settle)
            assert renewed is not None  # the connection was looked at above
            self.held[seek_id] = renewed
        return True

    def tick(self) -> bool:
        """Between wake-ups: look at the connection (``False`` once closed, then every seek
        it held is canceled), and renew the holds when due."""
        if not _open(self.connection):
            return self.look()  # which cancels every waiting seek of the account
        if self.held and time.monotonic() - min(self.held.values()) >= RENEW_SECONDS:
            return self.look()
        return True

    def end(self, closed: bool) -> None:
        """The stream ended: its seeks are canceled if the client closed it, else their
        holds are released (the seeks wait on)."""
        for seek_id in list(self.held):
            pool, key = self._parse(seek_id)
            if closed:
                self.stores.seeks.cancel(pool, key)
                self.stores.seeks.unindex(self.handle, seek_id)
            else:
                game_id = secrets.token_urlsafe(12)
                self._settle(pool, game_id, self.stores.seeks.release(
                    pool, key, self.holder, game_id, time.time()))
        self.held.clear()
