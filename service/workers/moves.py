"""The move worker's loop: take the earliest due game, make its move, wait when none is due.

One process makes one move at a time (:func:`service.play.visit`), so a worker's CPU goes
to one decision at a time, each bounded by its bot's budget; replicas share the games
(the schedule leases each game to one of them). A worker never polls: when nothing is
due it blocks on the schedule (:meth:`~service.storage.Schedule.wait`) until a commit
plans a move (which wakes one worker at once) or the earliest planned visit comes due
(a turn's deadline), and at most :data:`IDLE_SECONDS`, so a visit planned while no
worker was listening (a wake-up lost with a crashed process) is found within that.

Besides the moves, the worker keeps the lobby's listings tidy (:class:`LobbyPruning`),
since reads never write.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence

from service.play import LEASE_SECONDS, prune_listing, visit
from service.storage import (
    KEPT_EARLY_SECONDS,
    LANES,
    LIGHT,
    LISTINGS,
    StorageUnavailableError,
    Stores,
)

from .metrics import WorkerMetrics

__all__ = ["IDLE_SECONDS", "PRUNE_EVERY_SECONDS", "PRUNE_PAGE", "LobbyPruning", "MoveWorker"]

log = logging.getLogger("three_thirteen.workers")

#: The longest an idle worker blocks before it looks at the schedule again.
IDLE_SECONDS = 5.0
#: How often a worker prunes the lobby's listings, and how many entries of each it reads
#: then (one read of the listing and one pipelined read of the games per listing).
PRUNE_EVERY_SECONDS = 10.0
PRUNE_PAGE = 200
#: How often the schedule's gauges are read (one round trip to its key).
GAUGES_EVERY_SECONDS = 1.0


class LobbyPruning:
    """A worker's walk through the lobby's listings (:func:`.lobby.prune_listing`): a page
    of each at most every ``every`` seconds, each from where its last page ended.

    Stale entries are few (those a failed second write or an expiry left), and readers
    skip them meanwhile, so a slow walk will do: it only bounds the memory they hold.
    Several workers each walk on their own; their moves of one entry make one (the
    relist is atomic)."""

    def __init__(self, every: float = PRUNE_EVERY_SECONDS, page: int = PRUNE_PAGE) -> None:
        self.every = every
        self.page = page
        self.next_at = float("-inf")
        self.cursors: dict[str, tuple[float, str] | None] = dict.fromkeys(LISTINGS)

    def run(self, stores: Stores, now: float) -> int:
        """Prune a page of each listing if the last prune is ``every`` seconds old; the
        entries moved or removed."""
        if now < self.next_at:
            return 0
        self.next_at = now + self.every
        moved = 0
        for listing in LISTINGS:
            pruned, self.cursors[listing] = prune_listing(
                stores, listing, self.cursors[listing], self.page, now)
            moved += pruned
        return moved


class MoveWorker:
    """The loop of one move worker over ``stores``, taking the visits of ``lanes`` (both,
    by default; a worker process runs a loop per lane: ``service/workers/__main__.py``)."""

    def __init__(self, stores: Stores, metrics: WorkerMetrics | None = None,
                 clock: Callable[[], float] = time.time,
                 pruning: LobbyPruning | None = None,
                 idle_seconds: float = IDLE_SECONDS,
                 lanes: Sequence[str] = LANES) -> None:
        self.stores = stores
        self.lanes = tuple(lanes)
        self.idle_seconds = idle_seconds
        self.metrics = metrics or WorkerMetrics()
        self.clock = clock
        self.pruning = pruning or LobbyPruning()
        self._gauges_at = float("-inf")
        #: blocked on the schedule, between moves: a stop may interrupt it now
        self.waiting = False

    def work(self) -> bool:
        """Take the earliest due game and make its move; ``False`` when none was due."""
        now = self.clock()
        chores = LIGHT in self.lanes  # the heavy lane's loop leaves them to the light one's
        if chores and (moved := self.pruning.run(self.stores, now)):
            log.info("pruned %d stale lobby entries", moved)
        if chores and now - self._gauges_at >= GAUGES_EVERY_SECONDS:
            self._gauges_at = now
            self.metrics.read_schedule(self.stores.schedule, now)
        lease = self.stores.schedule.take(now, LEASE_SECONDS, self.lanes)
        if lease is None:
            return False
        self.metrics.taken(max(0.0, now - lease.due))
        try:
            self.metrics.moved(visit(self.stores, lease, self.clock))
        except StorageUnavailableError:
            raise
        except Exception:  # a bug in one game: logged; it comes due again with its lease
            log.exception("the visit of game %s failed", lease.key)
            self.metrics.failed.inc()
        return True

    def idle(self, stopping: Callable[[], bool] = lambda: False) -> None:
        """Block until a move is planned or the earliest planned visit is due (a signal
        that stops the worker may interrupt it: :attr:`waiting` says when; one that came
        just before is seen by ``stopping()``, read once :attr:`waiting` is set)."""
        _, earliest = self.stores.schedule.visits_due(self.clock(), self.lanes)
        wait = (self.idle_seconds if earliest is None
                else earliest + KEPT_EARLY_SECONDS - self.clock())
        if wait > 0:
            self.waiting = True
            try:
                if not stopping():
                    self.stores.schedule.wait(min(wait, self.idle_seconds), self.lanes)
            finally:
                self.waiting = False

    def run(self, stopping: Callable[[], bool]) -> None:
        """Work until ``stopping()`` (checked between moves): a failing store is logged
        and retried after a pause, any other error of a visit is logged and the loop goes
        on."""
        while not stopping():
            try:
                if not self.work():
                    self.idle(stopping)
            except StorageUnavailableError as exc:
                log.warning("storage unavailable, retrying: %s", exc)
                self.metrics.failed.inc()
                time.sleep(1.0)

    def drain(self, limit: int = 100_000) -> int:
        """Make every move due now, one after another, until none is (tests and
        benchmarks on a clock they move themselves); the moves made."""
        moves = 0
        for _ in range(limit):
            before = self.metrics.moves_made
            if not self.work():
                return moves
            moves += self.metrics.moves_made - before
        raise RuntimeError(f"still moves due after {limit} visits: a game that never ends?")
