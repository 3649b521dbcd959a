"""``python -m service.sweep``: the sweeper process, one loop over the games that are due.

It plays the turn clocks and bot seats of games nobody is reading
(:mod:`service.play.sweep` says why and how). It reads the service's own environment
(``REDIS_URL`` and the rest of :class:`~service.config.Config`, ``SWEEP_INTERVAL_SECONDS``
among them), needs no gunicorn, and any number may run at once (each due game is leased
to one of them). Every interval it visits the due games one at a time, at once again
while a pass finds more than a full batch; every ten seconds or so a pass also prunes
a page of each of the lobby's listings (reads of the lobby skip stale entries but never
write: :class:`~service.play.sweep.LobbyPruning`). SIGTERM or SIGINT ends it after the game at
hand. Logs are JSON lines on stderr, like the workers'. With ``--metrics-port`` (or
``SWEEP_METRICS_PORT``) it serves its own Prometheus ``/metrics``: what it visited and
played, failed passes, and how many games are overdue and by how long, which says
whether the sweepers keep up.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading

log = logging.getLogger("three_thirteen.sweep")

#: Games a pass visits before it checks the interval again.
BATCH = 100


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m service.sweep",
        description="Play the turn clocks and bot seats of games nobody is reading.")
    parser.add_argument("--once", action="store_true", help="one pass, then exit")
    parser.add_argument("--interval", type=float,
                        help="seconds between passes (default: SWEEP_INTERVAL_SECONDS, 1)")
    parser.add_argument("--metrics-port", type=int,
                        help="serve /metrics on this port (default: SWEEP_METRICS_PORT; 0: none)")
    args = parser.parse_args(argv)
    if args.interval is not None and args.interval <= 0:
        parser.error("--interval must be > 0")
    if args.metrics_port is not None and not 0 <= args.metrics_port <= 65535:
        parser.error("--metrics-port must be a port, or 0 for none")
    # The image sets PROMETHEUS_MULTIPROC_DIR for gunicorn, which creates that folder;
    # prometheus_client would write this process's counters there (or fail where it does
    # not exist), and they are this process's alone, so it is unset before
    # prometheus_client and the service's modules are imported: hence the imports below.
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    from service.config import Config
    from service.jsonlog import JsonFormatter
    from service.play.sweep import LobbyPruning, sweep
    from service.storage import StorageUnavailableError, redis_stores
    from service.sweep_metrics import SweepMetrics

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    # LOG_LEVEL as gunicorn's workers read it (deploy/gunicorn.conf.py)
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "info").upper(), handlers=[handler])
    config = Config.from_env()
    interval = args.interval or config.sweep_interval_seconds
    port = config.sweep_metrics_port if args.metrics_port is None else args.metrics_port
    metrics = SweepMetrics()
    if port:
        try:
            metrics.serve(port)
        except OSError as exc:
            log.error("cannot serve metrics on port %d: %s", port, exc)
            return 2
        log.info("sweeper metrics on port %d", port)
    stores = redis_stores(config)
    pruning = LobbyPruning()  # kept between passes: where its walk through the lobby is
    stopping = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopping.set())
    log.info("sweeper started (every %.1f s)", interval)
    while not stopping.is_set():
        games = 0
        try:
            if port:
                metrics.read_schedule(stores.schedule)  # before the pass: after it none is due
            games, moves = sweep(stores, BATCH, stopping=stopping.is_set, pruning=pruning)
        except StorageUnavailableError as exc:
            log.warning("storage unavailable, retrying: %s", exc)
            metrics.failed.inc()
        except Exception:  # a Redis error or a bug: logged, and the next pass tries again
            log.exception("sweeper pass failed")
            metrics.failed.inc()
        else:
            metrics.passed(games, moves)
            if games:
                log.info("visited %d games, made %d moves", games, moves)
        if args.once:
            break
        if games < BATCH:
            stopping.wait(interval)
    log.info("sweeper stopped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
