"""The sweeper's metrics (``service/sweep_metrics.py``) on the memory schedule: the schedule's
gauges say how far behind the sweepers are, the counters count passes, and the registry
holds the sweeper's series only (not the API's, which the workers' /metrics serve)."""

from __future__ import annotations

import math
import socket
import time

import pytest

import service.metrics  # noqa: F401  (registers the API's series on the default registry)
from service.storage import memory_stores
from service.sweep_metrics import SweepMetrics


def value(metrics: SweepMetrics, name: str) -> float | None:
    return metrics.registry.get_sample_value(name)


def test_the_schedule_gauges_are_unknown_until_read_then_count_the_overdue_visits() -> None:
    metrics = SweepMetrics()
    assert math.isnan(value(metrics, "ttt_sweep_due_games"))  # type: ignore[arg-type]
    assert math.isnan(value(metrics, "ttt_sweep_overdue_seconds"))  # type: ignore[arg-type]
    schedule = memory_stores().schedule
    now = time.time()
    for game_id, at in (("a", now - 100), ("b", now - 50), ("c", now + 100)):
        schedule.plan_visit(game_id, at)
    metrics.read_schedule(schedule)
    assert value(metrics, "ttt_sweep_due_games") == 2
    assert 100 <= value(metrics, "ttt_sweep_overdue_seconds") < 105  # type: ignore[operator]
    for game_id in ("a", "b"):
        schedule.drop_visit(game_id)
    metrics.read_schedule(schedule)  # only c, not yet due: nothing overdue
    assert value(metrics, "ttt_sweep_due_games") == 0
    assert value(metrics, "ttt_sweep_overdue_seconds") == 0


def test_a_pass_counts_its_visits_and_moves_and_when_it_ended() -> None:
    metrics = SweepMetrics()
    before = time.time()
    metrics.passed(3, 7)
    metrics.passed(1, 0)
    assert value(metrics, "ttt_sweep_visits_total") == 4
    assert value(metrics, "ttt_sweep_moves_total") == 7
    assert value(metrics, "ttt_sweep_failed_passes_total") == 0
    assert before <= value(metrics, "ttt_sweep_last_pass_timestamp_seconds") <= time.time()  # type: ignore[operator]


def test_the_registry_holds_the_sweepers_series_and_its_process_not_the_apis() -> None:
    names = {m.name for m in SweepMetrics().registry.collect()}
    assert {"ttt_sweep_visits", "ttt_sweep_due_games", "process_cpu_seconds"} <= names
    assert not [n for n in names if not n.startswith(("ttt_sweep_", "process_"))], names


def test_serving_on_a_port_already_taken_is_an_os_error() -> None:
    with socket.socket() as taken:
        taken.bind(("", 0))
        taken.listen()
        with pytest.raises(OSError):
            SweepMetrics().serve(taken.getsockname()[1])
