"""The delivery worker's loop (``service/workers/deliveries.py``) on the in-memory stores,
with receivers the test scripts: it makes every attempt due and counts each by outcome;
never more attempts at once than its concurrency; a receiver that hangs holds one sending
thread, not the other accounts' deliveries; idle, it is woken by an event queued; told to
stop, it lets the attempts under way finish."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from service.play import create_account, set_webhook
from service.play.notes import tell
from service.storage import Stores, memory_stores
from service.webhooks import Attempt
from service.workers.deliveries import DeliveryWorker
from tests.conftest import PATIENCE

RETRIES = (0.05, 0.05)


def public(host: str, port: int) -> list[str]:
    return ["93.184.216.34"]


def hooked(stores: Stores, *handles: str) -> None:
    for handle in handles:
        account = create_account(stores, handle, False)[0]
        set_webhook(stores, account, f"https://hooks.example.net/{handle}",
                    allow_private=False, resolver=public)


def notify(stores: Stores, handle: str, *games: str) -> None:
    tell(stores, handle, [(f"{g}:your_turn", {"type": "your_turn", "game_id": g})
                          for g in games])


def whose(url: str) -> str:
    return url.rsplit("/", 1)[1]


@contextmanager
def running(worker: DeliveryWorker) -> Iterator[None]:
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop.is_set,), daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        worker.stores.webhook_schedule.plan("wake-to-stop", time.time() + 3600)
        thread.join(PATIENCE)
        worker.finish()
        assert not thread.is_alive()


def wait_for(check, what: str, seconds: float = PATIENCE) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.01)


def test_a_worker_drains_every_attempt_due_and_counts_each_by_outcome() -> None:
    stores = memory_stores()
    hooked(stores, "ann", "bob")
    notify(stores, "ann", "g1", "g2")
    notify(stores, "bob", "g3")
    answers = {"ann": [500, 200, 200], "bob": [500, 500, 500]}
    calls: list[str] = []

    def send(url: str, secret: str, event_id: str, body: str) -> Attempt:
        calls.append(whose(url))
        status = answers[whose(url)].pop(0)
        return Attempt(status == 200, status, f"status {status}")

    worker = DeliveryWorker(stores, send, retries=RETRIES, timeout=1.0, concurrency=1)
    made = 0
    for _ in range(3):  # now, and after each of the two waits
        made += worker.drain()
        time.sleep(0.06)
    assert made == len(calls) == 6 and sorted(calls) == ["ann"] * 3 + ["bob"] * 3
    counted = {o: worker.metrics.registry.get_sample_value(
        "ttt_worker_webhook_deliveries_total", {"outcome": o}) for o in ("ok", "retried", "failed")}
    assert counted == {"ok": 2, "retried": 3, "failed": 1}
    assert stores.webhooks.head("ann") is None and stores.webhooks.head("bob") is None


def test_never_more_attempts_at_once_than_the_concurrency() -> None:
    stores = memory_stores()
    handles = [f"acct{n}" for n in range(6)]
    hooked(stores, *handles)
    for handle in handles:
        notify(stores, handle, "g")
    lock, release = threading.Lock(), threading.Event()
    now_sending, most, done = [0], [0], []

    def send(url: str, secret: str, event_id: str, body: str) -> Attempt:
        with lock:
            now_sending[0] += 1
            most[0] = max(most[0], now_sending[0])
        release.wait(PATIENCE)
        with lock:
            now_sending[0] -= 1
            done.append(whose(url))
        return Attempt(True, 200, "status 200")

    worker = DeliveryWorker(stores, send, retries=RETRIES, timeout=1.0, concurrency=2,
                            idle_seconds=0.1)
    with running(worker):
        wait_for(lambda: now_sending[0] == 2, "two attempts under way")
        time.sleep(0.3)  # a third would have started by now
        assert most[0] == 2
        release.set()
        wait_for(lambda: len(done) == 6, "every account delivered")
    assert most[0] == 2 and sorted(done) == handles


def test_a_receiver_that_hangs_holds_one_thread_not_the_other_accounts() -> None:
    stores = memory_stores()
    hooked(stores, "hang", "ann", "bob")
    notify(stores, "hang", "g1")
    hanging, delivered = threading.Event(), []

    def send(url: str, secret: str, event_id: str, body: str) -> Attempt:
        if whose(url) == "hang":
            hanging.wait(10)  # a receiver that never answers (the real one: its deadline)
            return Attempt(False, None, "deadline")
        delivered.append(whose(url))
        return Attempt(True, 200, "status 200")

    worker = DeliveryWorker(stores, send, retries=RETRIES, timeout=1.0, concurrency=2,
                            idle_seconds=0.1)
    with running(worker):
        try:
            time.sleep(0.2)  # the hanging attempt is under way
            for n in range(5):
                notify(stores, "ann", f"a{n}")
                notify(stores, "bob", f"b{n}")
            wait_for(lambda: len(delivered) == 10, "the other accounts' ten events")
            assert not hanging.is_set()
        finally:
            hanging.set()


def test_an_idle_worker_is_woken_by_an_event_queued_and_sends_it_at_once() -> None:
    stores = memory_stores()
    hooked(stores, "ann")
    sent: list[float] = []

    def send(url: str, secret: str, event_id: str, body: str) -> Attempt:
        sent.append(time.monotonic())
        return Attempt(True, 200, "status 200")

    worker = DeliveryWorker(stores, send, retries=RETRIES, timeout=1.0, concurrency=1,
                            idle_seconds=30.0)
    with running(worker):
        time.sleep(0.2)  # idle, blocked on the webhook schedule for up to 30 s
        queued = time.monotonic()
        notify(stores, "ann", "g1")
        wait_for(lambda: sent, "the attempt")
        assert sent[0] - queued < 1.0


def test_a_stopping_worker_lets_the_attempt_under_way_finish() -> None:
    stores = memory_stores()
    hooked(stores, "ann")
    notify(stores, "ann", "g1")
    started, finished = threading.Event(), threading.Event()

    def send(url: str, secret: str, event_id: str, body: str) -> Attempt:
        started.set()
        time.sleep(0.3)
        finished.set()
        return Attempt(True, 200, "status 200")

    worker = DeliveryWorker(stores, send, retries=RETRIES, timeout=1.0, concurrency=1,
                            idle_seconds=0.1)
    with running(worker):
        assert started.wait(PATIENCE)
    assert finished.is_set()  # finish() waited for it
    assert stores.webhooks.head("ann") is None


def test_a_worker_whose_stores_are_closed_under_its_wait_while_stopping_ends_quietly(
) -> None:
    """At a worker process's shutdown its stores are closed under this thread's wait, and
    hiredis then fails with whatever its closed reader raises: that ends the loop, no
    "Exception in thread" traceback; the same error while running is not swallowed."""

    class ClosedUnder(DeliveryWorker):
        def work(self) -> bool:
            raise AttributeError("'NoneType' object has no attribute 'gets'")

    def send(url: str, secret: str, event_id: str, body: str) -> Attempt:
        raise AssertionError("nothing to send")

    worker = ClosedUnder(memory_stores(), send, retries=RETRIES, timeout=1.0, concurrency=1,
                         idle_seconds=0.1)
    with pytest.raises(AttributeError):
        worker.run(lambda: False)
    looks = iter([False])  # running at the loop's first look, stopping at the error
    worker.run(lambda: next(looks, True))
