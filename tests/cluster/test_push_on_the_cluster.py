"""The push tier on a local 3-primary Redis Cluster: a push process holds long-polls and
streams of games on all three shards and wakes them on their moves, each game heard on
its own shard (sharded pub/sub on Redis 7, plain on 6.2, as the saves publish),
misses no move made while its subscriptions were lost, and follows a game whose slot a
rebalance moved to another primary; a stream of many games is changed through the
cluster.

Why the loss is made with an ACL user of its own: killing the push process's pub/sub
connections (``CLIENT KILL TYPE pubsub``) alone is repaired within milliseconds, so a
move made after it would most likely meet the new subscriptions and show nothing about
the moves made in between. Here the push process connects as ``push``; the test turns
that user off (new connections cannot log in; those made stay), kills the pub/sub
connections, checks that no node holds a subscription to the games, makes the moves
(through the web workers, as the default user: each is published to nobody), and only
then turns the user on again. The waiters must still see every move: the process
subscribes again and reads every game it holds.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import pytest
import redis
import requests

from service.storage.hub import channel_of, shards_channels
from tests.cluster.local import LocalCluster, cluster_client, local_cluster
from tests.conftest import PATIENCE, free_port, wait_until
from tests.faults.conftest import Gunicorn
from tests.faults.waiters import Game, Waiter, mixed, park
from tests.push.conftest import ENV, push_process, ready, stop
from tests.push.test_multiplex import Reader, change, seen_version

USER, PASSWORD = "push", "push-secret"
#: How long the long-polls wait (the service's cap): each is answered by its game's move
#: long before, so one answered with the version it knew was missed.
WAIT_SECONDS = 30


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    with local_cluster(tmp_path_factory.mktemp("nodes")) as started:
        for port in started.ports:
            redis.Redis(port=port).execute_command(
                "ACL", "SETUSER", USER, "on", f">{PASSWORD}", "~*", "&*", "+@all")
        yield started


@pytest.fixture(scope="module")
def web(cluster: LocalCluster) -> Iterator[str]:
    """A gunicorn on the cluster (one worker), which makes the moves."""
    server = Gunicorn(cluster.url, WEB_CONCURRENCY="1", RATE_LIMIT="off",
                      RATE_LIMIT_PER_ADDRESS="off", CREATION_LIMIT_PER_ADDRESS="off")
    try:
        yield server.base
    finally:
        server.close()


@pytest.fixture(scope="module")
def push(cluster: LocalCluster) -> Iterator[str]:
    """A push process on the cluster, logged in as :data:`USER`."""
    port = free_port()
    url = cluster.url.replace("://", f"://{USER}:{PASSWORD}@", 1)
    env = {**os.environ, **ENV, "REDIS_URL": url, "LONG_POLL_MAX_SECONDS": str(WAIT_SECONDS),
           "STREAM_MAX_SECONDS": str(PATIENCE), "MAX_WAITS_PER_TOKEN": "off",
           "MAX_WAITS_PER_ADDRESS": "off"}
    proc = push_process(env, port)
    base = f"http://127.0.0.1:{port}"
    ready([proc], {"push on the cluster": base})
    try:
        yield base
    finally:
        stop([proc])


def games_on_every_shard(web: str, store: redis.RedisCluster) -> dict[str, Game]:
    """One game per primary, by the node that owns its channel."""
    games: dict[str, Game] = {}
    for i in range(60):
        game = Game.create(web, f"push-shard-{i}")
        games.setdefault(store.get_node_from_key(channel_of(game.game_id)).name, game)
        if len(games) == 3:
            return games
    raise AssertionError("games did not land on every shard")


def sharded(store: redis.RedisCluster) -> bool:
    """Whether the cluster carries the channels sharded (Redis 7) or plain (6.2)."""
    return shards_channels(
        store.info("server", target_nodes=redis.RedisCluster.RANDOM)["redis_version"])


def subscribers(store: redis.RedisCluster, games: dict[str, Game]) -> dict[tuple[str, str], int]:
    """(game, node) → the subscribers the node counts on the game's channel, for every
    primary: sharded channels are counted with ``PUBSUB SHARDNUMSUB``, plain ones with
    ``NUMSUB`` (each node counts its own subscribers)."""
    numsub = "PUBSUB SHARDNUMSUB" if sharded(store) else "PUBSUB NUMSUB"
    return {(game.game_id, node.name): int(store.get_redis_connection(node).execute_command(
                numsub, channel_of(game.game_id))[0][1])
            for game in games.values() for node in store.get_primaries()}


def subscribed_on_owners(store: redis.RedisCluster, games: dict[str, Game]) -> None:
    """Wait until each game's channel is subscribed on the primary that owns it; then it
    must be subscribed there only."""
    def owner(game_id: str) -> str:
        return str(store.get_node_from_key(channel_of(game_id)).name)

    wait_until(lambda: all(count > 0 for (g, n), count in subscribers(store, games).items()
                           if n == owner(g)), PATIENCE, "every game's channel subscribed")
    for (game_id, node), count in subscribers(store, games).items():
        assert (count > 0) == (node == owner(game_id)), (game_id, node, count)


def parked(push: str, count: int) -> bool:
    return int(requests.get(f"{push}/healthz", timeout=5).json()["waiting"]) == count


def park_all(push: str, games: dict[str, Game]) -> tuple[dict[str, list[Waiter]],
                                                         list[threading.Thread]]:
    """Nine waiters per game (what the push process holds: a spectator's and a seat's
    long-polls, streams) once each game's mover is about to discard; returns once the
    process holds them all."""
    waiters = {}
    for game in games.values():
        game.to_a_discard()
        waiters[game.game_id] = mixed(game, 9, WAIT_SECONDS, ("spectator", "seat", "stream"))
    every = [w for ws in waiters.values() for w in ws]
    threads = park(push, every, PATIENCE)
    wait_until(lambda: parked(push, len(every)) or any(w.answered_at for w in every),
               PATIENCE, "the push process to hold every waiter")
    assert [(w.kind, w.status, w.error) for w in every if w.answered_at] == []
    return waiters, threads


def answered(waiters: dict[str, list[Waiter]], threads: list[threading.Thread],
             after: dict[str, int]) -> None:
    """Every waiter answered 200 with its game's version after the move."""
    for t in threads:
        t.join(PATIENCE)
    for game_id, ws in waiters.items():
        assert [(w.kind, w.status, w.version, w.error) for w in ws] == [
            (w.kind, 200, after[game_id], None) for w in ws], game_id


def test_a_push_process_wakes_waiters_on_every_shard_and_misses_no_move_while_unsubscribed(
        cluster: LocalCluster, web: str, push: str) -> None:
    store = cluster_client(cluster.url)
    games = games_on_every_shard(web, store)

    waiters, threads = park_all(push, games)
    subscribed_on_owners(store, games)
    after = {game.game_id: game.discard() for game in games.values()}
    answered(waiters, threads, after)

    # the subscriptions lost, the moves made while none is held, then the user let in
    waiters, threads = park_all(push, games)
    subscribed_on_owners(store, games)
    nodes = [store.get_redis_connection(node) for node in store.get_primaries()]
    try:
        for node in nodes:
            node.execute_command("ACL", "SETUSER", USER, "off")
            node.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
        assert not any(subscribers(store, games).values())
        after = {game.game_id: game.discard() for game in games.values()}
        assert not any(subscribers(store, games).values())  # each move was heard by nobody
        assert all(w.answered_at is None for ws in waiters.values() for w in ws)
    finally:
        for node in nodes:
            node.execute_command("ACL", "SETUSER", USER, "on")
    answered(waiters, threads, after)

    # subscribed again, each game on its owner: the next moves are heard there
    waiters, threads = park_all(push, games)
    subscribed_on_owners(store, games)
    after = {game.game_id: game.discard() for game in games.values()}
    answered(waiters, threads, after)


def move_slot(store: redis.RedisCluster, key: str, to: redis.cluster.ClusterNode) -> None:
    """Move ``key``'s slot, keys and all, to the primary ``to`` (as ``redis-cli --cluster
    reshard`` does: importing, migrating, the keys, then the new owner told to all)."""
    slot = store.keyslot(key)
    source = store.get_node_from_key(key)
    nodes = {node.name: store.get_redis_connection(node) for node in store.get_primaries()}
    ids = {name: node.execute_command("CLUSTER", "MYID").decode()
           for name, node in nodes.items()}
    src, dst = nodes[source.name], nodes[to.name]
    dst.execute_command("CLUSTER", "SETSLOT", slot, "IMPORTING", ids[source.name])
    src.execute_command("CLUSTER", "SETSLOT", slot, "MIGRATING", ids[to.name])
    keys = src.execute_command("CLUSTER", "GETKEYSINSLOT", slot, 1000)
    if keys:
        src.execute_command("MIGRATE", to.host, to.port, "", 0, 5000, "KEYS", *keys)
    for node in (dst, src, *nodes.values()):
        node.execute_command("CLUSTER", "SETSLOT", slot, "NODE", ids[to.name])
    wait_until(lambda: all(slot_owner(n, slot) == ids[to.name] for n in nodes.values()),
               PATIENCE, "every primary to know the slot's new owner")
    store.nodes_manager.initialize()


def slot_owner(node: redis.Redis, slot: int) -> str:
    for first, last, owner, *_ in node.execute_command("CLUSTER", "SLOTS"):
        if int(first) <= slot <= int(last):
            return owner[2].decode() if isinstance(owner[2], bytes) else str(owner[2])
    return ""


def test_a_push_process_follows_a_games_channel_to_the_primary_its_slot_moved_to(
        cluster: LocalCluster, web: str, push: str) -> None:
    """A rebalance moves a watched game's slot: on Redis 7 the old owner ends the sharded
    subscription and the process subscribes on the new owner; on 6.2 the plain
    subscription stays where it was and hears the publication every node relays. Either
    way the game's next move wakes its waiters."""
    store = cluster_client(cluster.url)
    game = Game.create(web, "push-moving-slot")
    games = {"moving": game}
    waiters, threads = park_all(push, games)
    subscribed_on_owners(store, games)
    before = store.get_node_from_key(channel_of(game.game_id))
    to = next(node for node in store.get_primaries() if node.name != before.name)
    move_slot(store, channel_of(game.game_id), to)
    assert store.get_node_from_key(channel_of(game.game_id)).name == to.name
    if sharded(store):  # the old owner ended the subscription: it is made on the new one
        subscribed_on_owners(store, games)
    after = {game.game_id: game.discard()}
    answered(waiters, threads, after)


def test_a_stream_of_games_on_every_shard_is_changed_through_the_cluster(
        web: str, push: str, cluster: LocalCluster) -> None:
    """A stream of many games opened on one game, the others added while it is open: the
    change travels on the stream's own channel (a slot of its own, heard on its shard),
    and every added game's next move comes on the stream."""
    store = cluster_client(cluster.url)
    games = list(games_on_every_shard(web, store).values())
    first, added = games[0], games[1:]
    reader = Reader(push, {"games": [first.game_id]})
    try:
        r = change(push, reader.id, "add", [g.game_id for g in added])
        assert r.status_code == 200, r.text
        assert sorted(r.json()["games"]) == sorted(g.game_id for g in games)
        assert change(push, "nosuchstream", "add", [first.game_id]).status_code == 404
        for game in games:
            game.to_a_discard()
            version = game.discard()
            wait_until(lambda g=game, v=version: seen_version(reader, g.game_id) >= v,
                       PATIENCE, f"the move of {game.game_id} on the stream")
    finally:
        reader.close()
