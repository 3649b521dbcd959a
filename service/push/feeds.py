"""The process's feeds (:mod:`.feed`: one per watched channel), their Redis
subscriptions, and how a request holds one.

Why it cannot miss a move: as :mod:`service.storage.hub`, a feed subscribes first, waits
for Redis to confirm, and only then reads; every later move is published to a live
subscription, so it reloads (a waiter takes the generation before it reads, and a
publication after that read wakes it). When a subscription is lost, every feed is
subscribed again and reloaded (:mod:`.subscriptions`: one connection per Redis node that
owns a watched channel, so on a Redis Cluster each game is heard on its own shard).

Why a feed lingers: a long-poll's client asks again right after its answer, so the
feed of a channel is kept (subscribed, its record current) :data:`LINGER_SECONDS` after its
last waiter left, rather than unsubscribed and read afresh on every cycle.

Other channels ride on the same subscriptions (:meth:`Feeds.listening`): a stream of many
games is changed through its own (:mod:`.multiplex`). :meth:`Feeds.publish` writes no key.

Only :mod:`redis.asyncio` (redis-py's documented asyncio client) speaks to Redis for the
subscriptions; reads go through the service layer's stores in threads
(:func:`asyncio.to_thread`), so this process holds no game logic of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Generic, TypeVar

from service.storage import Stores
from service.storage.hub import CONFIRM_SECONDS

from .feed import Feed, GameFeed
from .subscriptions import Subscriptions

__all__ = ["LINGER_SECONDS", "Feeds", "Watch"]

F = TypeVar("F", bound=Feed)

#: How long a feed stays subscribed after its last waiter left. (How long a new feed waits
#: for Redis to confirm its subscription, the listener's idle read timeout and its
#: reconnect back-off are the hub's: :mod:`service.storage.hub`.)
LINGER_SECONDS = 10.0


class Watch(Generic[F]):
    """:meth:`Feeds.watch`'s block. A class of three slots rather than an
    ``asynccontextmanager``: a stream holds its feed for as long as it lives, and a
    generator's frame and context manager would cost each of 100,000 idle streams more
    than half a KB (``make bench-push``'s idle row)."""

    __slots__ = ("feed", "feeds", "kind", "topic")

    def __init__(self, feeds: Feeds, topic: str, kind: type[F]) -> None:
        self.feeds, self.topic, self.kind = feeds, topic, kind
        self.feed: F | None = None

    async def __aenter__(self) -> F:
        self.feed = await self.feeds.join(self.topic, self.kind)
        return self.feed

    async def __aexit__(self, *_: object) -> None:
        if self.feed is not None:
            self.feeds.leave(self.feed)
            self.feed = None


class Feeds:
    """This process's feeds and their subscriptions (:mod:`.subscriptions`)."""

    def __init__(self, stores: Stores, redis_url: str) -> None:
        self.stores = stores
        self._feeds: dict[str, Feed] = {}
        #: the other names listened to (:meth:`listening`): the handler of each message,
        #: and the confirmation of the subscription
        self._others: dict[str, tuple[Callable[[bytes], None], asyncio.Future[None]]] = {}
        self._stopped = False
        self.subscriptions = Subscriptions(
            redis_url, message=self._message, confirmed=self._confirmed,
            restored=self.wake_all, wanted=lambda: [*self._feeds, *self._others])

    async def start(self) -> None:
        await self.subscriptions.start()

    async def stop(self) -> None:
        self._stopped = True
        await self.subscriptions.stop()

    def watching(self) -> int:
        """The requests holding a feed now (for the health answer and tests)."""
        return sum(feed.users for feed in self._feeds.values())

    def watch(self, game_id: str) -> Watch[GameFeed]:
        """The game's feed for an ``async with`` block: subscribed and confirmed (or after
        :data:`~service.storage.hub.CONFIRM_SECONDS`) before the block reads anything."""
        return Watch(self, game_id, GameFeed)

    def watch_topic(self, topic: str) -> Watch[Feed]:
        """The feed of the channel of ``topic`` (an account's, a seek pool's: not a
        game's, whose feed reads it) for the block, as :meth:`watch`."""
        return Watch(self, topic, Feed)

    async def join(self, topic: str, kind: type[F]) -> F:
        """The feed of ``topic`` (of ``kind``), counted as used until :meth:`leave` (what
        :meth:`watch` does)."""
        feed = self._feeds.get(topic)
        if feed is None:
            feed = self._feeds[topic] = kind(self, topic)
            self.subscriptions.subscribe(topic)
        elif feed._linger is not None:
            feed._linger.cancel()
            feed._linger = None
        if type(feed) is not kind:  # (topics of one kind never look like another's)
            raise TypeError(f"the feed of {topic!r} is a {type(feed).__name__}")
        feed.users += 1
        try:
            await _confirmation(feed.confirmed)
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
        """Every feed looks again (after the subscriptions were made anew: a publication
        may have been missed)."""
        for feed in list(self._feeds.values()):
            feed.moved()

    def _drop(self, feed: Feed) -> None:
        if feed.users == 0 and self._feeds.get(feed.topic) is feed:
            del self._feeds[feed.topic]
            self.subscriptions.unsubscribe(feed.topic)

    @asynccontextmanager
    async def listening(self, name: str,
                        handler: Callable[[bytes], None]) -> AsyncIterator[None]:
        """Each message published under ``name`` (on the hub's channel of that name, as a
        game's: :func:`~service.storage.hub.channel_of`) handed to ``handler`` for the
        block, subscribed and confirmed first (as :meth:`watch`): a :meth:`publish` in the
        block reaches it."""
        confirmed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._others[name] = (handler, confirmed)
        self.subscriptions.subscribe(name)
        try:
            await _confirmation(confirmed)
            yield
        finally:
            del self._others[name]
            if not self._stopped:
                self.subscriptions.unsubscribe(name)

    async def publish(self, name: str, data: bytes) -> int:
        """Publish ``data`` under ``name`` (see :meth:`listening`): how many subscriptions
        received it."""
        return await self.subscriptions.publish(name, data)

    def _message(self, name: str, data: bytes) -> None:
        if (feed := self._feeds.get(name)) is not None:
            feed.moved()
        elif (other := self._others.get(name)) is not None:
            other[0](data)

    def _confirmed(self, game_id: str) -> None:
        if (other := self._others.get(game_id)) is not None:
            if not other[1].done():
                other[1].set_result(None)
            return
        feed = self._feeds.get(game_id)
        if feed is None:
            return
        if feed.confirmed.done():
            feed.moved()  # confirmed again (subscribed anew): a move may have been missed
        else:
            feed.confirmed.set_result(None)


async def _confirmation(confirmed: asyncio.Future[None]) -> None:
    """Until Redis confirmed a subscription, or :data:`~service.storage.hub.CONFIRM_SECONDS`
    (then the reads go ahead: a lost confirmation must not hold a request for ever)."""
    if not confirmed.done():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(confirmed), CONFIRM_SECONDS)
