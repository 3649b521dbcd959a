"""The service unchanged on a local 3-master Redis Cluster (``REDIS_URL=redis+cluster://…``).

The test starts three ``redis-server --cluster-enabled yes`` on loopback, joins them with
the cluster commands (tests/cluster/local.py), runs a complete game through the app (rate limits on,
counted in the cluster too) and checks that games spread over the shards, then runs
all of ``tests/api`` against the cluster: the API integration tests, the hostile-input
fuzzing, the rate limits and the 16-thread race through a 2-worker gunicorn (about
70 s in all). Last, waiters parked on games on all three shards through a 2-worker
gevent gunicorn are woken by their moves (the hub's sharded subscriptions).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import orjson
import pytest
import redis

from service.app import create_app
from service.config import Config
from service.engine import apply, from_dict, new_game
from service.storage.hub import channel_of
from tests.api.test_full_games import play
from tests.cluster.local import local_cluster
from tests.conftest import ROOT, wait_until


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with local_cluster(tmp_path_factory.mktemp("nodes")) as started:
        yield started.url


def _client(url: str) -> redis.RedisCluster:
    return redis.RedisCluster.from_url(url.replace("redis+cluster://", "redis://"))


def test_a_full_game_and_games_on_every_shard(cluster: str) -> None:
    app = create_app(Config(redis_url=cluster, rate_limit="100000/second",
                            rate_limit_per_address="100000/second",
                            creation_limit_per_address="100000/second"))
    client = app.test_client()
    store = _client(cluster)
    table, moves = play(client, store, {"preset": "classic", "hand_sizes": [3, 4, 5, 6]},
                         "cluster", scan=False)
    stored = from_dict(orjson.loads(store.hget(f"ttt:{{{table.game_id}}}:game", "s")))
    assert stored.finished
    replay = new_game(stored.rules, list(stored.names), stored.seed, seed_salt=stored.seed_salt,
                      table_nonce=stored.table_nonce)
    for seat, action in moves:
        replay, _ = apply(replay, seat, action)
    assert replay == stored
    events = client.get(f"/v1/games/{table.game_id}/events?after={stored.event_seq - 3}").json
    assert [e["seq"] for e in events["events"]] == [stored.event_seq - 2 + i for i in range(3)]

    # every key of a game is on one slot; many games use every shard
    ids = [client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}]}).json[
        "game_id"] for _ in range(30)]
    masters = set()
    for gid in ids:
        keys = [f"ttt:{{{gid}}}:game", f"ttt:{{{gid}}}:events", f"ttt:{{{gid}}}:reply:x"]
        assert len({store.keyslot(k) for k in keys}) == 1
        masters.add(store.get_node_from_key(keys[0]).name)
    assert len(masters) == 3
    assert client.get("/readyz").status_code == 200


def test_the_api_tests_pass_on_the_cluster(cluster: str) -> None:
    """All of tests/api with every Redis they use being the cluster (``TEST_REDIS_URL``):
    the endpoint tests (success and failure paths, TTLs, token hashing, idempotency,
    long-polls), the full games with engine replay, the hostile-input fuzzing (all
    examples, > 10,000 requests: about 11 s here, so not cut down), the rate limits
    (flask-limiter counting in the cluster) and the 16-thread race through a 2-worker
    gunicorn on the cluster. One pytest run in a subprocess, so the tests run exactly
    as in ``make test``, only against the cluster (about 55 s)."""
    env = {**os.environ, "TEST_REDIS_URL": cluster}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/api"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "skipped" not in summary, summary  # none skipped


def test_waiters_on_games_on_every_shard_are_all_woken_by_their_moves(cluster: str) -> None:
    """The hub on the cluster, through a real 2-worker gevent gunicorn: each worker holds
    one (sharded, on Redis 7) subscription per primary, and a game's save publishes on
    its own shard; waiters of games on all three shards are woken by their game's move."""
    from tests.faults.conftest import Gunicorn
    from tests.faults.waiters import Game, mixed, park

    store = _client(cluster)
    sharded = int(store.info("server", target_nodes=redis.RedisCluster.RANDOM)[
        "redis_version"].split(".")[0]) >= 7
    app_stores = create_app(Config(redis_url=cluster)).extensions["three_thirteen"].stores
    assert app_stores.games.connection.hub.sharded is sharded
    app_stores.close()
    server = Gunicorn(cluster, LONG_POLL_MAX_SECONDS="30", MAX_WAITS_PER_ADDRESS="off",
                      MAX_WAITS_PER_TOKEN="off", RATE_LIMIT="off", RATE_LIMIT_PER_ADDRESS="off")
    try:
        games: dict[str, Game] = {}  # one per primary
        for i in range(60):
            game = Game.create(server.base, f"shard-{i}")
            games.setdefault(store.get_node_from_key(f"ttt:{{{game.game_id}}}:game").name, game)
            if len(games) == 3:
                break
        assert len(games) == 3, "games did not land on every shard"
        waiters = {}
        for game in games.values():
            game.to_a_discard()
            waiters[game.game_id] = mixed(game, 30, 10)
        threads = park(server.base, [w for ws in waiters.values() for w in ws], 20)
        # each game's channel is subscribed on the primary that owns it, and only there
        numsub = "PUBSUB SHARDNUMSUB" if sharded else "PUBSUB NUMSUB"
        primaries = store.get_primaries()

        def subscribers() -> dict[tuple[str, str], int]:
            return {(game.game_id, node.name): store.get_redis_connection(node)
                    .execute_command(numsub, channel_of(game.game_id))[0][1]
                    for game in games.values() for node in primaries}

        def owner(game_id: str) -> str:
            return str(store.get_node_from_key(channel_of(game_id)).name)

        wait_until(lambda: all(count > 0 for (g, n), count in subscribers().items()
                               if n == owner(g)), 10, "every game's channel subscribed")
        for (game_id, node), count in subscribers().items():
            assert (count > 0) == (node == owner(game_id)), (game_id, node, count)
        moved_at = time.monotonic()
        after = {game.game_id: game.discard() for game in games.values()}
        for t in threads:
            t.join(15)
        for game_id, ws in waiters.items():
            assert [(w.kind, w.status, w.version) for w in ws] == [
                (w.kind, 200, after[game_id]) for w in ws], game_id
        last = max(w.answered_at for ws in waiters.values() for w in ws) - moved_at
        assert last < 5.0, last  # woken, not timed out (10 s)
    finally:
        server.close()
