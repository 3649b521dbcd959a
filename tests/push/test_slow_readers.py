"""A client that stops reading costs the push process a bounded buffer, not every later
message: its stream waits on its cursor, and once read it is the whole stream still
(each event once, in order, and the newest view).

The client is a raw socket with a small receive buffer and a small segment size (the
sending kernel sizes its own buffer by the segments: on the loopback's 64 KB segments it
would take a megabyte before the process's own buffer holds anything), so the kernel soon
stops taking what the process writes and the process's buffer is what grows, or not."""

from __future__ import annotations

import socket
from typing import Any

import orjson
import requests

from service.play import STREAM_PAGE
from service.push.http import HIGH_WATER_BYTES
from tests.conftest import PATIENCE, wait_until
from tests.push.test_conformance import move, new_game

#: Moves made while the client reads nothing: their views alone (about 1.5 KB each) are
#: several times what the kernels' buffers take on this socket.
MOVES = 500


def health(push: str) -> dict[str, Any]:
    """The push process's ``/healthz``: what it holds (``waiting``, ``unsent_bytes``,
    ``paused``)."""
    answer: dict[str, Any] = requests.get(f"{push}/healthz", timeout=PATIENCE).json()
    return answer


def slow_socket(push: str) -> socket.socket:
    """A connection to ``push`` that takes a few KB before the sender must wait (see the
    module)."""
    host, port = push.removeprefix("http://").split(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: the window
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)  # and the segment
    sock.settimeout(PATIENCE)
    sock.connect((host, int(port)))
    return sock


def open_stream(push: str, game_id: str) -> socket.socket:
    """A spectator's NDJSON stream of the game (HTTP/1.0: the body runs to the close) on
    a :func:`slow_socket`."""
    sock = slow_socket(push)
    sock.sendall(f"GET /v1/games/{game_id}/stream HTTP/1.0\r\nHost: push\r\n"
                 "Accept: application/x-ndjson\r\n\r\n".encode())
    return sock


def read_until_view(sock: socket.socket, version: int) -> list[bytes]:
    """The stream's lines (heartbeats, empty lines, left out) up to the view of
    ``version``."""
    head, body, lines = b"", b"", list[bytes]()
    while True:
        data = sock.recv(65536)
        assert data, "the stream ended before the view of the newest version"
        if not head:
            body += data
            if b"\r\n\r\n" not in body:
                continue
            head, _, data = body.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 "), head
            body = b""
        *complete, body = (body + data).split(b"\n")
        for line in filter(None, complete):
            lines.append(line)
            message = orjson.loads(line)
            if message["type"] == "view" and message["view"]["version"] == version:
                return lines


def event_log(web: str, game_id: str) -> list[dict[str, Any]]:
    """The game's whole event log as a spectator reads it from the web workers."""
    events: list[dict[str, Any]] = []
    after, more = 0, True
    while more:
        page = requests.get(f"{web}/v1/games/{game_id}/events", params={"after": after},
                            timeout=PATIENCE).json()
        events += page["events"]
        after, more = page["next_after"], page["more"]
    return events


def test_a_stream_whose_client_stops_reading_is_held_to_a_bounded_buffer_and_loses_nothing(
    both: dict[str, str], patient_push: str,
) -> None:
    web = both["gunicorn"]
    game = new_game(web)
    gid = game["game_id"]
    sock = open_stream(patient_push, gid)
    try:
        wait_until(lambda: health(patient_push)["waiting"] == 1, PATIENCE, "the stream held")
        held = []
        for made in range(1, MOVES + 1):
            move(web, game)
            if made % 50 == 0:
                held.append(health(patient_push)["unsent_bytes"])
        wait_until(lambda: health(patient_push)["paused"] == 1, PATIENCE, "the writer paused")
        held.append(health(patient_push)["unsent_bytes"])

        version = requests.get(f"{web}/v1/games/{gid}", timeout=PATIENCE).json()["version"]
        lines = read_until_view(sock, version)
    finally:
        sock.close()

    messages = [orjson.loads(line) for line in lines]
    # at most the high-water mark and one more write: a page of events, however long
    page = STREAM_PAGE * max(len(line) + 1 for line, m in zip(lines, messages, strict=True)
                             if m["type"] == "event")
    assert max(held) <= HIGH_WATER_BYTES + page, held

    events = [m["event"] for m in messages if m["type"] == "event"]
    assert events == event_log(web, gid)  # each once, in order, none missing
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    views = [m["view"]["version"] for m in messages if m["type"] == "view"]
    assert views == sorted(set(views))  # no view twice, none older than one sent before
    assert messages[-1]["type"] == "view" and views[-1] == version
    assert {m["type"] for m in messages} == {"event", "view"}  # no message of a new kind


def read_answers(sock: socket.socket, count: int) -> list[tuple[bytes, bytes]]:
    """``count`` answers (head and body; each with a ``Content-Length``) read off ``sock``."""
    data, answers = b"", list[tuple[bytes, bytes]]()
    while len(answers) < count:
        head, found, rest = data.partition(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), None)
        if found and length is not None and len(rest) >= length:
            answers.append((head + found, rest[:length]))
            data = rest[length:]
            continue
        more = sock.recv(65536)
        assert more, f"the connection closed after {len(answers)} answers"
        data += more
    return answers


def test_pipelined_requests_of_a_client_that_reads_nothing_wait_for_it_to_read(
    both: dict[str, str], patient_push: str,
) -> None:
    web = both["gunicorn"]
    gid = new_game(web)["game_id"]
    asks = 300
    sock = slow_socket(patient_push)
    try:
        sock.sendall(f"GET /v1/games/{gid} HTTP/1.1\r\nHost: push\r\n\r\n".encode() * asks)
        wait_until(lambda: health(patient_push)["paused"] == 1, PATIENCE, "the writer paused")
        held = [health(patient_push)["unsent_bytes"] for _ in range(10)]
        answers = read_answers(sock, asks)
    finally:
        sock.close()
    assert all(head.startswith(b"HTTP/1.1 200 ") for head, _ in answers)
    assert len({body for _, body in answers}) == 1  # the same view each time, whole
    # at most the high-water mark and one more answer: the next waits until it drains
    assert max(held) <= HIGH_WATER_BYTES + max(len(h) + len(b) for h, b in answers), held
