"""Request bodies as gunicorn hands them over, read through werkzeug: a plain
Content-Length, chunked bodies, bodies over the limit, short bodies."""

from __future__ import annotations

import http.client
import socket
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
