"""One watched channel's feed: what was read since its last publication, and (for a
game) its latest record and rendered bytes. The process's feeds, their subscriptions
and how a request holds one are :mod:`.feeds`'.

A channel is named by its *topic*, the hash tag of ``ttt:{<topic>}:moved``
(:func:`service.storage.hub.channel_of`): a game's id, an account's ``acct:<handle>``
(its notes are appended there: :func:`service.storage.redis.accounts.account_topic`) or
a seek pool's name (its matches: :func:`service.play.seek_pool`). The three never look
alike (a game id has neither ``:`` nor ``.``).

Why a feed: the push process holds thousands of waiters of one game, and a move must cost
it one read and one rendering per audience, not one per waiter. So a feed is shared by
every request of its channel in this process. On a publication a :class:`Feed` bumps its
*generation* and wakes its waiters, who read again through :meth:`Feed.shared_read`: one
read per generation and key, whatever the number of waiters asking (an account's notes
after a cursor, a game's events after one). A :class:`GameFeed` reads the game first,
once (in a thread: the stores are the service layer's synchronous ones), keeps the
record, and only then bumps its generation, so its waiters look only at what the feed
holds. What they send is made once per generation and key (a view per version, seat and
framing; the framed events after a cursor) and the same bytes object goes to all.

Why a feed writes to resting streams itself: a stream that has sent everything rests
with its feed (a :class:`Follower`), and when the next version is read the feed brings
each resting stream up to date in one loop, the same bytes object per audience, without
waking its task: waking 10,000 tasks to write one frame each cost most of a move's CPU
(``make bench-push``). What the feed cannot do in that loop (a stream behind, paused, or
a finished game) it wakes the stream's task for. The events after the version it had
are read with the record, in the same thread, for that loop.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from service.play import STREAM_PAGE
from service.storage import GameRecord
from service.wire.problems import UNAVAILABLE

if TYPE_CHECKING:
    from .feeds import Feeds

__all__ = ["Feed", "Follower", "GameFeed", "settle"]

T = TypeVar("T")
log = logging.getLogger("three_thirteen.push")

#: Orders the reads a feed starts against the requests that arrive: a request may use a
#: read only if it was started after the request arrived (so it sees the request's own
#: move) or returned a version the request accepts.
_ticks = itertools.count()


class Follower(Protocol):
    """A stream at rest with its feed (see the module)."""

    def follow(self, feed: GameFeed) -> bool:
        """Write the feed's new version to the stream; ``False`` if it cannot be done here
        (the stream's task is then woken to do it)."""

    def wake(self) -> None:
        """Wake the stream's task."""


class Feed:
    """The waiters of one channel in this process, and what they share: a publication is
    a new generation, and what they read in it they read once (:meth:`shared_read`)."""

    def __init__(self, feeds: Feeds, topic: str) -> None:
        self._feeds = feeds
        self.topic = topic
        #: bumped whenever what the channel announces may have changed
        self.generation = 0
        self.users = 0
        self.confirmed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters: set[asyncio.Future[bool]] = set()
        self._cache: dict[Hashable, Any] = {}
        self._reads: dict[Hashable, asyncio.Future[Any]] = {}
        self._linger: asyncio.TimerHandle | None = None

    # -- what waiters ask --------------------------------------------------------------

    async def wait(self, generation: int, timeout: float) -> bool:
        """Until the feed's generation is past ``generation`` (``True``), or ``timeout``
        seconds (``False``)."""
        if self.generation != generation:
            return True
        if timeout <= 0:
            return False
        loop = asyncio.get_running_loop()
        woken: asyncio.Future[bool] = loop.create_future()
        self._waiters.add(woken)
        timer = loop.call_later(timeout, settle, woken, False)
        try:
            return await woken
        finally:
            timer.cancel()
            self._waiters.discard(woken)

    def shared(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()``, made once per generation for every waiter asking for ``key``
        (rendering: pure and quick, so made in the loop by the first asker)."""
        cache = self._cache
        if key in cache:
            value: T = cache[key]
            return value
        value = cache[key] = make()
        return value

    async def shared_read(self, key: Hashable, read: Callable[[], T]) -> T:
        """``read()`` (a store read) in a thread, once per generation for every waiter
        asking for ``key``: started after the generation began, so it sees what its
        publication announced. A read that failed is forgotten, so the next asker reads
        afresh (a feed without publications would otherwise answer its failure until the
        next one)."""
        reads = self._reads
        pending = reads.get(key)
        if pending is None:
            pending = reads[key] = asyncio.ensure_future(asyncio.to_thread(read))

            def forget_a_failure(done: asyncio.Future[Any]) -> None:
                if not done.cancelled() and done.exception() is not None \
                        and reads.get(key) is done:
                    del reads[key]

            pending.add_done_callback(forget_a_failure)
        value: T = await asyncio.shield(pending)
        return value

    # -- what the listener does --------------------------------------------------------

    def moved(self) -> None:
        """A publication on the channel: a new generation (its waiters read again)."""
        self._advance()

    def poke(self) -> None:
        """Wake every waiter without a read (the process is stopping)."""
        self._advance()

    def _advance(self) -> None:
        """A new generation: what was shared is forgotten, every waiter woken."""
        self.generation += 1
        self._cache = {}
        self._reads = {}
        waiters, self._waiters = self._waiters, set()
        for woken in waiters:
            settle(woken, True)


class GameFeed(Feed):
    """The waiters of one game, and the game as last read: a publication is read first,
    and a new generation begins only with a newer version (or a failed read)."""

    def __init__(self, feeds: Feeds, game_id: str) -> None:
        super().__init__(feeds, game_id)
        self.game_id = game_id
        #: the newest record read (never replaced by an older one)
        self.record: GameRecord | None = None
        #: the store's failure when the last reload after an announcement failed (a
        #: stream then ends ``unavailable``, as a web worker's does), else ``None``
        self.failed: Exception | None = None
        #: the events read with ``record`` after the version read before it: (the event
        #: seq they follow, the events), or ``None`` (nothing read with it)
        self.fresh: tuple[int, list[Any]] | None = None
        self._followers: set[Follower] = set()
        self._load: tuple[int, asyncio.Task[GameRecord]] | None = None
        self._reloading: asyncio.Task[None] | None = None
        self._again = False

    async def load(self, at_least: int | None) -> GameRecord:
        """The game as it is now: the feed's record if its version is at least
        ``at_least``, else a read started after this call (shared with every caller that
        arrives while it runs and would accept it)."""
        record = self.record
        if at_least is not None and record is not None and record.state.version >= at_least:
            return record
        arrived = next(_ticks)
        if self._load is None or self._load[0] < arrived:
            task = asyncio.get_running_loop().create_task(self._read())
            self._load = (next(_ticks), task)
        return await asyncio.shield(self._load[1])

    def moved(self) -> None:
        """The game may have changed: read it again (once, however many announcements
        arrive while a read runs: then once more after it)."""
        if self._reloading is not None:
            self._again = True
            return
        self._reloading = asyncio.get_running_loop().create_task(self._reload())

    async def _reload(self) -> None:
        try:
            while True:
                self._again = False
                before = self.generation
                try:
                    await self.load(None)
                    self.failed = None
                except UNAVAILABLE as exc:
                    self.failed = exc
                except Exception as exc:
                    log.exception("push: reading game %s failed", self.game_id)
                    self.failed = exc
                if self.generation == before:  # (a newer version advanced it already)
                    self._advance()
                if not self._again:
                    return
        finally:
            self._reloading = None

    def rest(self, follower: Follower) -> None:
        """Let the feed write ``follower``'s next version (until :meth:`unrest`)."""
        self._followers.add(follower)

    def unrest(self, follower: Follower) -> None:
        self._followers.discard(follower)

    async def _read(self) -> GameRecord:
        before = self.record
        since = before.state.event_seq if before is not None and self._followers else None
        record, events = await asyncio.to_thread(self._read_now, since)
        if self.record is None or record.state.version > self.record.state.version:
            self.fresh = (since, events) if since is not None and self.record is before \
                else None
            self.record = record
            self._advance(fan_out=True)
        return self.record

    def _read_now(self, since: int | None) -> tuple[GameRecord, list[Any]]:
        """The game, then (for resting streams) its events after ``since``: read after
        the record, so they reach at least its last event."""
        games = self._feeds.stores.games
        record = games.load(self.game_id)
        return record, [] if since is None else games.events(self.game_id, since, STREAM_PAGE)

    def _advance(self, fan_out: bool = False) -> None:
        """A new generation (:meth:`Feed._advance`); with ``fan_out`` (a newer record was
        read) resting streams are written the new version where they can be, and woken
        where not."""
        super()._advance()
        followers, self._followers = self._followers, set()
        for follower in followers:
            if fan_out and follower.follow(self):
                self._followers.add(follower)
            else:
                follower.wake()


def settle(future: asyncio.Future[bool], value: bool) -> None:
    """``future``'s result, unless it has one (a wake-up and a timer may both come)."""
    if not future.done():
        future.set_result(value)
