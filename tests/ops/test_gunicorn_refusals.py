"""What gunicorn refuses before the app sees it is answered as problem+json by the live
gunicorn (deploy/gunicorn.conf.py's worker classes, service/gunicorn_workers.py): a
malformed request line, a 10,000-character URL, too many header fields, a header field
too long… each with gunicorn's status and the service's problem shape. Sent as raw bytes:
HTTP clients refuse to send such requests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from tests.conftest import PATIENCE, ROOT, free_port, wait_until
from tests.ops.raw_http import RawAnswer, raw_exchange

#: Each request and the status and code of its answer (the limits are deploy/gunicorn.conf.py's:
#: limit_request_line 8190, limit_request_fields 32768, limit_request_field_size 8190).
REFUSED = {
    "malformed-request-line": (b"GARBAGE\r\n\r\n", 400, "bad_request_line"),
    "unknown-http-version": (b"GET /v1/rules/presets HTTP/9.9\r\nHost: x\r\n\r\n", 400,
                             "bad_request_line"),
    "10000-character-url": (b"GET /v1/rules/presets?q=" + b"a" * (10_000 - 20)
                            + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414, "request_line_too_long"),
    "too-many-header-fields": (b"GET /v1/rules/presets HTTP/1.1\r\nHost: x\r\n"
                               + b"".join(b"X-%d: v\r\n" % n for n in range(32_769)) + b"\r\n",
                               431, "header_fields_too_large"),
    "header-field-too-long": (b"GET /v1/rules/presets HTTP/1.1\r\nHost: x\r\nX-Big: "
                              + b"b" * 9000 + b"\r\n\r\n", 431, "header_fields_too_large"),
    "header-field-without-colon": (b"GET /v1/rules/presets HTTP/1.1\r\nHost: x\r\n"
                                   b"No Colon\r\n\r\n", 400, "bad_header_field"),
    "unknown-expectation": (b"GET /v1/rules/presets HTTP/1.1\r\nHost: x\r\nExpect: tea\r\n\r\n",
                            417, "expectation_failed"),
    "unknown-transfer-coding": (b"POST /v1/solve HTTP/1.1\r\nHost: x\r\n"
                                b"Transfer-Encoding: br\r\n\r\n", 501,
                                "unsupported_transfer_coding"),
}


def assert_a_problem(answer: RawAnswer, status: int, code: str) -> None:
    assert answer.status == status, answer
    assert answer.headers["Content-Type"] == "application/problem+json", answer
    problem = json.loads(answer.body)
    assert problem["status"] == status and problem["code"] == code
    assert problem["type"] == f"urn:three-thirteen:problem:{code}"
    assert problem["title"] and problem["detail"]
    assert int(answer.headers["Content-Length"]) == len(answer.body)
    assert len(answer.headers["X-Request-ID"]) == 32
    assert answer.headers["Access-Control-Allow-Origin"] == "*"  # CORS_ORIGINS: * here


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_request_gunicorn_refuses_is_answered_as_a_problem(live_server: str,
                                                             name: str) -> None:
    request, status, code = REFUSED[name]
    if name == "10000-character-url":
        assert len(request.split(b" ")[1]) == 10_000
    assert_a_problem(raw_exchange(live_server, request), status, code)


def test_a_request_within_the_limits_still_reaches_the_service(live_server: str) -> None:
    """At the limits (100 header fields, one of 8,000 bytes, a 7,000-character URL) the
    app answers, not gunicorn."""
    answer = raw_exchange(live_server, b"GET /v1/rules/presets?q=" + b"a" * 7000
                          + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: "
                          + b"b" * 8000 + b"\r\n"
                          + b"".join(b"X-%d: v\r\n" % n for n in range(100)) + b"\r\n")
    assert answer.status == 200, answer.body[:300]


def test_the_gthread_worker_answers_refusals_as_problems_too(redis_server: str) -> None:
    """``WORKER_CLASS=gthread`` (kept for comparison) gets the same answers."""
    port = free_port()
    env = {**os.environ, "REDIS_URL": f"{redis_server}/6", "PORT": str(port),
           "WORKER_CLASS": "gthread", "WEB_CONCURRENCY": "1", "LOG_LEVEL": "warning"}
    proc = subprocess.Popen(
        [str(Path(sys.prefix) / "bin" / "gunicorn"), "-c", "deploy/gunicorn.conf.py",
         "service.app:create_app()"], cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: requests.get(f"{base}/healthz", timeout=1).ok, PATIENCE, "gunicorn")
        for name in ("malformed-request-line", "10000-character-url", "header-field-too-long"):
            request, status, code = REFUSED[name]
            assert_a_problem(raw_exchange(base, request), status, code)
    finally:
        proc.terminate()
        proc.wait(PATIENCE)
