"""Headers every answer carries, whichever process writes it: the request id, what a
cross-origin script may read (CORS's exposed headers), and how a body that depends on its
bearer may be cached."""

from __future__ import annotations

import os
import re

__all__ = ["ALLOWED_HEADERS", "EXPOSED_HEADERS", "PREFLIGHT_MAX_AGE", "REQUEST_ID_HEADER",
           "cache_control", "request_id"]

REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID = re.compile(r"[\x21-\x7e][\x20-\x7e]{0,127}")

#: The response headers a browser's script may read (``Access-Control-Expose-Headers``).
EXPOSED_HEADERS = ("ETag", "Location", "Retry-After", "Idempotent-Replayed",
                   "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset",
                   "RateLimit-Policy", "Deprecation", "Sunset", REQUEST_ID_HEADER)
#: The request headers a browser's script may send (``Access-Control-Allow-Headers``).
ALLOWED_HEADERS = ("Authorization", "Content-Type", "If-Match", "If-None-Match",
                   "Idempotency-Key", "Last-Event-ID", REQUEST_ID_HEADER)
#: How long a browser may keep a preflight's answer (``Access-Control-Max-Age``), seconds.
PREFLIGHT_MAX_AGE = 600


def request_id(sent: str | None) -> str:
    """The request's id: the client's ``X-Request-ID`` when it is printable ASCII of at
    most 128 characters (so a trace spans the client and every process), else a new one."""
    return sent if sent and _REQUEST_ID.fullmatch(sent) else os.urandom(16).hex()


def cache_control(private: bool) -> str:
    """``Cache-Control`` of a body that depends on who asks (sent with ``Vary:
    Authorization``): revalidated each time, and kept by no shared cache when it carries
    a seat's data (``private``)."""
    return "private, no-cache" if private else "no-cache"
