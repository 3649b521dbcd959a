"""The service unchanged on a local 3-master Redis Cluster (``REDIS_URL=redis+cluster://…``).

The test starts three ``redis-server --cluster-enabled yes`` on loopback, joins them with
the cluster commands (tests/cluster/local.py), runs a complete game through the app (rate
limits on, counted in the cluster too) and checks that games spread over the shards,
then runs the tests of ``tests/api`` that reach a part of Redis nothing else here
reaches (:data:`API_ON_THE_CLUSTER`). Last, waiters parked on games on all three shards
through a 2-worker gevent gunicorn are woken by their moves (the hub's sharded
subscriptions).

Why a subset of ``tests/api`` is enough (all of it took 4 minutes here): on a cluster
only what the service asks of Redis can behave differently: a key's slot and shard, a
script whose keys must share one slot, a publish heard on the right shard, the
schedules read across shards. Each such thing is run on the cluster once. The game's
scripts (create, the compare-and-set save with its events and publish), reads, events
read after a cursor, ``/readyz`` and flask-limiter's counters are in the full game below; games on every shard, played to their end by a 2-worker gunicorn, woken
waiters of every kind, seeks held by their long-polls, records and the move workers'
clock schedule are the rows of test_features_across_shards.py; the bounded per-node
pools are test_cluster_pools.py. The subset adds the rest, one test each: the reply
slot, the hash tag with its TTLs, a stale compare-and-set, a claim's wake-up, the
lobby's listings and their pruning by the sweeper, seek contention and a seek held by
its connection, stream tickets, 429s counted in the cluster, accounts and their games
index, challenges with notes to accounts on three shards and their expiry visit, and
webhook queues with their schedule, delivered by a worker process. What the subset
leaves out is single-game behaviour on one slot that does not change with where the
keys live (a superseded key, the TTL of a stored reply or a finished game, a view that
lost a race, abort and claims after time-outs, event paging, records outliving the
game, seek cancel and expiry, account seeks held by a stream, account stream
tickets); ``make test`` runs all of tests/api on one Redis. A test named here that is
renamed or removed fails this one, naming it, rather than silently dropping out.
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
from tests.conftest import PATIENCE, ROOT, wait_until


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


#: The tests of tests/api run on the cluster: one per thing the service asks of Redis that
#: can behave differently there and that the other tests here do not reach (the module's
#: docstring says why that is enough).
API_ON_THE_CLUSTER = [
    # the save script's reply slot on the game's slot: a retry replays the stored reply
    "test_idempotent_replies_per_seat.py::"
    "test_a_retry_after_the_other_seats_moved_gets_the_first_response_byte_for_byte",
    # key layout: state, events and replies share one hash tag (one slot), with their TTLs
    "test_games.py::test_state_events_and_replies_share_one_hash_tag_and_carry_the_ttl",
    # the save's compare-and-set refusing a stale version
    "test_games.py::test_a_stale_if_match_is_412_and_changes_nothing",
    # a claim publishes on the game's shard and wakes the creator's long-poll
    "test_games.py::test_a_claim_wakes_a_creator_long_polling_for_an_opponent",
    # the lobby's listings (their own hash tag, the relist script) against games on every
    # shard, and the sweeper's schedule pruning an expired game from them
    "test_lobby_and_seeks.py::test_the_lobby_lists_a_new_open_game_and_drops_it_once_its_seats_are_full",
    "test_lobby_and_seeks.py::"
    "test_an_expired_game_is_skipped_by_the_lobby_and_pruned_by_the_sweeper",
    # the seek scripts under contention (one pool's slot), their games on every shard
    "test_lobby_and_seeks.py::test_forty_seekers_arriving_at_once_end_in_exactly_ten_games_one_seat_each",
    # a seek held by its connection (the hold scripts, arrivals numbered in the pool's
    # keys): a closed one is never matched, racing seekers and all, on a 2-worker gunicorn
    "test_seeks_on_gunicorn.py::"
    "test_a_seek_whose_long_poll_closes_is_gone_before_any_racing_seeker_can_match_it",
    # stream tickets: SET NX, then taken once (GETDEL)
    "test_streams.py::"
    "test_a_stream_ticket_opens_one_stream_as_its_seat_and_is_refused_the_second_time",
    # flask-limiter's counters in the cluster, per token and per address, reaching 429
    "test_rate_limits.py::"
    "test_a_busy_polling_token_gets_429_with_ratelimit_headers_and_others_are_unaffected",
    "test_rate_limits.py::test_creating_games_past_the_address_quota_is_429_creation_limited",
    # accounts: created once regardless of case (their own hash tag), their games index
    # (active, then finished) on another slot than the game's
    "test_accounts.py::test_a_handle_is_refused_when_it_differs_from_one_taken_only_by_case[ANN]",
    "test_accounts.py::test_a_bot_account_plays_a_whole_game_with_its_key_alone_and_is_shown_as_a_bot",
    # challenges: compare-and-set on their own slot, the accounts' indexes, notes (the
    # append script, each account's hub channel) to three accounts on three shards while
    # they play, and the schedule's expiry visit
    "test_challenges.py::test_three_accounts_play_a_challenge_with_their_keys_and_hear_every_note_once",
    "test_challenges.py::test_an_unanswered_challenge_expires_and_both_sides_hear_it",
    # webhooks: the queue in the account's keys (its shard), the webhook schedule on its
    # own, retries by a worker process on the cluster until the receiver answers 200
    "test_webhooks.py::test_a_challenge_is_queued_in_the_accounts_keys_for_the_workers_not_sent",
    "test_webhook_deliveries.py::"
    "test_a_receiver_answering_500_three_times_then_200_gets_one_event_id_signed_each_time",
]


def test_the_redis_facing_api_tests_pass_on_the_cluster(cluster: str) -> None:
    """The tests of :data:`API_ON_THE_CLUSTER` with every Redis they use being the
    cluster (``TEST_REDIS_URL``): one pytest run in a subprocess, so they run exactly as
    in ``make test``, fixtures and all, only against the cluster. Every
    one must pass: none skipped, none missing."""
    env = {**os.environ, "TEST_REDIS_URL": cluster}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
         *[f"tests/api/{test}" for test in API_ON_THE_CLUSTER]],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.startswith(f"{len(API_ON_THE_CLUSTER)} passed"), summary
    assert "skipped" not in summary and "deselected" not in summary, summary


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
            waiters[game.game_id] = mixed(game, 30, 30)  # the service's cap
        threads = park(server.base, [w for ws in waiters.values() for w in ws], 60)
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
                               if n == owner(g)), PATIENCE, "every game's channel subscribed")
        for (game_id, node), count in subscribers().items():
            assert (count > 0) == (node == owner(game_id)), (game_id, node, count)
        moved_at = time.monotonic()
        after = {game.game_id: game.discard() for game in games.values()}
        for t in threads:
            t.join(PATIENCE)
        for game_id, ws in waiters.items():
            assert [(w.kind, w.status, w.version) for w in ws] == [
                (w.kind, 200, after[game_id]) for w in ws], game_id
        last = max(w.answered_at for ws in waiters.values() for w in ws) - moved_at
        assert last < 15, last  # woken, not timed out (30 s)
    finally:
        server.close()
