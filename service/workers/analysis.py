"""The analysis worker's loop: take the next queued analysis (or a dead worker's), run it,
keep the result (:func:`service.play.run_next`), and wait for the next.

Why a process of its own (``python -m service.workers --analysis``) and not a thread of
the move worker: an analysis is a minute of CPU, and in the move worker's process it
would hold the interpreter from the moves the games are waiting for. Any number may run
(each entry of the queue goes to one of them; one that dies leaves its entry to another
after :data:`service.play.STALE_SECONDS`).
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable

from service.analysis.judge import DEFAULT, Settings
from service.play import STALE_SECONDS, run_next
from service.storage import StorageUnavailableError, Stores

__all__ = ["AnalysisWorker"]

log = logging.getLogger("three_thirteen.workers")

#: The longest an idle worker blocks on the queue before it looks again.
IDLE_SECONDS = 5.0
#: How long it waits after Redis failed it before it tries again.
RETRY_SECONDS = 1.0


class AnalysisWorker:
    """One loop over the analysis queue on ``stores`` (its own: it blocks on them)."""

    def __init__(self, stores: Stores, name: str | None = None,
                 clock: Callable[[], float] = time.time,
                 idle_seconds: float = IDLE_SECONDS,
                 stale_seconds: float = STALE_SECONDS,
                 settings: Settings = DEFAULT) -> None:
        self.stores = stores
        #: the consumer's name in the queue's group: unique per process
        self.name = name or f"{socket.gethostname()}:{os.getpid()}"
        self.clock = clock
        self.idle_seconds = idle_seconds
        self.stale_seconds = stale_seconds
        #: how hard it judges (``ANALYSIS_SETTING``: ``service.analysis.judge.SETTINGS``)
        self.settings = settings
        self.analysed = 0

    def step(self) -> bool:
        """Run the next analysis, waiting up to ``idle_seconds`` for one: whether one came."""
        game_id = run_next(self.stores, self.name, self.clock, self.idle_seconds,
                           self.stale_seconds, self.settings)
        if game_id is not None:
            self.analysed += 1
            log.info("analysed game %s", game_id)
        return game_id is not None

    def run(self, stopping: Callable[[], bool]) -> None:
        """Analyse until ``stopping()`` (checked between analyses)."""
        while not stopping():
            try:
                self.step()
            except StorageUnavailableError as exc:
                log.warning("analysis worker: Redis unavailable (%s); trying again", exc)
                time.sleep(RETRY_SECONDS)
