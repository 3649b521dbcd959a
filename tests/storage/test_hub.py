"""The notification hub on a real Redis: one subscription per worker wakes every waiter."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator

import pytest
import redis

from service.storage.hub import Hub, channel_of, game_of_channel
from tests.conftest import PATIENCE, free_port, redis_binary, wait_until


def start_redis(port: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [redis_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--loglevel", "warning"], stdout=subprocess.DEVNULL)
    wait_until(lambda: redis.Redis(port=port).ping(), PATIENCE, "redis-server")
    return proc


@pytest.fixture
def own_redis() -> Iterator[int]:
    """A Redis of this test's own, which the test may restart on the same port."""
    port = free_port()
    proc = start_redis(port)
    yield port
    proc.terminate()
    proc.wait(PATIENCE)


def sharded_supported(client: redis.Redis) -> bool:
    return int(client.info("server")["redis_version"].split(".")[0]) >= 7


@pytest.fixture(params=["plain", "sharded"])
def hub_and_client(request: pytest.FixtureRequest, own_redis: int) -> Iterator[tuple[Hub, redis.Redis]]:
    client = redis.Redis(port=own_redis, socket_timeout=2, health_check_interval=30)
    sharded = request.param == "sharded"
    if sharded and not sharded_supported(client):
        pytest.skip("sharded pub/sub needs Redis 7")
    hub = Hub(client, sharded=sharded)
    yield hub, client
    hub.close()
    client.close()


def publish(client: redis.Redis, hub: Hub, game_id: str) -> None:
    cmd = "SPUBLISH" if hub.sharded else "PUBLISH"
    client.execute_command(cmd, channel_of(game_id), "1")


def park(hub: Hub, game_id: str, timeout: float, woken: list[str], ready: threading.Barrier) -> None:
    with hub.watch(game_id) as watch:
        ready.wait()
        if watch.wait(timeout):
            woken.append(game_id)


def test_a_channel_names_its_game_and_shares_its_hash_tag() -> None:
    assert channel_of("abc") == "ttt:{abc}:moved"
    assert game_of_channel(b"ttt:{abc}:moved") == "abc"
    assert game_of_channel("ttt:{abc}:game") is None


def test_a_move_wakes_every_waiter_of_its_game_and_no_other(hub_and_client) -> None:
    hub, client = hub_and_client
    woken: list[str] = []
    ready = threading.Barrier(301)
    # a waiter is in ``woken`` only if woken (not timed out): no time needs measuring
    threads = [threading.Thread(target=park, args=(hub, "g1" if i < 200 else "g2", PATIENCE,
                                                   woken, ready))
               for i in range(300)]
    for t in threads:
        t.start()
    ready.wait()
    assert hub.waiting() == 300
    publish(client, hub, "g1")
    for t in threads[:200]:
        t.join(PATIENCE)
    assert woken.count("g1") == 200
    assert "g2" not in woken
    publish(client, hub, "g2")
    for t in threads[200:]:
        t.join(PATIENCE)
    assert woken.count("g2") == 100
    assert hub.waiting() == 0


def test_many_waiters_share_one_redis_connection(hub_and_client) -> None:
    hub, client = hub_and_client
    ready = threading.Barrier(101)
    woken: list[str] = []
    threads = [threading.Thread(target=park, args=(hub, f"g{i % 25}", PATIENCE, woken, ready))
               for i in range(100)]
    for t in threads:
        t.start()
    ready.wait()
    pubsub_clients = [c for c in client.client_list() if c["cmd"] in (
        "subscribe", "ssubscribe", "ping", "unsubscribe", "sunsubscribe")]
    assert len(pubsub_clients) == 1
    for i in range(25):
        publish(client, hub, f"g{i}")
    for t in threads:
        t.join(PATIENCE)
    assert len(woken) == 100


def test_a_move_right_after_watching_begins_is_not_lost(hub_and_client) -> None:
    hub, client = hub_and_client
    for _ in range(20):
        with hub.watch("g") as watch:
            publish(client, hub, "g")  # the subscription is confirmed when watch() returns
            assert watch.wait(PATIENCE)


def test_a_waiter_that_hears_nothing_times_out(hub_and_client) -> None:
    hub, _ = hub_and_client
    with hub.watch("quiet") as watch:
        started = time.monotonic()
        assert not watch.wait(0.3)  # it came back, unwoken: it timed out
        assert time.monotonic() - started > 0.25  # and not before its time


def test_a_shared_computation_runs_once_per_wake_up_for_all_waiters(hub_and_client) -> None:
    hub, client = hub_and_client
    calls: list[int] = []
    results: list[int] = []
    ready = threading.Barrier(51)

    def load() -> int:
        calls.append(1)
        time.sleep(0.05)  # a Redis read: the other waiters arrive meanwhile
        return 42

    def waiter() -> None:
        with hub.watch("g") as watch:
            ready.wait()
            if watch.wait(PATIENCE):
                results.append(watch.shared(("view", None), load))

    threads = [threading.Thread(target=waiter) for _ in range(50)]
    for t in threads:
        t.start()
    ready.wait()
    publish(client, hub, "g")
    for t in threads:
        t.join(PATIENCE)
    assert results == [42] * 50
    assert len(calls) == 1


def test_after_a_redis_restart_the_hub_resubscribes_and_wakes_everyone() -> None:
    port = free_port()
    proc = start_redis(port)
    client = redis.Redis(port=port, socket_timeout=2)
    hub = Hub(client, sharded=False)
    woken: list[str] = []
    try:
        ready = threading.Barrier(11)
        threads = [threading.Thread(target=park, args=(hub, "g", PATIENCE, woken, ready))
                   for _ in range(10)]
        for t in threads:
            t.start()
        ready.wait()
        proc.terminate()
        proc.wait(PATIENCE)
        proc = start_redis(port)
        for t in threads:  # woken to re-read: a move may have happened while away
            t.join(PATIENCE)
        assert len(woken) == 10
        # and the new subscription works: a waiter parked after the restart hears the next move
        with hub.watch("g") as watch:
            client.publish(channel_of("g"), "1")
            assert watch.wait(PATIENCE)
    finally:
        hub.close()
        proc.terminate()
        proc.wait(PATIENCE)


def test_waiters_coming_and_going_never_leave_a_watched_game_unsubscribed(hub_and_client) -> None:
    hub, client = hub_and_client
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            with hub.watch("g"):
                pass

    churners = [threading.Thread(target=churn) for _ in range(4)]
    for t in churners:
        t.start()
    try:
        for _ in range(10):
            with hub.watch("g") as watch:
                time.sleep(0.02)  # the churners subscribe and unsubscribe around us
                publish(client, hub, "g")
                assert watch.wait(PATIENCE)
    finally:
        stop.set()
        for t in churners:
            t.join(PATIENCE)
