"""The delivery worker: webhook deliveries made beside the moves, in the same process.

Why threads of its own, not the move worker's loop: an attempt waits on someone else's
server (up to its timeouts, ``WEBHOOK_TIMEOUT_SECONDS`` to connect and again to read),
and no receiver may hold up a move, nor another account's delivery. So a dispatcher
thread takes due accounts from the webhook schedule, each under a lease
(:func:`service.play.deliveries.lease_seconds`, longer than any attempt), and hands each
to one of ``WEBHOOK_CONCURRENCY`` sending threads (:mod:`concurrent.futures`); with every
thread busy it takes no more until one is free. One account is one attempt at a time
(its lease), so a slow receiver holds one thread; the move worker's loop runs apart.

Like the move worker, it never polls: idle, it blocks on the webhook schedule's wake-up
list (:meth:`~service.storage.Schedule.wait`) until an event is queued, the earliest
retry comes due, or :data:`IDLE_SECONDS` pass. Stopping, it takes no more accounts and
lets the attempts under way finish; a worker killed mid-attempt leaves its account
leased, and another worker makes the attempt again when the lease runs out.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from service.play import deliver, lease_seconds
from service.storage import KEPT_EARLY_SECONDS, Lease, StorageUnavailableError, Stores
from service.webhooks import Send

from .metrics import WorkerMetrics

__all__ = ["IDLE_SECONDS", "DeliveryWorker"]

log = logging.getLogger("three_thirteen.workers")

#: The longest the idle dispatcher blocks before it looks at the webhook schedule again.
IDLE_SECONDS = 5.0
#: How often the webhook schedule's gauge is read.
GAUGES_EVERY_SECONDS = 1.0


class DeliveryWorker:
    """The deliveries of one process over ``stores``: ``send`` makes one attempt
    (:func:`service.webhooks.post` with the configured timeout), ``retries`` are the
    waits before each retry, at most ``concurrency`` attempts at once."""

    def __init__(self, stores: Stores, send: Send, *, retries: tuple[float, ...],
                 timeout: float, concurrency: int, metrics: WorkerMetrics | None = None,
                 clock: Callable[[], float] = time.time,
                 idle_seconds: float = IDLE_SECONDS) -> None:
        if concurrency < 1:
            raise ValueError("a delivery worker sends with 1 thread or more")
        self.stores = stores
        self.send = send
        self.retries = retries
        self.lease_seconds = lease_seconds(timeout)
        self.metrics = metrics or WorkerMetrics()
        self.clock = clock
        self.idle_seconds = idle_seconds
        self._slots = threading.BoundedSemaphore(concurrency)
        self._senders = ThreadPoolExecutor(concurrency, thread_name_prefix="webhook")
        self._gauges_at = float("-inf")

    def work(self) -> bool:
        """Take the earliest due account and start its attempt on a sending thread (a slot
        must be held); ``False`` when none was due."""
        now = self.clock()
        if now - self._gauges_at >= GAUGES_EVERY_SECONDS:
            self._gauges_at = now
            self.metrics.webhooks_due.set(self.stores.webhook_schedule.visits_due(now)[0])
        lease = self.stores.webhook_schedule.take(now, self.lease_seconds)
        if lease is None:
            return False
        try:
            self._senders.submit(self._attempt, lease)
        except RuntimeError:  # stopping: the senders take no more; it is due again at once
            self.stores.webhook_schedule.release(lease, lease.due)
            return False
        return True

    def _attempt(self, lease: Lease) -> None:
        try:
            outcome = deliver(self.stores, lease, self.send, self.retries, self.clock)
            if outcome is not None:
                self.metrics.webhooks.labels(outcome).inc()
        except StorageUnavailableError as exc:  # the lease runs out: it is made again then
            log.warning("storage unavailable during a delivery for %s: %s", lease.key, exc)
        except Exception:  # a bug: logged; the account comes due again with its lease
            log.exception("the delivery for %s failed", lease.key)
        finally:
            self._slots.release()

    def idle(self) -> None:
        """Block until an event is queued or the earliest planned attempt is due (at most
        :attr:`idle_seconds`)."""
        _, earliest = self.stores.webhook_schedule.visits_due(self.clock())
        wait = (self.idle_seconds if earliest is None
                else earliest + KEPT_EARLY_SECONDS - self.clock())
        if wait > 0:
            self.stores.webhook_schedule.wait(min(wait, self.idle_seconds))

    def run(self, stopping: Callable[[], bool]) -> None:
        """Dispatch until ``stopping()``: a failing store is logged and retried after a
        pause (:meth:`finish` then waits for the attempts under way)."""
        while not stopping():
            if not self._slots.acquire(timeout=self.idle_seconds):
                continue  # every sending thread busy
            started = False
            try:
                started = self.work()
                if not started:
                    self.idle()
            except StorageUnavailableError as exc:
                if stopping():
                    return
                log.warning("storage unavailable, retrying: %s", exc)
                time.sleep(1.0)
            except Exception:
                # once stopping, the process closed the stores under the wait (hiredis's
                # reader is gone then): its shutdown, not a failure
                if stopping():
                    return
                raise
            finally:
                if not started:
                    self._slots.release()

    def finish(self) -> None:
        """Take no more accounts, and wait for the attempts under way."""
        self._senders.shutdown(wait=True)

    def drain(self, limit: int = 10_000) -> int:
        """Make every attempt due now, one after another on this thread, until none is
        (tests on a clock they move themselves); the attempts made."""
        made = 0
        for _ in range(limit):
            lease = self.stores.webhook_schedule.take(self.clock(), self.lease_seconds)
            if lease is None:
                return made
            outcome = deliver(self.stores, lease, self.send, self.retries, self.clock)
            if outcome is not None:
                self.metrics.webhooks.labels(outcome).inc()
                made += 1
        raise RuntimeError(f"still deliveries due after {limit} visits")
