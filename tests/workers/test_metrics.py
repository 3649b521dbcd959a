"""A move worker's metrics (``service/workers/metrics.py``) on the memory schedule: the
schedule's gauges say how far behind the workers are, each visit's lateness is observed,
and the registry holds the worker's series only (not the API's)."""

from __future__ import annotations

import math
import socket
from dataclasses import replace

import pytest

from service.play import create_game
from service.storage import memory_stores
from service.workers.metrics import WorkerMetrics


def value(metrics: WorkerMetrics, name: str, **labels: str) -> float | None:
    return metrics.registry.get_sample_value(name, labels or None)


def test_the_gauges_are_unknown_until_read_then_say_what_is_due_and_since_when() -> None:
    metrics = WorkerMetrics()
    assert math.isnan(value(metrics, "ttt_worker_due_games"))  # type: ignore[arg-type]
    schedule = memory_stores().schedule
    schedule.plan("a", 1000.0)
    schedule.plan("b", 1050.0)
    schedule.plan("c", 5000.0)
    metrics.read_schedule(schedule, 1100.0)
    assert value(metrics, "ttt_worker_due_games") == 2
    assert value(metrics, "ttt_worker_overdue_seconds") == 100.0


def test_visits_moves_and_lateness_are_counted() -> None:
    metrics = WorkerMetrics()
    for late in (0.001, 0.2, 3.0):
        metrics.taken(late)
    stores = memory_stores()
    record, _ = create_game(stores, {"hand_sizes": [3]}, [None, None], "m",
                            bots=["greedy", "random"])
    metrics.moved(record)
    metrics.moved(None)
    metrics.moved(replace(record, state=replace(record.state, status="finished")))
    assert value(metrics, "ttt_worker_visits_total") == 3
    assert value(metrics, "ttt_worker_moves_total") == 2 and metrics.moves_made == 2
    assert value(metrics, "ttt_worker_games_finished_total") == 1
    assert value(metrics, "ttt_worker_lateness_seconds_bucket", le="0.25") == 2
    assert value(metrics, "ttt_worker_lateness_seconds_count") == 3


def test_the_registry_holds_the_workers_series_and_its_process_not_the_apis() -> None:
    names = {m.name for m in WorkerMetrics().registry.collect()}
    assert {"ttt_worker_visits", "ttt_worker_lateness_seconds", "process_cpu_seconds"} <= names
    assert not [n for n in names if not n.startswith(("ttt_worker_", "process_"))], names


def test_a_taken_port_is_an_os_error() -> None:
    with socket.socket() as taken:
        taken.bind(("", 0))
        taken.listen()
        with pytest.raises(OSError):
            WorkerMetrics().serve(taken.getsockname()[1])


def test_webhook_outcomes_are_counted_from_zero_and_the_due_gauge_is_unknown_until_read() \
        -> None:
    metrics = WorkerMetrics()
    for outcome in ("ok", "retried", "failed"):
        assert value(metrics, "ttt_worker_webhook_deliveries_total", outcome=outcome) == 0
    assert math.isnan(value(metrics, "ttt_worker_webhook_accounts_due"))  # type: ignore[arg-type]
