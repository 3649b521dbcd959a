"""The per-thread connections of the hot path (``service/storage/pinned.py``) against a
real redis-server: they survive what the pool's checks used to catch."""

from __future__ import annotations

import threading

import pytest
import redis

from service.storage.pinned import PinnedConnections


@pytest.fixture()
def client(redis_server: str) -> redis.Redis:
    client = redis.Redis.from_url(f"{redis_server}/9", socket_timeout=2)
    client.flushdb()
    return client


def test_a_command_returns_the_raw_reply(client: redis.Redis) -> None:
    pinned = PinnedConnections(client.connection_pool)
    client.hset("h", mapping={"s": b"state", "t": b"[]"})
    assert pinned.execute("HMGET", "h", "s", "t", "missing") == [b"state", b"[]", None]


def test_a_connection_redis_closed_is_reopened_and_the_command_sent_once_more(
    client: redis.Redis,
) -> None:
    pinned = PinnedConnections(client.connection_pool)
    pinned.execute("CLIENT", "SETNAME", "pinned-under-test")
    pinned.execute("SET", "k", "1")
    killed = None
    for info in client.client_list():
        if info.get("name") == "pinned-under-test":
            client.client_kill_filter(_id=info["id"])
            killed = info["id"]
    assert killed is not None
    assert pinned.execute("INCR", "k") == 2  # applied exactly once
    assert client.get("k") == b"2"


def test_a_script_redis_forgot_is_loaded_again(client: redis.Redis) -> None:
    pinned = PinnedConnections(client.connection_pool)
    script = client.register_script("return {KEYS[1], ARGV[1]}")
    assert pinned.evalsha(script, ["a"], ["b"]) == [b"a", b"b"]
    client.script_flush()
    assert pinned.evalsha(script, ["c"], ["d"]) == [b"c", b"d"]


def test_error_replies_are_raised_and_leave_the_connection_usable(client: redis.Redis) -> None:
    pinned = PinnedConnections(client.connection_pool)
    pinned.execute("SET", "text", "x")
    with pytest.raises(redis.ResponseError):
        pinned.execute("INCR", "text")
    assert pinned.execute("GET", "text") == b"x"


def test_each_thread_gets_its_own_connection(client: redis.Redis) -> None:
    pinned = PinnedConnections(client.connection_pool)
    ids: list[int] = []
    lock = threading.Lock()

    def work() -> None:
        mine = pinned.execute("CLIENT", "ID")
        for _ in range(50):
            assert pinned.execute("CLIENT", "ID") == mine
        with lock:
            ids.append(mine)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(ids)) == 4
