"""A worker's own Prometheus metrics (``python -m service.workers --metrics-port``).

A registry of their own, not prometheus_client's default one: the service's modules
register the API's series there (``service/metrics.py``), and a worker that served them
would mix its counts into the web workers' series in every sum a dashboard makes.
Imported by the worker only after it has unset ``PROMETHEUS_MULTIPROC_DIR`` (see
``service/workers/__main__.py``).

Why a lateness histogram and gauges of the schedule, not only counters: a worker that is
alive but behind (too few replicas for the bots and clocks in play) shows as visits
taken late and games overdue. Every replica reads the same schedule, so take the
``max`` of the gauges across replicas, not the sum; the histogram and the counters add up.

The webhook deliveries (:mod:`.deliveries`) count their attempts by outcome: ``ok`` (a
2xx), ``retried`` (failed, tried again later) and ``failed`` (failed for the last time:
given up). No label names an account, a URL or a secret: the series stay few, and
``/metrics`` shows nothing an account registered.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    start_http_server,
)

from service.storage import GameRecord, Schedule

__all__ = ["WEBHOOK_OUTCOMES", "WorkerMetrics"]

#: What came of a webhook delivery attempt (:func:`service.play.deliveries.deliver`).
WEBHOOK_OUTCOMES = ("ok", "retried", "failed")

_LATENESS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


@dataclass
class WorkerMetrics:
    """The worker's counters, its lateness and the gauges of the schedule, in one registry."""

    registry: CollectorRegistry = field(default_factory=CollectorRegistry)
    moves_made: int = 0

    def __post_init__(self) -> None:
        r = self.registry
        ProcessCollector(registry=r)  # CPU, memory, open files of this process
        self.visits = Counter("ttt_worker_visits_total", "Games the worker took.", registry=r)
        self.moves = Counter("ttt_worker_moves_total",
                             "Moves the worker made (bot seats, stand-ins, time-outs).",
                             registry=r)
        self.finished = Counter("ttt_worker_games_finished_total",
                                "Games a move of the worker finished (the web workers' "
                                "ttt_games_finished_total counts those a player's move did).",
                                registry=r)
        self.failed = Counter("ttt_worker_failures_total",
                              "Visits that failed, and waits on an unavailable store.",
                              registry=r)
        self.lateness = Histogram(
            "ttt_worker_lateness_seconds",
            "How long after its visit was due the worker took a game (a bot's move made "
            "due by a player's, a turn clock's deadline).", buckets=_LATENESS_BUCKETS,
            registry=r)
        self.due = Gauge("ttt_worker_due_games",
                         "Games whose visit was due when the schedule was last read.",
                         registry=r)
        self.overdue = Gauge("ttt_worker_overdue_seconds",
                             "How long the earliest due visit had waited when the schedule "
                             "was last read (0: none was due).", registry=r)
        self.webhooks = Counter("ttt_worker_webhook_deliveries_total",
                                "Webhook delivery attempts, by outcome: ok (a 2xx), retried "
                                "(failed, tried again later), failed (the last attempt "
                                "failed: given up).", ["outcome"], registry=r)
        for outcome in WEBHOOK_OUTCOMES:  # every series from the start, at 0
            self.webhooks.labels(outcome)
        self.webhooks_due = Gauge("ttt_worker_webhook_accounts_due",
                                  "Accounts with a webhook delivery due when the webhook "
                                  "schedule was last read.", registry=r)
        self.rated = Counter("ttt_worker_rated_games_total",
                             "Rated games whose ratings this worker applied (or found "
                             "applied: a game taken by two workers at once counts twice).",
                             registry=r)
        self.ratings_queued = Gauge("ttt_worker_rating_queue",
                                    "Rated games waiting for their ratings when the queue "
                                    "was last read.", registry=r)
        self.ratings_aside = Gauge("ttt_worker_ratings_set_aside",
                                   "Rated games that could not be rated and wait apart "
                                   "(python -m service.workers --retry-ratings), when last "
                                   "read: alert on any.", registry=r)
        for unknown in (self.due, self.overdue, self.webhooks_due, self.ratings_queued,
                        self.ratings_aside):
            unknown.set(math.nan)

    def serve(self, port: int) -> None:
        """Serve ``/metrics`` on ``port`` on a thread (OSError: the port is taken)."""
        start_http_server(port, registry=self.registry)

    def read_schedule(self, schedule: Schedule, now: float) -> None:
        """Set the gauges from the schedule (one round trip to its one key)."""
        due, earliest = schedule.visits_due(now)
        self.due.set(due)
        self.overdue.set(max(0.0, now - earliest) if due and earliest is not None else 0.0)

    def taken(self, late: float) -> None:
        """Count a game taken ``late`` seconds after its visit was due."""
        self.visits.inc()
        self.lateness.observe(late)

    def moved(self, saved: GameRecord | None) -> None:
        """Count what a visit did: a move (the game as it saved it), or none."""
        if saved is None:
            return
        self.moves.inc()
        self.moves_made += 1
        if saved.state.finished:
            self.finished.inc()
