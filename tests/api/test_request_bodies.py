"""Request bodies as gunicorn hands them over, read through werkzeug: a plain
Content-Length, chunked bodies, bodies over the limit, short bodies."""

from __future__ import annotations

import http.client
import io
from urllib.parse import urlsplit

import orjson

from service.app import create_app
from service.config import Config

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


def test_a_body_shorter_than_its_content_length_is_a_400_problem() -> None:
    app = create_app(Config(redis_url="redis://127.0.0.1:1/0", rate_limit="off",
                            rate_limit_per_address="off"))
    raw = orjson.dumps(HAND)
    environ = {
        "REQUEST_METHOD": "POST", "PATH_INFO": "/v1/solve", "SERVER_NAME": "localhost",
        "SERVER_PORT": "80", "wsgi.url_scheme": "http", "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(raw) + 50), "wsgi.input": io.BytesIO(raw),
        "wsgi.input_terminated": True, "wsgi.errors": io.StringIO(),
    }
    seen: list[tuple[str, list[tuple[str, str]]]] = []
    body = b"".join(app(environ, lambda status, headers, *_: seen.append((status, headers))))
    assert seen[0][0].startswith("400")
    assert ("Content-Type", "application/problem+json") in seen[0][1]
    assert orjson.loads(body)["status"] == 400
