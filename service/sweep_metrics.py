"""The sweeper's own Prometheus metrics (``python -m service.sweep --metrics-port``).

A registry of their own, not prometheus_client's default one: the service's modules
register the API's series there (``service/metrics.py``), and a sweeper that served them
would add its moves to ``ttt_actions_applied_total`` beside the workers' in every sum a
dashboard makes. Imported by the sweeper only after it has unset
``PROMETHEUS_MULTIPROC_DIR`` (see ``service/sweep.py``).

Why gauges of the schedule and not only counters: a sweeper that is alive but behind
(too few replicas for the clocks in play) shows as games overdue, by seconds. They are
read at the start of each pass, before it takes anything: after a pass the schedule is
empty of due games by construction. Every replica reads the same schedule, so take the
``max`` of them across replicas, not the sum.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    ProcessCollector,
    start_http_server,
)

from service.storage import Schedule

__all__ = ["SweepMetrics"]


@dataclass
class SweepMetrics:
    """The counters of the passes and the gauges of the schedule, in one registry."""

    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        ProcessCollector(registry=r)  # CPU, memory, open files of this process
        self.visits = Counter("ttt_sweep_visits_total", "Games the sweeper visited.",
                              registry=r)
        self.moves = Counter("ttt_sweep_moves_total",
                             "Moves the sweeper made (turn clocks, bot seats).", registry=r)
        self.failed = Counter("ttt_sweep_failed_passes_total",
                              "Passes that failed (the next one tries again).", registry=r)
        self.due = Gauge("ttt_sweep_due_games",
                         "Games whose visit was due as the last pass began.", registry=r)
        self.overdue = Gauge("ttt_sweep_overdue_seconds",
                             "How long the earliest due visit had waited as the last pass "
                             "began (0: none was due).", registry=r)
        self.last_pass = Gauge("ttt_sweep_last_pass_timestamp_seconds",
                               "When the last pass that did not fail ended (Unix seconds).",
                               registry=r)
        for unknown in (self.due, self.overdue):  # NaN, not 0, until the schedule is read
            unknown.set(math.nan)

    def serve(self, port: int) -> None:
        """Serve ``/metrics`` on ``port`` on a thread (OSError: the port is taken)."""
        start_http_server(port, registry=self.registry)

    def read_schedule(self, schedule: Schedule) -> None:
        """Set the gauges from the schedule (one round trip to its one key)."""
        now = time.time()
        due, earliest = schedule.visits_due(now)
        self.due.set(due)
        self.overdue.set(max(0.0, now - earliest) if due and earliest is not None else 0.0)

    def passed(self, games: int, moves: int) -> None:
        """Count a pass that did not fail."""
        self.visits.inc(games)
        self.moves.inc(moves)
        self.last_pass.set(time.time())
