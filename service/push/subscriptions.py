"""The push process's subscriptions to its games' channels: one pub/sub connection per
Redis node that owns a watched channel, and their repair when one is lost.

Why one per node: on one Redis every channel lives on the one server. On a Redis Cluster
the save publishes a game's channel on the game's own shard, so a push process listens
on the primary that owns the channel's slot, as the web workers' hub does
(:mod:`service.storage.hub`): with ``SSUBSCRIBE`` where the save uses ``SPUBLISH`` (a
Redis 7 cluster: only the shard hears it), with plain ``SUBSCRIBE`` where it uses
``PUBLISH`` (a Redis 6.2 cluster, which carries it to every node, and one Redis). Which
of the two is decided by the hub's own rule (:func:`~service.storage.hub.shards_channels`)
on the same answer (a node's version), so the process listens the way the saves publish.

Why redis-py's asyncio client is used this way: in redis-py 7.4 its asyncio
``RedisCluster`` has no ``pubsub()`` and its ``PubSub`` no ``ssubscribe``. So the slot
map is the asyncio ``RedisCluster``'s (``get_node_from_key``, the node of a channel's
slot), each node gets a plain ``redis.asyncio.Redis`` made with the cluster client's
own connection settings, and its ``PubSub`` is sent the subscribe commands by name
(``execute_command``). Those connections never retry: a retrying ``PubSub`` reconnects
and subscribes again only what ``subscribe()`` recorded, so a sharded subscription would
vanish unseen; here every loss reaches :meth:`Subscriptions._lost`.

Why the writes go through one queue per node: a feed dropped and watched again at
once posts an unsubscribe and then a subscribe of the same channel, and Redis must get
them in that order (the other order leaves a watched game unsubscribed). Posting is
synchronous and one task writes a node's queue in order, so the order is the order of
the calls. Redis answers in the same order, which tells this process's own
unsubscribes (counted when posted) from one Redis sends on its own: a sharded
channel's slot moved to another node, or its primary became a replica.

What a loss is and what follows it: a connection's error (Redis restarted, a failover,
``CLIENT KILL``), a reply that is an error (``MOVED``: the slot map was stale), a
channel Redis unsubscribed on its own, or no node for a slot (a failover under way).
Every connection is then closed, the slot map read again, every watched channel
subscribed anew on its owner, and ``restored`` called: the feeds all read their games
again, since a move may have been published while nobody listened. The first repair
after a quiet spell is at once; repairs that follow each other wait longer each time
(:data:`~service.storage.hub.BACKOFF_MAX_SECONDS` at most).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import redis.asyncio
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisClusterException, RedisError

from service.storage.hub import (
    BACKOFF_MAX_SECONDS,
    POLL_SECONDS,
    announcement,
    channel_of,
    shards_channels,
)
from service.storage.redis.connection import CLUSTER_SCHEMES

__all__ = ["QUIET_SECONDS", "Subscriptions"]

log = logging.getLogger("three_thirteen.push")

#: After this long without a loss, the next repair starts at once (see the module).
QUIET_SECONDS = 10.0
#: What a subscription's trouble looks like from redis-py (and the socket under it).
_TROUBLE = (RedisError, RedisClusterException, OSError)


def _no_retry() -> Retry:
    return Retry(NoBackoff(), 0)


class _Node:
    """One pub/sub connection to one Redis node: its queue of subscribe and unsubscribe
    commands (written in order by one task), the reader of its messages, and the
    unsubscribes posted whose answer has not come yet."""

    def __init__(self, subs: Subscriptions, client: redis.asyncio.Redis, name: str) -> None:
        self.name = name
        self.client = client
        self.pubsub = client.pubsub()
        self.leaving: Counter[str] = Counter()
        self._queue: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        self.ready: asyncio.Task[None] = loop.create_task(self.pubsub.connect())
        self._tasks = [loop.create_task(self._write(subs), name=f"push-write-{name}"),
                       loop.create_task(self._read(subs), name=f"push-read-{name}")]

    def post(self, command: str, channel: str) -> None:
        self._queue.put_nowait((command, channel))

    async def _write(self, subs: Subscriptions) -> None:
        try:
            await self.ready
            while True:
                command, channel = await self._queue.get()
                await self.pubsub.execute_command(command, channel)
        except _TROUBLE as exc:
            subs._lost(self, f"writing to {self.name}: {exc or type(exc).__name__}")

    async def _read(self, subs: Subscriptions) -> None:
        try:
            await self.ready
            while True:
                message = await self.pubsub.get_message(timeout=POLL_SECONDS)
                if message is not None:
                    subs._handle(self, message)
        except _TROUBLE as exc:
            subs._lost(self, f"reading from {self.name}: {exc or type(exc).__name__}")

    async def close(self) -> None:
        for task in (*self._tasks, self.ready):
            task.cancel()
        for task in (*self._tasks, self.ready):
            with contextlib.suppress(asyncio.CancelledError, *_TROUBLE):
                await task
        with contextlib.suppress(*_TROUBLE):  # a connection that is gone already
            await self.pubsub.aclose()
        with contextlib.suppress(*_TROUBLE):
            await self.client.aclose()


class Subscriptions:
    """The process's subscriptions (see the module).

    ``message(game_id, data)``: a publication on the game's channel (or another name's:
    a channel is :func:`~service.storage.hub.channel_of` a name); ``confirmed(game_id)``:
    Redis confirmed a subscription to it; ``restored()``: every connection was made
    anew after a loss; ``wanted()``: the games whose channels must be subscribed."""

    def __init__(self, redis_url: str, *, message: Callable[[str, bytes], None],
                 confirmed: Callable[[str], None], restored: Callable[[], None],
                 wanted: Callable[[], Iterable[str]]) -> None:
        self._url = redis_url
        self._message = message
        self._confirmed = confirmed
        self._restored = restored
        self._wanted = wanted
        self._cluster: RedisCluster | None = None
        self.sharded = False
        self._nodes: dict[str, _Node] = {}
        #: the node each subscribed game's channel was posted to
        self._homes: dict[str, _Node] = {}
        #: set while the subscriptions are lost and not yet made again (nothing is
        #: posted meanwhile: the repair subscribes every wanted channel)
        self._broken = False
        self._trouble = asyncio.Event()
        self._mender: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Reach Redis (on a cluster: read its slot map and whether it shards channels)."""
        scheme, sep, rest = self._url.partition("://")
        if sep and scheme in CLUSTER_SCHEMES:
            self._cluster = RedisCluster.from_url(f"{CLUSTER_SCHEMES[scheme]}://{rest}")
            await self._cluster.initialize()
            info = await self._cluster.info("server", target_nodes=RedisCluster.RANDOM)
            self.sharded = shards_channels(str(info["redis_version"]))
        else:  # one Redis, one node: connected now, so a Redis out of reach stops the start
            await self._node_of("").ready
        self._mender = asyncio.get_running_loop().create_task(self._mend())

    async def stop(self) -> None:
        if self._mender is not None:
            self._mender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._mender
        await self._close_nodes()
        if self._cluster is not None:
            await self._cluster.aclose()

    def subscribe(self, game_id: str) -> None:
        """Subscribe to the game's channel (its confirmation comes to ``confirmed``)."""
        if self._broken:
            return
        try:
            node = self._node_of(channel_of(game_id))
        except _TROUBLE as exc:
            self._lost(None, f"finding the node of {game_id}: {exc or type(exc).__name__}")
            return
        self._homes[game_id] = node
        node.post("SSUBSCRIBE" if self.sharded else "SUBSCRIBE", channel_of(game_id))

    def unsubscribe(self, game_id: str) -> None:
        node = self._homes.pop(game_id, None)
        if node is None or self._broken:
            return
        node.leaving[game_id] += 1
        node.post("SUNSUBSCRIBE" if self.sharded else "UNSUBSCRIBE", channel_of(game_id))

    async def publish(self, name: str, data: bytes) -> int:
        """Publish ``data`` on the channel of ``name`` where its subscribers listen (its
        owner, ``SPUBLISH`` on a sharded cluster): how many subscriptions received it."""
        channel = channel_of(name)
        node = self._node_of(channel)
        return int(await node.client.execute_command(
            "SPUBLISH" if self.sharded else "PUBLISH", channel, data))

    def _node_of(self, channel: str) -> _Node:
        """The node that owns ``channel``: its connection, opened if it is new."""
        if self._cluster is None:
            name = "single"
        else:
            owner = self._cluster.get_node_from_key(channel)
            if owner is None:  # (only asked of a replica)
                raise RedisClusterException(f"no node serves {channel}")
            name = owner.name
        node = self._nodes.get(name)
        if node is None:
            node = self._nodes[name] = _Node(self, self._client_of(name), name)
        return node

    def _client_of(self, name: str) -> redis.asyncio.Redis:
        """A client of the node ``name`` (one Redis: the URL's), retrying nothing."""
        if self._cluster is None:
            return redis.asyncio.Redis.from_url(self._url, retry=_no_retry())
        owner = self._cluster.get_node(node_name=name)
        assert owner is not None  # (named by the slot map just now)
        settings: dict[str, Any] = dict(self._cluster.get_connection_kwargs())
        settings.pop("response_callbacks", None)  # the cluster client's own, per command
        settings.pop("max_connections", None)
        return redis.asyncio.Redis.from_pool(redis.asyncio.ConnectionPool(
            **{**settings, "host": owner.host, "port": owner.port, "retry": _no_retry()}))

    def _handle(self, node: _Node, message: dict[str, Any]) -> None:
        kind, game_id = announcement(message)
        if game_id is None:
            return
        if kind in ("message", "smessage"):
            self._message(game_id, message["data"])  # (bytes: responses are not decoded)
        elif kind in ("subscribe", "ssubscribe"):
            self._confirmed(game_id)
        elif kind in ("unsubscribe", "sunsubscribe"):
            if node.leaving[game_id] > 0:  # this process's own, answered in order
                node.leaving[game_id] -= 1
                if not node.leaving[game_id]:
                    del node.leaving[game_id]
            elif self._homes.get(game_id) is node:
                self._lost(node, f"{node.name} ended the subscription of {game_id}")

    def _lost(self, node: _Node | None, reason: str) -> None:
        """A subscription is lost: repair them all (see the module)."""
        if node is not None and self._nodes.get(node.name) is not node:
            return  # a connection being closed by a repair
        if not self._trouble.is_set():
            log.warning("push: subscription lost (%s); subscribing again", reason)
        self._broken = True
        self._trouble.set()

    async def _mend(self) -> None:
        loop = asyncio.get_running_loop()
        backoff, last = 0.0, float("-inf")
        while True:
            await self._trouble.wait()
            if loop.time() - last > QUIET_SECONDS:
                backoff = 0.0
            else:
                backoff = min(BACKOFF_MAX_SECONDS, max(0.1, backoff * 2))
            await asyncio.sleep(backoff)
            self._trouble.clear()
            repaired = await self._resubscribe()
            last = loop.time()
            if repaired:
                self._restored()
            else:
                self._trouble.set()

    async def _close_nodes(self) -> None:
        nodes, self._nodes = self._nodes, {}
        self._homes = {}
        for node in nodes.values():
            await node.close()

    async def _resubscribe(self) -> bool:
        """Every connection closed and made anew, on a fresh slot map, with every wanted
        channel subscribed on its owner; whether it could be done."""
        await self._close_nodes()
        try:
            if self._cluster is not None:
                # (the map redis-py's cluster client refreshes itself after a MOVED)
                await self._cluster.nodes_manager.initialize()
            # posted with no pause between reading the wanted games and taking new
            # subscriptions again, so a game watched meanwhile is in one or the other
            for game_id in self._wanted():
                self._homes[game_id] = node = self._node_of(channel_of(game_id))
                node.post("SSUBSCRIBE" if self.sharded else "SUBSCRIBE", channel_of(game_id))
            self._broken = False
            for node in list(self._nodes.values()):
                await node.ready
        except _TROUBLE as exc:
            log.warning("push: subscribing again failed (%s); retrying", exc)
            self._broken = True
            return False
        return True
