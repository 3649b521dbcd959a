"""``python -m service.workers``: a move worker process (:mod:`service.workers.moves`), with
the webhook deliveries (:mod:`service.workers.deliveries`) and the rating worker
(:mod:`service.workers.ratings`) on threads beside it. ``--analysis``: an analysis worker
process instead (:mod:`service.workers.analysis`), which runs the games' analyses alone,
at ``ANALYSIS_NICE`` (19: batch work, which the web workers and the moves always come
before; ``make bench-analysis-load``).

It reads the service's own environment (``REDIS_URL`` and the rest of
:class:`~service.config.Config`), needs no gunicorn, and any number may run at once
(each due game is leased to one of them). It lowers its own CPU priority by
``WORKER_NICE`` first. SIGTERM or SIGINT ends it after the move at hand. Logs are JSON
lines on stderr, like the web workers'. With ``--metrics-port`` (or
``WORKER_METRICS_PORT``) it serves its own Prometheus ``/metrics``: visits, moves,
failures, how late visits were taken, how many games are overdue and by how long, and
the webhook attempts by outcome.

The deliveries have stores of their own (their own Redis connections, and their own
blocking read of the webhook schedule), so neither loop waits for the other's
connection; ``WEBHOOK_CONCURRENCY=0`` leaves them to other processes. urllib3 logs each
request's path at debug level, so its logger stays at warnings whatever ``LOG_LEVEL``
says: a webhook's URL is never logged.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("three_thirteen.workers")


class Stopped(BaseException):
    """Raised by the stop signal's handler to end a wait on the schedule (or an analysis)
    at once: a BaseException, like KeyboardInterrupt, so no ``except Exception`` of the
    work it interrupts takes it for a failure of that work."""


class StopSignal:
    """A worker's SIGTERM/SIGINT handler. The first signal sets the flag the loops check
    between steps, and raises :class:`Stopped` if ``interrupt()`` says the main thread
    is in a wait (or work) that may be cut short; a later one changes nothing (``make
    run`` forwards its SIGTERM and the process group gets one too: a second raise would
    land in the shutdown, outside the ``suppress``).

    A plain flag, not a :class:`threading.Event`: a handler runs between two bytecodes of
    the main thread, also inside another handler, and a second signal in the first
    one's ``Event.set`` blocked for ever on the lock that ``set`` holds."""

    def __init__(self, interrupt: Callable[[], bool]) -> None:
        self.stopped = False
        self._interrupt = interrupt

    def is_set(self) -> bool:
        """Whether a stop signal came (the loops' ``stopping``)."""
        return self.stopped

    def __call__(self, *_: object) -> None:
        first = not self.stopped
        self.stopped = True
        if first and self._interrupt():
            raise Stopped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m service.workers",
        description="Make the moves the service owes (bot seats, stand-ins, turn clocks) "
                    "and deliver the webhooks.")
    parser.add_argument("--analysis", action="store_true",
                        help="be an analysis worker: run the finished games' analyses")
    parser.add_argument("--metrics-port", type=int,
                        help="serve /metrics on this port (default: WORKER_METRICS_PORT; 0: none)")
    parser.add_argument("--retry-ratings", nargs="*", metavar="GAME_ID",
                        help="queue again the rated games set aside (these, or every one) "
                             "and exit")
    args = parser.parse_args(argv)
    if args.metrics_port is not None and not 0 <= args.metrics_port <= 65535:
        parser.error("--metrics-port must be a port, or 0 for none")
    # The image sets PROMETHEUS_MULTIPROC_DIR for gunicorn, which creates that folder;
    # prometheus_client would write this process's counters there (or fail where it does
    # not exist), and they are this process's alone, so it is unset before
    # prometheus_client and the service's modules are imported: hence the imports below.
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    from service.config import Config
    from service.jsonlog import JsonFormatter
    from service.storage import HEAVY, LIGHT, redis_stores
    from service.webhooks import post

    from .deliveries import DeliveryWorker
    from .metrics import WorkerMetrics
    from .moves import MoveWorker
    from .ratings import RatingWorker

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    # LOG_LEVEL as gunicorn's workers read it (deploy/gunicorn.conf.py)
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "info").upper(), handlers=[handler])
    logging.getLogger("urllib3").setLevel(logging.WARNING)  # its debug lines name URLs
    config = Config.from_env()
    if args.retry_ratings is not None:
        return _retry_ratings(config, args.retry_ratings)
    if args.analysis:
        os.nice(config.analysis_nice)
        return _analyse(config)
    os.nice(config.worker_nice)
    port = config.worker_metrics_port if args.metrics_port is None else args.metrics_port
    metrics = WorkerMetrics()
    if port:
        try:
            metrics.serve(port)
        except OSError as exc:
            log.error("cannot serve metrics on port %d: %s", port, exc)
            return 2
        log.info("worker metrics on port %d", port)
    stores = redis_stores(config)
    worker = MoveWorker(stores, metrics, lanes=(LIGHT,), idle_seconds=config.worker_idle_seconds)
    # the heavy lane (games with a searching bot) on a thread of its own, with its own
    # stores (it blocks on its lane's wake-ups): a light visit waits for its share of the
    # process, never for a heavy decision to end (docs/capacity.md)
    heavy = MoveWorker(redis_stores(config), metrics, lanes=(HEAVY,),
                       idle_seconds=config.worker_idle_seconds)
    # blocked between moves: end the wait at once (a move under way runs on)
    stop = StopSignal(lambda: worker.waiting)
    deliveries, delivering = None, None
    if config.webhook_concurrency:
        hook_stores = redis_stores(config)
        send = functools.partial(post, timeout=config.webhook_timeout_seconds,
                                 allow_private=config.webhook_allow_private)
        deliveries = DeliveryWorker(
            hook_stores, send, retries=config.webhook_retries,
            timeout=config.webhook_timeout_seconds,
            concurrency=config.webhook_concurrency, metrics=metrics)
        # a daemon: one blocked on the schedule is not waited for; attempts are (finish)
        delivering = threading.Thread(target=deliveries.run, args=(stop.is_set,),
                                      name="webhooks", daemon=True)

    heavy_thread = threading.Thread(target=_heavy_lane,
                                    args=(heavy.run, stop.is_set,
                                          config.analysis_nice - config.worker_nice),
                                    name="heavy-moves", daemon=True)
    # a light move waits for the GIL at most this long whenever it comes back from Redis
    # while the heavy thread computes (5 ms by default, several times a move)
    sys.setswitchinterval(SWITCH_SECONDS)
    # its own stores too: it blocks on the rating queue's wake-up list
    rating = RatingWorker(redis_stores(config), metrics)
    rating_thread = threading.Thread(target=rating.run, args=(stop.is_set,),
                                     name="ratings", daemon=True)

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, stop)
    log.info("move worker started (nice %d)", config.worker_nice)
    rating_thread.start()
    heavy_thread.start()
    if delivering is not None:
        delivering.start()
        log.info("webhook deliveries started (%d at once)", config.webhook_concurrency)
    with contextlib.suppress(Stopped):
        worker.run(stop.is_set)
    # the heavy decision at hand ends (or its lease will); an idle wait is not waited out
    until = time.monotonic() + HEAVY_JOIN_SECONDS
    while heavy_thread.is_alive() and not heavy.waiting and time.monotonic() < until:
        heavy_thread.join(0.05)
    if deliveries is not None:
        deliveries.finish()
        deliveries.stores.close()
    rating.stores.close()
    heavy.stores.close()
    stores.close()
    log.info("move worker stopped")
    return 0


#: How long a stopping worker waits for its heavy lane's decision at hand (one decision is
#: well under a second of CPU; past this its lease lets another worker make it).
HEAVY_JOIN_SECONDS = 5.0


#: The interpreter's thread switch interval in a move worker (Python's default is 5 ms):
#: make bench-abuse's greedy reply p99 beside a heavy game 13.8 ms, against 35.8 at 5 ms.
SWITCH_SECONDS = 0.0005


def _heavy_lane(run: Callable[[Callable[[], bool]], None], stopping: Callable[[], bool],
                lower: int) -> None:
    """The heavy lane's loop, its thread ``lower`` nice steps below the worker's own: at
    the analyses' CPU priority (Linux keeps a nice value per thread), batch work that
    the web workers and the light moves come before."""
    with contextlib.suppress(OSError):
        mine = os.getpriority(os.PRIO_PROCESS, 0)  # this thread's: the worker's nice
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), min(19, mine + lower))
    _quietly(run, stopping)


def _quietly(run: Callable[[Callable[[], bool]], None], stopping: Callable[[], bool]) -> None:
    """A loop of a thread, started again after a failure it did not handle (logged, a
    second later); an error once stopping is the process closing the stores under its
    wait: no failure to log."""
    while not stopping():
        try:
            run(stopping)
        except Exception:
            if stopping():
                return
            log.exception("the heavy lane's loop failed; starting it again")
            time.sleep(1.0)


def _retry_ratings(config: Any, game_ids: list[str]) -> int:
    """Queue the set-aside rated games again (each one's reason printed first)."""
    from service.play import retry_set_aside
    from service.storage import redis_stores

    stores = redis_stores(config)
    for game_id, aside in sorted(stores.ratings.aside().items()):
        print(f"{game_id}: {aside.why}", file=sys.stderr)
    queued = retry_set_aside(stores, game_ids)
    print(f"queued again: {len(queued)} {' '.join(queued)}".rstrip())
    stores.close()
    return 0


def _analyse(config: Any) -> int:
    """The analysis worker's process: its loop until SIGTERM or SIGINT (an analysis under
    way is left to another worker, which takes it once it is stale)."""
    from service.analysis.judge import SETTINGS
    from service.storage import redis_stores

    from .analysis import AnalysisWorker

    stores = redis_stores(config)
    worker = AnalysisWorker(stores, stale_seconds=config.analysis_stale_seconds,
                            settings=SETTINGS[config.analysis_setting])
    stop = StopSignal(lambda: True)  # a wait on the queue, or an analysis: both end now
    with contextlib.suppress(Stopped):  # the first signal may come before the run
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, stop)
        log.info("analysis worker %s started (nice %d, setting %s)", worker.name,
                 config.analysis_nice, config.analysis_setting)
        worker.run(stop.is_set)
    stores.close()
    log.info("analysis worker stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
