"""Hot Redis commands on one connection per thread, sent straight on its socket.

Why: a command through a redis-py client costs about 70 µs of CPU here, of which
the round trip itself (send, receive, parse the reply) is about 35: the rest is the
pool's bookkeeping on every call (fork check, a ``select`` for stray data, the
lock, metrics), the retry wrapper and the response callbacks. A game view is one
command and an action two, so that overhead was a fifth of a view. Each worker
thread here keeps its own redis-py connection (same class, parser and socket
options as the client's pool) and uses it for the commands of the hot path.

What the pool's checks protected against is kept: a connection is dropped after any
error that can leave a reply unread (redis-py's connection disconnects itself on
those), and one that Redis closed (a restart, an idle timeout) is reconnected and the
command sent once more, as the client's ``Retry(NoBackoff(), 1)`` does. A timeout is
not retried: it becomes the storage error (503) at once. Redis' error replies
(``NOSCRIPT``, ``OOM``, ``READONLY``) leave the connection clean and are raised as
redis-py's exceptions, so callers handle them as before.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import redis
from redis.connection import AbstractConnection
from redis.exceptions import NoScriptError

__all__ = ["PinnedConnections"]


class PinnedConnections:
    """``execute(*args)`` and ``evalsha(script, keys, args)`` on this thread's connection."""

    def __init__(self, pool: redis.ConnectionPool) -> None:
        self._new = lambda: pool.connection_class(**pool.connection_kwargs)
        self._local = threading.local()

    def _connection(self) -> AbstractConnection:
        local = self._local
        conn: AbstractConnection | None = getattr(local, "conn", None)
        if conn is None or local.pid != os.getpid():  # never share a socket across a fork
            conn = local.conn = self._new()
            local.pid = os.getpid()
        return conn

    def execute(self, *args: Any) -> Any:
        """Send one command and return its raw RESP reply (bytes, ints, lists, ``None``)."""
        conn = self._connection()
        packed = conn.pack_command(*args)
        try:
            conn.send_packed_command(packed, check_health=False)
            return conn.read_response()
        except redis.ConnectionError:
            # a pooled socket Redis closed fails on first use: one fresh connection, once
            # (redis-py has already disconnected it; the next send reconnects)
            conn.disconnect()
            conn.send_packed_command(packed, check_health=False)
            return conn.read_response()

    def evalsha(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """Run a registered redis-py ``Script`` by its sha, loading it when Redis lost it
        (a restart or ``SCRIPT FLUSH``), as ``Script.__call__`` does."""
        try:
            return self.execute("EVALSHA", script.sha, len(keys), *keys, *args)
        except NoScriptError:
            self.execute("SCRIPT", "LOAD", script.script)
            return self.execute("EVALSHA", script.sha, len(keys), *keys, *args)
