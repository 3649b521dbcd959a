"""The rating worker: applies finished rated games' ratings, in the order they finished,
on a thread of every worker process (``python -m service.workers``).

Why on every worker, with no lease: applying the queue's head is safe from any number of
workers at once and after a kill at any point (:func:`service.play.ratings.rate_next`:
computed once, applied once per account, dequeued last), so there is nothing to elect
and nothing to wait for when a worker dies: the others go on with the same head. Two
workers on one head cost a duplicate read, not a duplicate update. Idle, it blocks on
the queue's wake-up list (:meth:`~service.storage.RatingStore.wait`), so a queued game
is rated at once, not at a poll.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from service.play import rate_next
from service.storage import StorageUnavailableError, Stores

from .metrics import WorkerMetrics

__all__ = ["RatingWorker"]

log = logging.getLogger("three_thirteen.workers")

#: The longest an idle rating worker blocks before it reads the queue again.
IDLE_SECONDS = 5.0
#: How long it waits after Redis failed it before it tries again.
RETRY_SECONDS = 1.0


class RatingWorker:
    """One loop over the rating queue on ``stores`` (its own: it blocks on them)."""

    def __init__(self, stores: Stores, metrics: WorkerMetrics | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.stores = stores
        self.metrics = metrics or WorkerMetrics()
        self.clock = clock

    def step(self) -> bool:
        """Apply the head of the queue, if any: whether there was one."""
        rated = rate_next(self.stores, self.clock())
        if rated is not None:
            self.metrics.rated.inc()
        return rated is not None

    def run(self, stopping: Callable[[], bool]) -> None:
        """Apply queued games until ``stopping()``; idle, wait for the next. An error once
        stopping is the process closing the stores under the wait: no failure to log."""
        while not stopping():
            try:
                if not self.step():
                    self.metrics.ratings_queued.set(self.stores.ratings.queued())
                    self.metrics.ratings_aside.set(len(self.stores.ratings.aside()))
                    self.stores.ratings.wait(IDLE_SECONDS)
            except StorageUnavailableError as exc:
                if stopping():
                    return
                log.warning("rating worker: Redis unavailable (%s); trying again", exc)
                time.sleep(RETRY_SECONDS)
            except Exception:  # a failure of the worker itself (a bad game is set aside)
                if stopping():
                    return
                log.exception("rating worker: failed; trying again")
                time.sleep(RETRY_SECONDS)
