"""Hostile clients on the real server (gunicorn with deploy/gunicorn.conf.py: gevent, 2
workers): 200 slowloris sockets (one byte, then silence), 200 idle keep-alive
connections and 40 spectator long-polls, all from one address, while the liveness
probe is polled every 0.2 s with its 1 s timeout and other clients play.

Why it holds: under gevent a silent socket is a sleeping greenlet, not a thread, and
gunicorn's gevent worker wraps the read of each request's headers in ``keepalive``
seconds (5 in deploy/gunicorn.conf.py), so the server closes slowloris and idle
sockets itself after ~5 s.
"""

from __future__ import annotations

import contextlib
import socket
import time

from tests.conftest import PATIENCE

from .conftest import Gunicorn
from .waiters import Game, park, spectator, timed_get

SLOWLORIS = 200
IDLE = 200
LONG_POLLS = 40
PROBE_TIMEOUT = 3.0  # a stalled worker would hold a probe for KEEPALIVE
#: deploy/gunicorn.conf.py's keepalive: the header read timeout.
KEEPALIVE = 5


def connect(port: int, first: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if first:
        s.sendall(first)
    return s


def idle_keepalive(port: int) -> socket.socket:
    """A connection that made one request, read its answer and keeps the socket open."""
    s = connect(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += s.recv(4096)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head[:80]
    length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:")))
    while len(body) < length:  # read it all: what is left unread is not the server's close
        body += s.recv(4096)
    return s


def closed_by_server(s: socket.socket) -> bool:
    """Whether the peer closed ``s`` (recv answers b"" or a reset, without blocking)."""
    s.setblocking(False)
    try:
        return s.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        s.setblocking(True)


def test_slowloris_idle_sockets_and_long_polls_from_one_address_do_not_stall_anyone(
    open_service: Gunicorn,
) -> None:
    base, port = open_service.base, open_service.port
    game, other = Game.create(base, "watched"), Game.create(base, "played")
    sockets = []
    try:
        opened_at = time.monotonic()
        slow = [connect(port, b"G") for _ in range(SLOWLORIS)]
        idle = [idle_keepalive(port) for _ in range(IDLE)]
        sockets = slow + idle
        polls = [spectator(game, 20) for _ in range(LONG_POLLS)]
        threads = park(base, polls, 30)

        probes: list[float] = []
        plays: list[float] = []
        end = time.monotonic() + 8
        while time.monotonic() < end:
            status, seconds = timed_get(f"{base}/healthz", timeout=PROBE_TIMEOUT)
            assert status == 200
            probes.append(seconds)
            if len(probes) % 5 == 0:  # another client plays meanwhile
                started = time.monotonic()
                other.to_a_discard()
                other.discard()
                plays.append(time.monotonic() - started)
            time.sleep(0.2)
        assert max(probes) < PROBE_TIMEOUT, max(probes)
        assert max(plays) < PROBE_TIMEOUT, max(plays)

        # gunicorn's header-read timeout (keepalive) closed the silent sockets by now
        elapsed = time.monotonic() - opened_at
        assert elapsed > KEEPALIVE + 1
        still_open = [s for s in sockets if not closed_by_server(s)]
        assert not still_open, f"{len(still_open)} silent sockets open after {elapsed:.1f} s"
        assert not [p for p in polls if p.answered_at is not None], "a long-poll ended early"

        game.to_a_discard()
        for t in threads:
            t.join(PATIENCE)
        assert [p.status for p in polls] == [200] * LONG_POLLS
        print(f"\nprobe p100 {max(probes) * 1000:.0f} ms over {len(probes)} probes, "
              f"actions p100 {max(plays) * 1000:.0f} ms")
    finally:
        for s in sockets:
            s.close()


def test_a_slowloris_socket_is_closed_by_the_server_after_the_keepalive_timeout(
    open_service: Gunicorn,
) -> None:
    s = connect(open_service.port, b"GET /healthz HTTP/1.1\r\nHo")
    try:
        started = time.monotonic()
        s.settimeout(KEEPALIVE + 5)
        with contextlib.suppress(ConnectionResetError):
            s.recv(4096)  # blocks until the server gives up on the headers
        waited = time.monotonic() - started
        assert KEEPALIVE - 1 < waited < KEEPALIVE + 2, waited
    finally:
        s.close()
