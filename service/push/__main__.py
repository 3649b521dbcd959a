"""``python -m service.push --port 8001``: a push process (:mod:`service.push.server`).

It reads the service's own environment (``REDIS_URL``, ``LONG_POLL_MAX_SECONDS``,
``STREAM_MAX_SECONDS``, ``STREAM_HEARTBEAT_SECONDS``, ``MAX_WAITS_PER_ADDRESS``,
``MAX_WAITS_PER_TOKEN``, ``CORS_ORIGINS``, ``PROXY_HOPS``: :class:`~service.config.Config`),
so it answers as the web workers beside it would. Logs are JSON lines on stderr, like
theirs. Any number may run, on any number of machines: each subscribes only to the games
its own clients wait on.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from service.jsonlog import JsonFormatter

from .server import main


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
    main(arguments.host, arguments.port)
