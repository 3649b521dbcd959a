"""Prometheus metrics (prometheus_client), summed across gunicorn workers.

Under gunicorn every worker is a separate process with its own counters, so the
metrics run in prometheus_client's multiprocess mode: when
``PROMETHEUS_MULTIPROC_DIR`` is set (``deploy/gunicorn.conf.py`` sets it before
any worker starts), each process writes its values to memory-mapped files in
that directory and ``/metrics`` adds up the files of every worker, dead ones
included (a dead worker's requests still happened). Without the variable (tests
that build the app in-process) the ordinary single-process registry is used.

The ``endpoint`` label is the URL rule (``/v1/games/<game_id>``), never the raw
path, so the number of series stays bounded whatever clients send; requests
that match no rule are ``<unmatched>``.
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)

__all__ = [
    "ACTIONS",
    "ACTIONS_BY_TYPE",
    "ACTION_EVENTS",
    "CONTENT_TYPE",
    "GAMES_CREATED",
    "GAMES_FINISHED",
    "LEGAL_ACTIONS_SECONDS",
    "REQUESTS",
    "REQUEST_SECONDS",
    "SOLVER_SECONDS",
    "SOLVE_SECONDS",
    "render",
]

CONTENT_TYPE = CONTENT_TYPE_LATEST

disable_created_metrics()  # no ``*_created`` series: multiprocess mode has none either

#: Latency buckets in seconds: sub-millisecond solver calls up to 30 s long-polls.
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
            10.0, 30.0)

REQUESTS = Counter(
    "ttt_http_requests_total", "HTTP requests by method, URL rule and status.",
    ["method", "endpoint", "status"],
)
REQUEST_SECONDS = Histogram(
    "ttt_http_request_duration_seconds",
    "HTTP request latency (long-polls included) by method, URL rule and status.",
    ["method", "endpoint", "status"], buckets=_BUCKETS,
)
ACTIONS = Counter("ttt_actions_applied_total", "Game actions applied, by type.", ["type"])
GAMES_CREATED = Counter("ttt_games_created_total", "Games created.")
GAMES_FINISHED = Counter("ttt_games_finished_total", "Games played to their end.")
SOLVER_SECONDS = Histogram(
    "ttt_solver_seconds",
    "Solver time: each POST /v1/solve (call=solve), and each view rendered for the seat "
    "that is to discard (call=legal_actions: the whole view, most of which is the "
    "going-out test behind its legal_actions).",
    ["call"], buckets=_BUCKETS,
)

#: The labelled series used on every request, looked up once: ``labels()`` costs several
#: microseconds a call. (After a fork prometheus_client re-opens a series' files for the
#: new process by itself, so module-level children are safe under gunicorn.)
SOLVE_SECONDS = SOLVER_SECONDS.labels("solve")
LEGAL_ACTIONS_SECONDS = SOLVER_SECONDS.labels("legal_actions")
ACTIONS_BY_TYPE = {kind: ACTIONS.labels(kind)
                   for kind in ("draw", "discard", "go_out", "resign", "back", "abort",
                                "claim_victory")}
#: The event that names each action (the commit counts the actions of what it saved).
ACTION_EVENTS = {"draw": "draw", "discard": "discard", "went_out": "go_out",
                 "seat_resigned": "resign", "seat_back": "back", "game_aborted": "abort",
                 "victory_claimed": "claim_victory"}


def _multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR")


def render() -> bytes:
    """The exposition text: every worker's values summed in multiprocess mode."""
    if _multiprocess_dir():
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest(REGISTRY)
