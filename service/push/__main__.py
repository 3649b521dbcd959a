"""``python -m service.push --port 8001``: a push process (:mod:`service.push.server`).

It reads the service's own environment (``REDIS_URL``, ``LONG_POLL_MAX_SECONDS``,
``STREAM_MAX_SECONDS``, ``STREAM_HEARTBEAT_SECONDS``, ``MAX_WAITS_PER_ADDRESS``,
``MAX_WAITS_PER_TOKEN``, ``CORS_ORIGINS``, ``PROXY_HOPS``: :class:`~service.config.Config`),
so it answers as the web workers beside it would. Logs are JSON lines on stderr, like
theirs. Any number may run, on any number of machines: each subscribes only to the games
its own clients wait on.

It raises its own soft ``RLIMIT_NOFILE`` to the hard limit before it listens: every held
request is a socket, and the soft limit a shell or systemd gives (often 1,024) would
refuse connections long before memory runs out. The hard limit, and the kernel's
``fs.nr_open`` and ``fs.file-max`` above it, are the deployment's to set
(docs/operations.md).
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import sys

from service.jsonlog import JsonFormatter

from .server import main


def raise_open_files() -> tuple[int, int]:
    """The soft ``RLIMIT_NOFILE`` raised to the hard one: (before, after)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if 0 <= soft < hard:  # (Linux bounds this limit by fs.nr_open: never infinite)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return soft, resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def _parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m service.push",
                                     description="Hold the service's waiting requests.")
    parser.add_argument("--host", default=os.environ.get("PUSH_HOST", "0.0.0.0"))
    parser.add_argument("--port", type=int, default=int(os.environ.get("PUSH_PORT", "8001")))
    return parser.parse_args()


if __name__ == "__main__":
    arguments = _parse()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    logging.basicConfig(level=os.environ.get("LOG_LEVEL", "info").upper(), handlers=[handler])
    before, after = raise_open_files()
    logging.getLogger("three_thirteen.push").info(
        "open files: soft limit %d, raised from %d", after, before)
    main(arguments.host, arguments.port)
