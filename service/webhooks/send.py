"""One attempt at one webhook: signed as Standard Webhooks says, POSTed once to the
address just checked, answered by its status alone, and over by a deadline.

Why these libraries: the signature is the ``standardwebhooks`` package's
(``Webhook(secret).sign``), the specification authors' own Python library, typed and
without dependencies, so the three headers are exactly what every Standard Webhooks
verifier expects (``webhook-id``, ``webhook-timestamp``, ``webhook-signature`` =
``v1,`` + base64 of HMAC-SHA256 over ``"{id}.{timestamp}.{body}"`` with the secret's
bytes). The request is urllib3's, whose connection connects to an address while it
names the host: ``HTTPSConnection(address, server_hostname=host)`` is its documented way
to give TLS the name to send (SNI) and to check the certificate against, and a ``Host``
header names it to the server. So the delivery goes to the address
:func:`.addresses.target` checked a moment before, and nowhere else (a DNS answer that
changed in between is not asked again).

What an attempt does not do: follow a redirect (a 3xx is a failure, tried again later),
retry by itself (the queue's schedule does), read more of the answer than
:data:`READ_MAX` bytes, use a proxy from the environment, or last longer than twice
the timeout. A socket timeout bounds each wait for the network, not the whole: a
receiver sending its answer a byte at a time, each within the timeout, would hold the
attempt for hours. So a deadline (the timeout to connect, then the timeout again for all
the rest) shuts the connection's socket down from a timer thread, which ends any wait on
it at once, TLS handshake included. What an attempt tells is its :class:`Attempt`:
success for any 2xx, else a short reason for the logs that names neither the URL nor
the secret.
"""

from __future__ import annotations

import base64
import contextlib
import secrets
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import urllib3.exceptions
from standardwebhooks import Webhook
from urllib3.connection import HTTPConnection, HTTPSConnection

from .addresses import Resolver, UnsafeUrlError, resolve, target

__all__ = ["READ_MAX", "SECRET_PREFIX", "USER_AGENT", "Attempt", "Send", "new_secret", "post",
           "sign"]

#: Bytes of a receiver's answer read at most (its status is all that counts).
READ_MAX = 1024
USER_AGENT = "three-thirteen-webhooks/1"
SECRET_PREFIX = "whsec_"
#: Random bytes of a secret (Standard Webhooks asks for 24 to 64).
SECRET_BYTES = 32


def new_secret() -> str:
    """A fresh signing secret: ``whsec_`` and the base64 of :data:`SECRET_BYTES` bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


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


def _cut(connection: HTTPConnection, expired: threading.Event) -> None:
    """The deadline: end every wait on ``connection``'s socket now (a shut-down socket's
    reads return at once, in whichever thread waits on them)."""
    expired.set()
    sock = connection.sock
    if sock is not None:
        with contextlib.suppress(OSError):  # closed meanwhile: the attempt is over anyway
            sock.shutdown(socket.SHUT_RDWR)


def post(url: str, secret: str, event_id: str, body: str, *, timeout: float,
         allow_private: bool, resolver: Resolver = resolve,
         clock: Callable[[], float] = time.time) -> Attempt:
    """POST ``body`` to ``url`` once, signed with ``secret`` as ``event_id`` now, for at
    most ``2 * timeout`` seconds once the host is resolved."""
    try:
        where = target(url, allow_private, resolver)
    except UnsafeUrlError:
        return Attempt(False, None, "address refused")
    timestamp = int(clock())
    headers = {"Host": where.netloc, "Content-Type": "application/json",
               "User-Agent": USER_AGENT, "webhook-id": event_id,
               "webhook-timestamp": str(timestamp),
               "webhook-signature": sign(secret, event_id, timestamp, body)}
    connection: HTTPConnection
    if where.scheme == "https":
        connection = HTTPSConnection(where.address, where.port, timeout=timeout,
                                     server_hostname=where.host)
    else:
        connection = HTTPConnection(where.address, where.port, timeout=timeout)
    expired = threading.Event()
    deadline = threading.Timer(2 * timeout, _cut, args=(connection, expired))
    deadline.daemon = True
    deadline.start()
    try:
        connection.request("POST", where.path, body=body.encode(), headers=headers,
                           preload_content=False)
        response = connection.getresponse()
    except Exception as error:  # any failure is the attempt's (urllib3's, the socket's)
        return Attempt(False, None, _why(error, expired))
    else:
        if expired.is_set():  # the head cut short reads as ended: not an answer
            return Attempt(False, None, "deadline")
        with contextlib.suppress(Exception):  # the status is in: the rest may fail
            response.read(READ_MAX, decode_content=False)
        return Attempt(200 <= response.status < 300, response.status,
                       f"status {response.status}")
    finally:
        deadline.cancel()
        connection.close()


def _why(error: Exception, expired: threading.Event) -> str:
    """A failed attempt's reason: what kind of failure, never its message (which may name
    the address or the path)."""
    if expired.is_set():
        return "deadline"
    if isinstance(error, TimeoutError | urllib3.exceptions.TimeoutError):
        return "timeout"
    return type(error).__name__
