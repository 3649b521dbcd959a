"""The client's connection, as the service layer asks about it: has the client closed it?

Why: a seek held by a request (a long-poll) or by an account's stream ends when its
client goes away (``service/play/seek_holds.py``), and the one who knows is the socket.
gunicorn hands each request its socket (``environ["gunicorn.socket"]``, under every
worker class); a closed connection reads as end-of-file. Looking is a non-blocking
``select`` and, when the socket is readable, a one-byte ``MSG_PEEK`` (nothing is
consumed: a request the client pipelined behind this one stays where it is). Behind
nginx the socket is nginx's, which closes it when its client goes away (its default,
``proxy_ignore_client_abort off``).

Without a socket to look at (a test's client) or with one that cannot be peeked at (TLS
terminated by gunicorn itself), there is no :class:`SocketConnection`: the connection
counts as open, and a hold ends only when it lapses.
"""

from __future__ import annotations

import select
import socket
import ssl
from typing import Any

from flask import request

__all__ = ["SocketConnection", "client_connection"]


class SocketConnection:
    """A request's socket: :meth:`closed` once its client closed it."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock

    def closed(self) -> bool:
        """Whether the client closed the connection (end-of-file, or a reset)."""
        try:
            readable, _, _ = select.select([self._sock], [], [], 0)
            if not readable:
                return False
            return bool(self._sock.recv(1, socket.MSG_PEEK) == b"")
        except (OSError, ValueError):  # reset, or closed by the server already
            return True


def client_connection() -> SocketConnection | None:
    """This request's connection, if the server gave its socket (``None``: it counts as
    always open)."""
    sock = request.environ.get("gunicorn.socket")
    # a TLS socket (the standard library's or gevent's) refuses MSG_PEEK
    if sock is None or isinstance(sock, ssl.SSLSocket) or hasattr(sock, "do_handshake"):
        return None
    return SocketConnection(sock)
