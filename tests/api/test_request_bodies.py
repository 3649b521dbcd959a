"""Request bodies as gunicorn hands them over, read through werkzeug: a plain
Content-Length, chunked bodies, bodies over the limit, short bodies, slow bodies."""

from __future__ import annotations

import http.client
import socket
import time
from urllib.parse import urlsplit

import orjson

HAND = {"hand": ["7H", "8H", "9H", "KS", "KD", "KC", "2C"], "wild_rank": None}


def _post(base: str, path: str, body: bytes | list[bytes], headers: dict[str, str]):  # type: ignore[no-untyped-def]
    url = urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        chunked = isinstance(body, list)
        conn.request("POST", path, body=iter(body) if chunked else body, headers=headers,
                     encode_chunked=chunked)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type"), response.read()
    finally:
        conn.close()


def test_a_body_with_content_length_is_read_whole(live_server: str) -> None:
    status, _, data = _post(live_server, "/v1/solve", orjson.dumps(HAND),
                            {"Content-Type": "application/json"})
    assert status == 200 and orjson.loads(data)["penalty"] == 2


def test_a_chunked_body_is_read_whole(live_server: str) -> None:
    raw = orjson.dumps(HAND)
    status, _, data = _post(live_server, "/v1/solve", [raw[:10], raw[10:25], raw[25:]],
                            {"Content-Type": "application/json"})
    assert status == 200 and orjson.loads(data)["penalty"] == 2


def test_a_charset_parameter_or_a_json_suffix_is_still_json(live_server: str) -> None:
    for content_type in ("application/json; charset=utf-8", "application/merge-patch+json"):
        status, _, _ = _post(live_server, "/v1/solve", orjson.dumps(HAND),
                             {"Content-Type": content_type})
        assert status == 200, content_type
    status, content_type, _ = _post(live_server, "/v1/solve", orjson.dumps(HAND),
                                    {"Content-Type": "text/plain"})
    assert (status, content_type) == (415, "application/problem+json")


def test_a_content_length_over_the_limit_is_a_413_before_reading(live_server: str) -> None:
    big = b'{"hand": [' + b'"7H",' * 20_000 + b'"7H"], "wild_rank": null}'
    for body in (big, [big[:1000], big[1000:]]):
        status, content_type, data = _post(live_server, "/v1/solve", body,
                                           {"Content-Type": "application/json"})
        assert (status, content_type) == (413, "application/problem+json")
        assert orjson.loads(data)["code"] == "body_too_large"


def test_a_body_shorter_than_its_content_length_is_a_400_problem(live_server: str) -> None:
    """The client sends less than it announced and stops sending: gunicorn's reader
    reports the missing bytes, werkzeug turns that into a 400, and it is a problem."""
    url = urlsplit(live_server)
    raw = orjson.dumps(HAND)
    with socket.create_connection((url.hostname, url.port), timeout=10) as conn:
        conn.sendall(b"POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     + f"Content-Length: {len(raw) + 50}\r\nConnection: close\r\n\r\n".encode()
                     + raw)
        conn.shutdown(socket.SHUT_WR)
        reply = b""
        while chunk := conn.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400"), head
    assert b"application/problem+json" in head
    assert orjson.loads(body)["status"] == 400


def _trickle(base: str, pieces: list[bytes], pause: float, declared: int) -> tuple[bytes, float]:
    """Send a solve's headers, then ``pieces`` of its body ``pause`` seconds apart; the
    reply (read until the server closes or answers) and the seconds it took."""
    url = urlsplit(base)
    started = time.monotonic()
    with socket.create_connection((url.hostname, url.port), timeout=15) as conn:
        conn.sendall(b"POST /v1/solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     + f"Content-Length: {declared}\r\n\r\n".encode())
        conn.settimeout(pause)
        reply = b""
        for piece in pieces:
            try:
                conn.sendall(piece)
                reply += conn.recv(65536)  # answered already: stop trickling
                break
            except TimeoutError:
                continue
            except OSError:
                break
        conn.settimeout(15)
        while b"\r\n\r\n" not in reply or not reply.endswith(b"}"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            reply += chunk
    return reply, time.monotonic() - started


def test_a_body_trickled_past_the_read_time_is_a_408_problem_in_that_time(
        live_server: str) -> None:
    """The tests' server reads a body for 1 s at most (``BODY_READ_SECONDS``): a client
    sending a byte every 0.3 s, well inside any per-read timeout, is still cut off by the
    whole read's deadline, with a problem, instead of holding the worker for the minute
    its 200 bytes (the hand, then spaces JSON allows) would take."""
    raw = orjson.dumps(HAND) + b" " * 140
    reply, took = _trickle(live_server, [raw[i:i + 1] for i in range(200)], 0.3, len(raw))
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408"), head
    assert b"application/problem+json" in head
    assert orjson.loads(body)["code"] == "body_timeout"
    assert took < 30, took  # its 1 s, not the 60 s of trickling (a busy machine is slower)


def test_a_body_sent_in_pieces_within_the_read_time_is_answered(live_server: str) -> None:
    raw = orjson.dumps(HAND)
    reply, _ = _trickle(live_server, [raw[:20], raw[20:]], 0.3, len(raw))
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    assert orjson.loads(body)["penalty"] == 2
