"""What the stores' contract suites share: a bundle of stores on each backend, so one test
runs against the Redis stores (what the service runs on, on the session's redis-server)
and against the memory ones (what the service layer's fast tests stand them in for), and
a divergence between the two fails it.

A third backend, ``cluster``, runs the same tests on a local 3-primary Redis Cluster (one
per test process, started by the first test that asks for it): a store whose keys span
shards (indexes, queues, boards beside the games they name) must behave there as on one
Redis.

Why one database for every contract suite: each test empties it before it starts, and
the tests of one process run one after another (each pytest-xdist process has a
redis-server of its own), so the suites cannot see each other's keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis

from service.config import Config
from service.storage import Stores, memory_stores, redis_stores
from tests.cluster.local import cluster_client, local_cluster
from tests.conftest import redis_client, redis_url_for_tests

#: The Redis database of the contract suites (no other test uses it).
CONTRACT_DB = 2

#: The backends every contract test runs on.
BACKENDS = ("redis", "memory", "cluster")


@pytest.fixture(scope="session")
def cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The ``redis+cluster://`` URL of this test process's local 3-primary cluster."""
    with local_cluster(tmp_path_factory.mktemp("contract-cluster")) as cluster:
        yield cluster.url


@pytest.fixture
def cluster_db(cluster_url: str) -> Iterator[redis.RedisCluster]:
    """The cluster, emptied on every primary before and after the test."""
    client = cluster_client(cluster_url)
    client.flushdb(target_nodes=redis.RedisCluster.PRIMARIES)
    yield client
    client.flushdb(target_nodes=redis.RedisCluster.PRIMARIES)
    client.close()


@pytest.fixture
def contract_db(redis_server: str) -> Iterator[redis.Redis]:
    """The contract suites' database, emptied before and after the test."""
    client: redis.Redis = redis_client(redis_url_for_tests(redis_server, CONTRACT_DB))
    client.flushdb()
    yield client
    client.flushdb()


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """The backend of this run of the test: ``redis``, ``memory`` or ``cluster``."""
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
def make_stores(request: pytest.FixtureRequest, backend: str
                ) -> Iterator[Callable[..., Stores]]:
    """Builds a bundle of ``backend``'s stores from :class:`Config` settings (on Redis,
    in the emptied contract database; closed after the test). Two Redis bundles share
    the server, as two processes do; two memory bundles share nothing."""
    url = None
    if backend == "redis":
        request.getfixturevalue("contract_db")
        url = redis_url_for_tests(request.getfixturevalue("redis_server"), CONTRACT_DB)
    elif backend == "cluster":
        request.getfixturevalue("cluster_db")
        url = request.getfixturevalue("cluster_url")
    made: list[Stores] = []

    def make(**settings: Any) -> Stores:
        if url is None:
            return memory_stores(Config(**settings))
        bundle = redis_stores(Config(redis_url=url, **settings))
        made.append(bundle)
        return bundle

    yield make
    for bundle in made:
        bundle.close()


@pytest.fixture
def stores(make_stores: Callable[..., Stores]) -> Stores:
    """A bundle of the backend's stores, with the default configuration."""
    return make_stores()


@pytest.fixture
def on_redis(redis_server: str, contract_db: redis.Redis) -> Iterator[Stores]:
    """The Redis stores alone, in the emptied contract database (for a test of what Redis
    keeps, read with :func:`contract_db`)."""
    bundle = redis_stores(Config(redis_url=redis_url_for_tests(redis_server, CONTRACT_DB)))
    yield bundle
    bundle.close()
