"""One attempt at one webhook: signed as Standard Webhooks says, POSTed once to the
address just checked, answered by its status alone.

Why these libraries: the signature is the ``standardwebhooks`` package's
(``Webhook(secret).sign``), the specification authors' own Python library, typed and
without dependencies, so the three headers are exactly what every Standard Webhooks
verifier expects (``webhook-id``, ``webhook-timestamp``, ``webhook-signature`` =
``v1,`` + base64 of HMAC-SHA256 over ``"{id}.{timestamp}.{body}"`` with the secret's
bytes). The request is urllib3's, which connects to an address while it names the host:
``HTTPSConnectionPool(address, server_hostname=host)`` is its documented way to give TLS
the name to send (SNI) and to check the certificate against, and a ``Host`` header names
it to the server. So the delivery goes to the address :func:`.addresses.target` checked
a moment before, and nowhere else (a DNS answer that changed in between is not asked
again).

What an attempt does not do: follow a redirect (a 3xx is a failure, tried again later),
retry by itself (the queue's schedule does), read more of the answer than
:data:`READ_MAX` bytes, use a proxy from the environment, or wait more than the timeout
to connect and the timeout again for each read. What it tells is its :class:`Attempt`:
success for any 2xx, else a short reason for the logs that names neither the URL nor
the secret.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import urllib3
from standardwebhooks import Webhook

from .addresses import Resolver, UnsafeUrlError, resolve, target

__all__ = ["READ_MAX", "USER_AGENT", "Attempt", "Send", "post", "sign"]

#: Bytes of a receiver's answer read at most (its status is all that counts).
READ_MAX = 1024
USER_AGENT = "three-thirteen-webhooks/1"


@dataclass(frozen=True, slots=True)
class Attempt:
    """What one attempt came to: ``ok`` for a 2xx; the ``status`` answered (``None``: no
    answer), and ``reason``, for the logs."""

    ok: bool
    status: int | None
    reason: str


#: One attempt: (URL, secret, event id, body) to its outcome (:func:`post`, or a test's).
Send = Callable[[str, str, str, str], Attempt]


def sign(secret: str, event_id: str, timestamp: int, body: str) -> str:
    """The ``webhook-signature`` of ``body`` sent as ``event_id`` at ``timestamp``."""
    return Webhook(secret).sign(event_id, datetime.fromtimestamp(timestamp, UTC), body)


def post(url: str, secret: str, event_id: str, body: str, *, timeout: float,
         allow_private: bool, resolver: Resolver = resolve,
         clock: Callable[[], float] = time.time) -> Attempt:
    """POST ``body`` to ``url`` once, signed with ``secret`` as ``event_id`` now."""
    try:
        where = target(url, allow_private, resolver)
    except UnsafeUrlError:
        return Attempt(False, None, "address refused")
    timestamp = int(clock())
    headers = {"Host": where.netloc, "Content-Type": "application/json",
               "User-Agent": USER_AGENT, "webhook-id": event_id,
               "webhook-timestamp": str(timestamp),
               "webhook-signature": sign(secret, event_id, timestamp, body)}
    limits = urllib3.Timeout(connect=timeout, read=timeout)
    pool: urllib3.HTTPConnectionPool
    if where.scheme == "https":
        pool = urllib3.HTTPSConnectionPool(where.address, where.port, timeout=limits,
                                           retries=False, server_hostname=where.host)
    else:
        pool = urllib3.HTTPConnectionPool(where.address, where.port, timeout=limits,
                                          retries=False)
    try:
        response = pool.urlopen("POST", where.path, body=body.encode(), headers=headers,
                                redirect=False, retries=False, preload_content=False)
        try:
            response.read(READ_MAX, decode_content=False)
        finally:
            response.close()
    except Exception as error:  # any failure is the attempt's (urllib3's, the socket's)
        # its class only: an error's message may name the address or the path
        return Attempt(False, None, type(error).__name__)
    finally:
        pool.close()
    status = response.status
    return Attempt(200 <= status < 300, status, f"status {status}")
