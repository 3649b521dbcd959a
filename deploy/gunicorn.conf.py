"""gunicorn settings for the service (``gunicorn -c deploy/gunicorn.conf.py 'service.app:create_app()'``).

Why threaded workers (gthread): a long-poll (``?wait_version=…``) parks for up to
30 s inside Redis. With sync workers each parked request would hold a whole
process and a few waiting bots would starve everyone else; with gthread it holds
one thread, and the worker's other threads keep serving. The work per request
is short and CPU-bound (the GIL makes extra threads useless for throughput), so
processes scale CPU and threads only cover waiting. Every value can be changed
from the environment.
"""

import multiprocessing
import os

bind = os.environ.get("BIND", f"127.0.0.1:{os.environ.get('PORT', '8000')}")
worker_class = os.environ.get("WORKER_CLASS", "gthread")
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count()))
threads = int(os.environ.get("THREADS", "16"))  # up to 16 parked long-polls per worker
timeout = int(os.environ.get("WORKER_TIMEOUT", "60"))  # > LONG_POLL_MAX_SECONDS
graceful_timeout = 35
keepalive = 5
accesslog = os.environ.get("ACCESS_LOG", "-") or None
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info")
