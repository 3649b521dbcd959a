"""A lean load process of ``make bench-push``: many streams from one source address, held.

Why not :mod:`tests.bench.push_load`: its spectators are asyncio protocols, fine for the
10,000 of a wake-up row; the idle row holds 100,000 streams, and the stalled-readers row
streams whose clients never read. Here a stream is a non-blocking socket on one epoll
selector and an entry in two lists: no task, no protocol object, no buffer of its own
(every read goes into one shared ``bytearray``). Its ``SO_RCVBUF`` is set small before
connecting (the kernel's buffer for a reader; for a stalled one, what fills first).

Why a source address per process: a socket bound to ``(address, 0)`` before ``connect``
takes an ephemeral port of that address whatever the destination (about 28,000:
``net.ipv4.ip_local_port_range``), so each process binds its sockets to its own
loopback address (Linux routes all of 127/8 to the loopback) and holds at most
:data:`PER_ADDRESS` (:func:`spread` gives each process its address and count).

``python -m tests.bench.push_idle PORT SOURCE COUNT RCVBUF MODE GAME [GAME ...]`` opens
``COUNT`` NDJSON spectator streams ``GET /v1/games/G/stream`` (spread over the games)
from ``SOURCE`` to ``127.0.0.1:PORT``, a few hundred connecting at once (the listen
backlog). ``MODE`` ``read``: each is read until its first view arrived, then drained as
it goes on. ``MODE`` ``stall``: each sends its request and is never read. Then it prints
one JSON line, ``{"open": n, "heard": n, "failed": n, "seconds": s, "rss_mb": m}`` (heard:
streams whose first view came; a stalled stream's never comes), and holds them all
until stdin closes or says ``quit``.
"""

from __future__ import annotations

import errno
import json
import math
import os
import resource
import selectors
import socket
import sys
import time

from tests.bench.aio_http import HOST
from tests.bench.procs import rss_mb

__all__ = ["PER_ADDRESS", "spread"]

#: The most connections one source address is given (under the ~28,000 ephemeral ports
#: of ``ip_local_port_range``, with room for the ones still in ``TIME_WAIT``).
PER_ADDRESS = 20_000
#: Connections in flight (connecting, or waiting for their first view) at once.
AT_ONCE = 512
#: How long every stream may take to open and hear its first view.
OPEN_SECONDS = 900.0
VIEW = b'"type":"view"'


def spread(count: int, per_process: int, first: int = 2) -> list[tuple[str, int]]:
    """``count`` connections as (source address, how many) per load process: as few
    processes as hold ``per_process`` each (at most :data:`PER_ADDRESS`), each from its
    own loopback address ``127.0.0.<first>``, ``127.0.0.<first + 1>``, …, the count shared
    out evenly."""
    if count <= 0:
        return []
    size = min(per_process, PER_ADDRESS)
    processes = math.ceil(count / size)
    if first + processes - 1 > 254:
        raise ValueError(f"{count} connections need {processes} source addresses")
    base, extra = divmod(count, processes)
    return [(f"127.0.0.{first + i}", base + (1 if i < extra else 0)) for i in range(processes)]


def request(game_id: str) -> bytes:
    return (b"GET /v1/games/%s/stream HTTP/1.1\r\nHost: %s\r\nAccept: application/x-ndjson"
            b"\r\n\r\n" % (game_id.encode(), HOST.encode()))


def hold(port: int, source: str, count: int, rcvbuf: int, read: bool,
         games: list[str]) -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    selector = selectors.DefaultSelector()
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, -1)
    sockets: list[socket.socket | None] = [None] * count
    tails = [b""] * count  # a stream's last bytes until its first view (a split marker)
    settled = [False] * count  # out of flight: its first view came (a stalled one: sent)
    shared = bytearray(1 << 16)
    started = time.monotonic()
    opened = failed = heard_count = in_flight = 0
    reported = False

    def fail(i: int) -> None:
        nonlocal failed, in_flight
        sock = sockets[i]
        if sock is not None:
            selector.unregister(sock)
            sock.close()
            sockets[i] = None
        failed += 1
        if not settled[i]:
            in_flight -= 1

    while True:
        while opened < count and in_flight < AT_ONCE:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            sock.setblocking(False)
            sock.bind((source, 0))
            code = sock.connect_ex((HOST, port))
            if code not in (0, errno.EINPROGRESS):
                sock.close()
                failed += 1
            else:
                sockets[opened] = sock
                selector.register(sock, selectors.EVENT_WRITE, opened)
                in_flight += 1
            opened += 1
        done = opened == count and in_flight == 0
        if not reported and (done or time.monotonic() - started > OPEN_SECONDS):
            reported = True
            print(json.dumps({"open": sum(s is not None for s in sockets), "heard": heard_count,
                              "failed": failed, "seconds": time.monotonic() - started,
                              "rss_mb": rss_mb(os.getpid())}), flush=True)
        for key, events in selector.select(timeout=1.0):
            i = key.data
            if i == -1:
                line = sys.stdin.readline()
                if not line or line.strip() == "quit":
                    for held in sockets:
                        if held is not None:
                            held.close()
                    return
                continue
            sock = sockets[i]
            assert sock is not None
            if events & selectors.EVENT_WRITE:
                if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    fail(i)
                    continue
                sock.send(request(games[i % len(games)]))
                if read:
                    selector.modify(sock, selectors.EVENT_READ, i)
                else:  # a stalled reader: counted open once its request is sent
                    selector.unregister(sock)
                    settled[i] = True
                    in_flight -= 1
                continue
            try:
                size = sock.recv_into(shared)
            except OSError:
                size = 0
            if size == 0:
                fail(i)
                continue
            if not settled[i]:
                data = tails[i] + bytes(shared[:size])
                if not tails[i] and not data.startswith(b"HTTP/1.1 200 "):
                    fail(i)  # refused: its problem is not a stream
                    continue
                if VIEW in data:
                    settled[i] = True
                    heard_count += 1
                    in_flight -= 1
                    tails[i] = b""
                else:
                    tails[i] = data[-len(VIEW):]


def main() -> None:
    port, source, count, rcvbuf, mode, *games = sys.argv[1:]
    hold(int(port), source, int(count), int(rcvbuf), mode == "read", games)


if __name__ == "__main__":
    main()
