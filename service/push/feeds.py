"""One feed per watched game: its Redis subscription, its latest record, its rendered bytes.

Why a feed: the push process holds thousands of waiters of one game, and a move must cost
it one read and one rendering per audience, not one per waiter. So a feed is shared by
every request of its game in this process: the save's publication on the game's channel
(``ttt:{<id>}:moved``, :func:`service.storage.hub.channel_of`) makes the feed read the
game once (in a thread: the stores are the service layer's synchronous ones), keep the
record, bump its *generation*, and wake its waiters, which then look only at what the
feed holds. What they send is made once per generation and key (a view per version, seat
and framing; the framed events after a cursor) and the same bytes object goes to all.

Why it cannot miss a move: as :mod:`service.storage.hub`, a feed subscribes first, waits
for Redis to confirm, and only then reads; every later move is published to a live
subscription, so it reloads. When the subscription is lost, the listener reconnects,
subscribes every feed again and reloads them all.

Why a feed writes to resting streams itself: a stream that has sent everything rests
with its feed (a :class:`Follower`), and when the next version is read the feed brings
each resting stream up to date in one loop, the same bytes object per audience, without
waking its task: waking 10,000 tasks to write one frame each cost most of a move's CPU
(``make bench-push``). What the feed cannot do in that loop (a stream behind, paused, or
a finished game) it wakes the stream's task for. The events after the version it had
are read with the record, in the same thread, for that loop.

Why a feed lingers: a long-poll's client asks again right after its answer, so the
feed of a game is kept (subscribed, its record current) :data:`LINGER_SECONDS` after its
last waiter left, rather than unsubscribed and read afresh on every cycle.

Only :mod:`redis.asyncio` (redis-py's documented asyncio client) speaks to Redis for the
subscription; reads go through the service layer's stores in threads
(:func:`asyncio.to_thread`), so this process holds no game logic of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable, Hashable
from typing import Any, Protocol, TypeVar

import redis.asyncio
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.play import STREAM_PAGE
from service.storage import GameRecord, Stores
from service.storage.hub import (
    BACKOFF_MAX_SECONDS,
    CONFIRM_SECONDS,
    POLL_SECONDS,
    announcement,
    channel_of,
)
from service.wire.problems import UNAVAILABLE

__all__ = ["LINGER_SECONDS", "Feed", "Feeds", "Follower", "Watch", "settle"]

T = TypeVar("T")
log = logging.getLogger("three_thirteen.push")

#: How long a feed stays subscribed after its last waiter left. (How long a new feed waits
#: for Redis to confirm its subscription, the listener's idle read timeout and its
#: reconnect back-off are the hub's: :mod:`service.storage.hub`.)
LINGER_SECONDS = 10.0

#: Orders the reads a feed starts against the requests that arrive: a request may use a
#: read only if it was started after the request arrived (so it sees the request's own
#: move) or returned a version the request accepts.
_ticks = itertools.count()


class Follower(Protocol):
    """A stream at rest with its feed (see the module)."""

    def follow(self, feed: Feed) -> bool:
        """Write the feed's new version to the stream; ``False`` if it cannot be done here
        (the stream's task is then woken to do it)."""

    def wake(self) -> None:
        """Wake the stream's task."""


class Feed:
    """The waiters of one game in this process, and what they share."""

    def __init__(self, feeds: Feeds, game_id: str) -> None:
        self._feeds = feeds
        self.game_id = game_id
        #: the newest record read (never replaced by an older one)
        self.record: GameRecord | None = None
        #: bumped whenever the game may have changed and the feed has read it again
        self.generation = 0
        #: the store's failure when the last reload after an announcement failed (a
        #: stream then ends ``unavailable``, as a web worker's does), else ``None``
        self.failed: Exception | None = None
        self.users = 0
        self.confirmed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        #: the events read with ``record`` after the version read before it: (the event
        #: seq they follow, the events), or ``None`` (nothing read with it)
        self.fresh: tuple[int, list[Any]] | None = None
        self._waiters: set[asyncio.Future[bool]] = set()
        self._followers: set[Follower] = set()
        self._cache: dict[Hashable, Any] = {}
        self._reads: dict[Hashable, asyncio.Future[Any]] = {}
        self._load: tuple[int, asyncio.Task[GameRecord]] | None = None
        self._reloading: asyncio.Task[None] | None = None
        self._again = False
        self._linger: asyncio.TimerHandle | None = None

    # -- what waiters ask --------------------------------------------------------------

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
        asking for ``key``."""
        pending = self._reads.get(key)
        if pending is None:
            pending = self._reads[key] = asyncio.ensure_future(asyncio.to_thread(read))
        value: T = await asyncio.shield(pending)
        return value

    # -- what the listener does --------------------------------------------------------

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

    def poke(self) -> None:
        """Wake every waiter without a read (the process is stopping)."""
        self._advance()

    def _advance(self, fan_out: bool = False) -> None:
        """A new generation: what was shared is forgotten, every waiter woken; with
        ``fan_out`` (a newer record was read) resting streams are written the new version
        where they can be, and woken where not."""
        self.generation += 1
        self._cache = {}
        self._reads = {}
        waiters, self._waiters = self._waiters, set()
        for woken in waiters:
            settle(woken, True)
        followers, self._followers = self._followers, set()
        for follower in followers:
            if fan_out and follower.follow(self):
                self._followers.add(follower)
            else:
                follower.wake()


class Watch:
    """:meth:`Feeds.watch`'s block. A class of two slots rather than an
    ``asynccontextmanager``: a stream holds its feed for as long as it lives, and a
    generator's frame and context manager would cost each of 100,000 idle streams more
    than half a KB (``make bench-push``'s idle row)."""

    __slots__ = ("feed", "feeds", "game_id")

    def __init__(self, feeds: Feeds, game_id: str) -> None:
        self.feeds, self.game_id = feeds, game_id
        self.feed: Feed | None = None

    async def __aenter__(self) -> Feed:
        self.feed = await self.feeds.join(self.game_id)
        return self.feed

    async def __aexit__(self, *_: object) -> None:
        if self.feed is not None:
            self.feeds.leave(self.feed)
            self.feed = None


def settle(future: asyncio.Future[bool], value: bool) -> None:
    """``future``'s result, unless it has one (a wake-up and a timer may both come)."""
    if not future.done():
        future.set_result(value)


class Feeds:
    """This process's feeds and its one Redis subscription (the listener)."""

    def __init__(self, stores: Stores, redis_url: str) -> None:
        self.stores = stores
        self._url = redis_url
        self._client: redis.asyncio.Redis | None = None
        self._pubsub: Any = None
        self._feeds: dict[str, Feed] = {}
        self._broken = False
        self._stopped = False
        self._listener: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._client = redis.asyncio.Redis.from_url(self._url)
        self._pubsub = self._client.pubsub()
        await self._pubsub.connect()
        self._listener = asyncio.get_running_loop().create_task(self._listen())

    async def stop(self) -> None:
        self._stopped = True
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        if self._pubsub is not None:
            await self._pubsub.aclose()
        if self._client is not None:
            await self._client.aclose()

    def watching(self) -> int:
        """The requests holding a feed now (for the health answer and tests)."""
        return sum(feed.users for feed in self._feeds.values())

    def watch(self, game_id: str) -> Watch:
        """The game's feed for an ``async with`` block: subscribed and confirmed (or after
        :data:`~service.storage.hub.CONFIRM_SECONDS`) before the block reads anything."""
        return Watch(self, game_id)

    async def join(self, game_id: str) -> Feed:
        """The game's feed, counted as used until :meth:`leave` (what :meth:`watch` does)."""
        feed = self._feeds.get(game_id)
        if feed is None:
            feed = self._feeds[game_id] = Feed(self, game_id)
            await self._send("subscribe", game_id)
        elif feed._linger is not None:
            feed._linger.cancel()
            feed._linger = None
        feed.users += 1
        try:
            if not feed.confirmed.done():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(asyncio.shield(feed.confirmed), CONFIRM_SECONDS)
        except BaseException:
            self.leave(feed)
            raise
        return feed

    def leave(self, feed: Feed) -> None:
        feed.users -= 1
        if feed.users == 0 and not self._stopped:
            feed._linger = asyncio.get_running_loop().call_later(
                LINGER_SECONDS, self._drop, feed)

    def poke_all(self) -> None:
        """Wake every waiter of every feed without reading (the process is stopping)."""
        for feed in list(self._feeds.values()):
            feed.poke()

    def wake_all(self) -> None:
        """Every feed reads its game again (after a reconnection: a move may have been
        missed)."""
        for feed in list(self._feeds.values()):
            feed.moved()

    def _drop(self, feed: Feed) -> None:
        if feed.users == 0 and self._feeds.get(feed.game_id) is feed:
            del self._feeds[feed.game_id]
            asyncio.get_running_loop().create_task(self._send("unsubscribe", feed.game_id))

    async def _send(self, what: str, game_id: str) -> None:
        if self._broken or self._pubsub is None:
            return  # the listener subscribes every feed when it reconnects
        try:
            if what == "subscribe":
                await self._pubsub.subscribe(channel_of(game_id))
            else:
                await self._pubsub.unsubscribe(channel_of(game_id))
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            log.warning("push: %s of %s failed (%s); reconnecting", what, game_id, exc)
            self._broken = True

    async def _listen(self) -> None:
        backoff = 0.0
        while not self._stopped:
            if self._broken:
                await asyncio.sleep(backoff)
                backoff = min(BACKOFF_MAX_SECONDS, max(0.1, backoff * 2))
                if await self._resubscribe():
                    backoff = 0.0
                    self.wake_all()
                continue
            try:
                message = await self._pubsub.get_message(timeout=POLL_SECONDS)
            except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
                if not self._stopped:
                    log.warning("push: subscription lost (%s); reconnecting", exc)
                    self._broken = True
                continue
            if message is not None:
                self._handle(message)

    async def _resubscribe(self) -> bool:
        """A fresh connection with every feed's channel subscribed again."""
        assert self._client is not None
        old = self._pubsub
        with contextlib.suppress(Exception):  # a connection that is gone already
            await old.aclose()
        self._pubsub = self._client.pubsub()
        try:
            await self._pubsub.connect()
            channels = [channel_of(game_id) for game_id in self._feeds]
            if channels:
                await self._pubsub.subscribe(*channels)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            log.warning("push: resubscribing failed (%s); retrying", exc)
            return False
        self._broken = False
        return True

    def _handle(self, message: dict[str, Any]) -> None:
        kind, game_id = announcement(message)
        feed = None if game_id is None else self._feeds.get(game_id)
        if feed is None:
            return
        if kind == "message":
            feed.moved()
        elif kind == "subscribe":
            if feed.confirmed.done():
                feed.moved()  # confirmed again after a reconnection: a move may be missed
            else:
                feed.confirmed.set_result(None)
