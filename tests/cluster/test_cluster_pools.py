"""On a Redis Cluster the stores' connections to each node are a bounded *blocking* pool, as
on one Redis: a burst of requests on one shard beyond ``REDIS_MAX_CONNECTIONS`` waits for a
free connection (up to ``REDIS_TIMEOUT_SECONDS``) instead of failing at once with 503, which
is what redis-py's default cluster pool does (many seekers of one rules pool, whose keys
share a shard, hit it)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import redis

from service.storage.redis import RedisConnection
from tests.cluster.local import local_cluster
from tests.conftest import PATIENCE


@pytest.fixture(scope="module")
def cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with local_cluster(tmp_path_factory.mktemp("pools")) as cluster:
        yield cluster.url


def test_more_requests_on_one_shard_than_connections_wait_for_a_free_one(
        cluster_url: str) -> None:
    connection = RedisConnection(cluster_url, timeout_seconds=5, max_connections=2)
    key = "ttt:{pools}:probe"
    pool = connection.client.get_node_from_key(key).redis_connection.connection_pool
    assert isinstance(pool, redis.BlockingConnectionPool) and pool.max_connections == 2
    errors: list[BaseException] = []

    def hold() -> None:  # each holds a connection to the key's node for 0.3 s
        try:
            connection.client.blpop([key], 0.3)
        except BaseException as exc:
            errors.append(exc)

    started = time.monotonic()
    threads = [threading.Thread(target=hold) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(PATIENCE)
    assert errors == []
    assert time.monotonic() - started >= 0.85  # 6 on 2 connections: three turns of 0.3 s
    connection.close()


def test_a_request_that_finds_no_free_connection_in_time_is_unavailable(
        cluster_url: str) -> None:
    connection = RedisConnection(cluster_url, timeout_seconds=0.2, max_connections=1)
    key = "ttt:{pools}:probe"
    pool = connection.client.get_node_from_key(key).redis_connection.connection_pool
    taken = pool.get_connection()  # the node's one connection, busy elsewhere
    started = time.monotonic()
    with pytest.raises(redis.ConnectionError):
        connection.client.get(key)  # the stores turn this into 503 (UNREACHABLE)
    assert time.monotonic() - started >= 0.2  # it waited its timeout first
    pool.release(taken)
    assert connection.client.get(key) is None  # and works again once one is free
    connection.close()
