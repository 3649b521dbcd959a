"""gunicorn settings for the service (``gunicorn -c deploy/gunicorn.conf.py 'service.app:create_app()'``).

Why gevent workers: most clients of this service wait (bots for their turn, browsers
and spectators for the next move), and a waiting request must cost a few KB, not a
thread. Under gevent a parked long-poll or stream is a greenlet asleep on the worker's
notification hub (service/storage/hub.py), so one worker holds thousands of them while
it keeps serving. The work per request is short and CPU-bound (about a millisecond; the
solver's work is bounded), so cooperative scheduling is fine; processes scale the CPU.
gevent rather than eventlet: gevent is the one gunicorn, Flask and redis-py document
and test together, and eventlet's own maintainers advise against new projects on it.
``WORKER_CLASS=gthread`` (with ``THREADS``) still works, for comparison.

gunicorn's own refusals: a request gunicorn cannot parse or that is over its limits
(below) is answered by the worker before the app sees it, as an HTML page in gunicorn's
own workers. The service's workers (``service/gunicorn_workers.py``: gunicorn's gevent
and gthread workers with ``handle_error`` overridden) answer problem+json there too, with
gunicorn's status: 400 ``bad_request_line`` or ``bad_header_field``, 414
``request_line_too_long``, 431 ``header_fields_too_large``… (docs/api.md, "Refusals of
the HTTP server", lists them all).

Slow and idle clients: gunicorn wraps the read of each request's headers in a timeout
of ``keepalive`` seconds, so a client that sends a byte and goes silent, or an idle
keep-alive connection, is closed after 5 s; ``worker_connections`` caps the sockets
per worker, and so its memory: every socket may be a parked long-poll of about 42 KB
(docs/capacity.md#waiting-clients sizes a machine or a pod by it; the Kubernetes
configmap sets 9,000 for its 1 GiB pods of two workers).
Request bodies are read by the service within ``BODY_READ_SECONDS`` (10 s) all told, else
``408 body_timeout`` (service/api/web.py); the buffering reverse proxy in front
(deploy/nginx.conf) reads them first anyway, under the same 10 s.

Thousands of parked requests per worker: each costs about 30 KB (docs/performance.md
says where it goes), kept low by gevent's documented ``GEVENT_TRACK_GREENLET_TREE``
switch (off); Python's cyclic collector runs every ``GC_THRESHOLD`` young allocations
(50,000; the default 700 makes it run, over every parked request's objects, so often
that a wake-up of thousands slows down), with the app's own objects frozen out of it.

Metrics: prometheus_client's multiprocess mode needs ``PROMETHEUS_MULTIPROC_DIR``
set before a worker imports it. When unset, a fresh temporary directory is made
here (in the master, before forking) and removed on exit; when set (e.g. an
``emptyDir`` in Kubernetes) it is emptied at start, as prometheus_client
requires. ``child_exit`` marks a dead worker so its live gauges are dropped.

Graceful shutdown and streams: on SIGTERM gunicorn's worker stops accepting (its
documented ``worker.alive`` turns false) and waits up to ``graceful_timeout`` for running
requests; a pushed stream would hold it that long. ``post_worker_init`` starts a small
watcher in each worker that, once ``alive`` is false, calls ``service.app.begin_shutdown``:
every open stream is woken and ends at once with reason ``shutdown`` and a retry hint
(clients resume elsewhere), while short requests and long-polls finish normally.

Logs: one JSON line per request from the service (``three_thirteen.request``:
method, rule, status, duration_ms, request_id) replaces gunicorn's plain-text
access log; ``ACCESS_LOG=""`` turns it off. gunicorn's own messages are JSON too.
"""

import glob
import multiprocessing
import os
import resource
import shutil
import sys
import tempfile

from gunicorn.glogging import Logger

# gevent's documented switch: a greenlet (one per connection) does not record the stack
# and greenlet that spawned it, a few hundred bytes less per parked request
os.environ.setdefault("GEVENT_TRACK_GREENLET_TREE", "false")

bind = os.environ.get("BIND", f"127.0.0.1:{os.environ.get('PORT', '8000')}")
# gunicorn's gevent and gthread workers answering gunicorn's own refusals (a request it
# cannot parse or over its limits) as problem+json instead of HTML (see above); any other
# WORKER_CLASS is passed to gunicorn as it is
WORKER_CLASSES = {"gevent": "service.gunicorn_workers.GeventWorker",
                  "gthread": "service.gunicorn_workers.ThreadWorker"}
_worker_class = os.environ.get("WORKER_CLASS", "gevent")
worker_class = WORKER_CLASSES.get(_worker_class, _worker_class)
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
worker_connections = int(os.environ.get("WORKER_CONNECTIONS", "12000"))  # sockets per worker
threads = int(os.environ.get("THREADS", "16"))  # only for WORKER_CLASS=gthread
timeout = int(os.environ.get("WORKER_TIMEOUT", "60"))  # > LONG_POLL_MAX_SECONDS
graceful_timeout = 35  # SIGTERM: finish requests (a long-poll is ≤ 30 s), then exit
keepalive = 5
# gunicorn's largest request line (its default is 4094): every documented query value fits
# even at its maxLength in percent-encoded UTF-8 (a 200-character ticket is up to 2.4 KB),
# so a valid request is never refused (414 request_line_too_long)
limit_request_line = 8190
# behind nginx (deploy/nginx.conf), whose limits are these or tighter, nginx refuses first
# (as problem+json too); without it, gunicorn's refusals are 431 header_fields_too_large
limit_request_fields = 32768  # nginx's 32 KB of headers hold fewer
limit_request_field_size = 8190
# the workers' heartbeat files on tmpfs: a slow or read-only disk must not stall them
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
loglevel = os.environ.get("LOG_LEVEL", "info")
errorlog = "-"
accesslog = None  # the service writes its own JSON line per request (below)
_request_log = os.environ.get("ACCESS_LOG", "-") != ""


class ServiceLogger(Logger):
    """gunicorn's logger (``logger_class``) without gunicorn's access log.

    Why: with ``logconfig_dict`` set, gunicorn counts its access log as on and builds
    every request's log atoms before its ``gunicorn.access`` logger drops them; the
    service logs each request itself, so that work (about a tenth of a woken long-poll's
    cost in a worker) is skipped."""

    def access(self, resp, req, environ, request_time):
        return None


logger_class = ServiceLogger

logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "service.jsonlog.JsonFormatter"}},
    "handlers": {
        "stdout": {"class": "logging.StreamHandler", "formatter": "json",
                   "stream": "ext://sys.stdout"},
        "stderr": {"class": "logging.StreamHandler", "formatter": "json",
                   "stream": "ext://sys.stderr"},
    },
    "loggers": {
        "gunicorn.error": {"level": loglevel.upper(), "handlers": ["stderr"],
                           "propagate": False},
        "gunicorn.access": {"level": "WARNING", "handlers": [], "propagate": False},  # off
        "three_thirteen.request": {"level": "INFO" if _request_log else "WARNING",
                                   "handlers": ["stdout"], "propagate": False},
    },
    "root": {"level": loglevel.upper(), "handlers": ["stderr"]},
}

_metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
_own_metrics_dir = not _metrics_dir
if _own_metrics_dir:
    _metrics_dir = tempfile.mkdtemp(prefix="ttt-prometheus-")
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = _metrics_dir


def on_starting(server):
    """Empty a given metrics directory: values of an earlier run must not be summed in;
    and allow as many open files as the system lets us (each waiting client is one)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else 1 << 20
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    os.makedirs(_metrics_dir, exist_ok=True)
    for path in glob.glob(os.path.join(_metrics_dir, "*.db")):
        os.remove(path)


#: Allocations between two young-generation collections (Python's default is 700). Every
#: parked request keeps a few hundred objects alive, and each request allocates many: at
#: the default the collector runs every few requests and its older-generation passes walk
#: every parked request's objects (measured in one worker with 4,000 parked long-polls:
#: 1.0 s of collection per move at the default, 12 full passes of up to 0.4 s in three
#: moves; 0.44 s per move at 50,000, no full pass).
GC_THRESHOLD = int(os.environ.get("GC_THRESHOLD", "50000"))

#: How long a worker's event loop may run ready greenlets before it polls its sockets
#: again (gevent's documented ``gevent.setswitchinterval``, Python's switch interval;
#: default 5 ms). When a move wakes thousands of long-polls, at 5 ms their answers
#: alternate with the requests of the clients already answered and re-parking, so the
#: last waits behind both; at 50 ms (the most any work may hold the loop, by design) the
#: woken are answered first: in bench-push, 5,000 long-polls woken with p50 1.0 s
#: instead of 2.8 s, and actions on other games no slower.
SWITCH_INTERVAL_SECONDS = float(os.environ.get("SWITCH_INTERVAL_SECONDS", "0.05"))

#: How often the shutdown watcher looks at ``worker.alive`` (a stream ends this soon).
SHUTDOWN_POLL_SECONDS = 0.2


def post_worker_init(worker):
    """Watch for the worker's graceful stop and end its open streams then (see above)."""
    import gc
    import threading  # patched by the gevent worker: a greenlet there, a thread otherwise
    import time

    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    gc.collect()
    gc.freeze()  # the app's own objects: never scanned again by the cyclic collector
    gc.set_threshold(GC_THRESHOLD, *gc.get_threshold()[1:])

    from service.app import begin_shutdown

    app = worker.wsgi

    def watch():
        while worker.alive:
            time.sleep(SHUTDOWN_POLL_SECONDS)
        begin_shutdown(app)

    threading.Thread(target=watch, name="stream-shutdown", daemon=True).start()


def child_exit(server, worker):
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)


def on_exit(server):
    if _own_metrics_dir:
        shutil.rmtree(_metrics_dir, ignore_errors=True)
