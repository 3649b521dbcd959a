"""deploy/nginx.conf run for real (the system's nginx) in front of the live gunicorn.

The file is used as shipped except what only the deployment knows: the upstream
address (``api:8000`` in compose), the listening port, and the pid and temporary
paths (a test's own folder). Checked: a request passes and an answer comes back
whole; a body over MAX_BODY_BYTES is refused by nginx as problem+json; the client's
address is appended to X-Forwarded-For; the stream path's first bytes arrive while the
upstream is still writing, and only the stream path (its own location, anchored
regex, long read timeout) outlives the read timeout of the rest. A small upstream of
the test's own dribbles those answers (two parts, a pause between), so the checks hold
for any stream the service serves there. (nginx 1.22 also forwards early bytes of a
small answer with buffering on, so ``proxy_buffering off`` itself is checked offline,
in tests/ops/test_deploy_files.py.) Skipped, with the reason, when nginx is not
installed (``apt-get install nginx``).
"""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests

from tests.conftest import PATIENCE, ROOT, free_port, wait_until
from tests.ops.raw_http import raw_exchange

#: How long the dribbling upstream pauses between its first bytes and the rest.
PAUSE_SECONDS = 4  # far from the 1 s read timeout below, on a loaded machine too


def nginx_binary() -> str:
    path = shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if Path(p).is_file()), None)
    if path is None:
        pytest.skip("nginx is not installed (apt-get install nginx): deploy/nginx.conf is "
                    "checked offline only (tests/ops/test_deploy_files.py)")
    return path


def start_nginx(workdir: Path, upstream: str, read_timeout: str | None = None,
                push: str | None = None) -> tuple[subprocess.Popen[bytes], str]:
    """nginx with deploy/nginx.conf, its upstream at ``upstream`` and its push upstream at
    ``push`` (the same as ``upstream`` unless given); the base URL. ``read_timeout``
    replaces the server-wide ``proxy_read_timeout`` (not the stream's)."""
    port = free_port()
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "server api:8000;" in conf and "server push:8001;" in conf
    assert "listen 8080;" in conf
    temp = "".join(f"    {name}_temp_path {workdir / name};\n"
                   for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    conf = (conf.replace("server api:8000;", f"server {upstream};")
            .replace("server push:8001;", f"server {push or upstream};")
            .replace("listen 8080;", f"listen 127.0.0.1:{port};")
            .replace("http {\n", "http {\n" + temp, 1))
    if read_timeout is not None:
        assert conf.count("proxy_read_timeout 40s;") == 1
        conf = conf.replace("proxy_read_timeout 40s;", f"proxy_read_timeout {read_timeout};")
    path = workdir / "nginx.conf"
    path.write_text(conf)
    proc = subprocess.Popen(
        [nginx_binary(), "-p", str(workdir), "-c", str(path),
         "-g", f"daemon off; pid {workdir / 'nginx.pid'}; error_log stderr warn;"],
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: socket.create_connection(("127.0.0.1", port), timeout=1), PATIENCE,
                   "nginx")
    except BaseException:
        proc.kill()
        raise
    return proc, base


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(PATIENCE)


class Dribble(BaseHTTPRequestHandler):
    """An upstream that writes a chunked answer in two parts, ``PAUSE_SECONDS`` apart,
    and echoes the X-Forwarded-For it was given."""

    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        first = json.dumps({"xff": self.headers.get("X-Forwarded-For")}).encode() + b"\n"
        for part, pause in ((first, PAUSE_SECONDS), (b'{"end": true}\n', 0)):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
            self.wfile.flush()
            time.sleep(pause)
        self.wfile.write(b"0\r\n\r\n")

    def log_message(self, *args: object) -> None:
        pass


class Named(BaseHTTPRequestHandler):
    """An upstream that answers every request with its own name and what it was asked."""

    protocol_version = "HTTP/1.1"
    name = ""

    def _answer(self) -> None:
        body = json.dumps({"upstream": self.name, "method": self.command,
                           "target": self.path}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_OPTIONS = do_DELETE = _answer

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def named_upstream(name: str) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), type(name, (Named,), {"name": name}))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def dribbling_upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Dribble)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[Callable[[str], str]]:
    """``proxy(upstream, read_timeout=None, push=None)``: the base URL of nginx in front of
    ``upstream`` (and of ``push`` for the waiting requests)."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(upstream: str, read_timeout: str | None = None, push: str | None = None) -> str:
        workdir = tmp_path / f"nginx{len(procs)}"
        workdir.mkdir()
        proc, base = start_nginx(workdir, upstream, read_timeout, push)
        procs.append(proc)
        return base

    yield start
    for proc in procs:
        stop(proc)


def test_a_request_passes_through_nginx_to_gunicorn_and_back(live_server: str, proxy) -> None:
    base = proxy(live_server.removeprefix("http://"))
    r = requests.get(f"{base}/v1/rules/presets", timeout=5)
    assert r.status_code == 200
    assert r.json() == requests.get(f"{live_server}/v1/rules/presets", timeout=5).json()
    created = requests.post(f"{base}/v1/games", timeout=5,
                            json={"players": [{"name": "ann"}, {"name": "bob"}]})
    assert created.status_code == 201
    game_id = created.json()["game_id"]
    version = created.json()["state"]["version"]
    # a long-poll through the proxy ends at the service's cap (1 s here), not nginx's
    started = time.monotonic()
    polled = requests.get(f"{base}/v1/games/{game_id}?wait_version={version}&timeout=1",
                          timeout=PATIENCE)
    assert polled.status_code == 200 and polled.json()["version"] == version
    assert 0.9 < time.monotonic() - started < 20  # (nginx's would be a 504, after 40 s)


def test_a_body_over_max_body_bytes_is_refused_by_nginx_as_a_problem(
    live_server: str, proxy,
) -> None:
    base = proxy(live_server.removeprefix("http://"))
    r = requests.post(f"{base}/v1/games", data=b"x" * (64 * 1024 + 1), timeout=5,
                      headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert r.headers["Content-Type"].startswith("application/problem+json")
    assert r.json()["code"] == "body_too_large"


def test_the_stream_path_is_passed_through_unbuffered_with_the_client_address_appended(
    dribbling_upstream: str, proxy,
) -> None:
    base = proxy(dribbling_upstream)
    started = time.monotonic()
    with requests.get(f"{base}/v1/games/abc/stream", stream=True, timeout=10,
                      headers={"X-Forwarded-For": "203.0.113.7"}) as r:
        lines = r.iter_lines()
        first = json.loads(next(lines))
        first_at = time.monotonic() - started
        rest = [json.loads(line) for line in lines if line]
        end_at = time.monotonic() - started
    assert first == {"xff": "203.0.113.7, 127.0.0.1"}
    assert rest == [{"end": True}]
    assert first_at < PAUSE_SECONDS / 2 < PAUSE_SECONDS <= end_at, (first_at, end_at)


def test_only_the_stream_path_outlives_the_proxy_read_timeout_of_the_rest(
    dribbling_upstream: str, proxy,
) -> None:
    """With the server-wide read timeout cut to 1 s (well below the upstream's pause),
    an answer on any other path is cut off at the pause, while the stream paths, matched
    by their own locations with their long read timeouts, get all of it."""
    base = proxy(dribbling_upstream, read_timeout="1s")

    def lines(path: str) -> list[bytes]:
        got: list[bytes] = []
        with requests.get(f"{base}{path}", stream=True, timeout=10) as r, \
                contextlib.suppress(requests.exceptions.ChunkedEncodingError):
            for line in r.iter_lines():  # (cut: nginx gave up on the upstream mid-answer)
                got += [line] if line else []
        return got

    assert len(lines("/v1/games/abc/events")) == 1
    assert len(lines("/v1/games/abc/stream")) == 2
    assert len(lines("/v1/me/stream")) == 2
    assert len(lines("/v1/games/abc/stream/x")) == 1  # the regex is anchored


def test_the_waiting_requests_go_to_the_push_processes_and_the_rest_to_the_api(proxy) -> None:
    """Every stream, a game's view asked with ``wait_version`` or ``wait`` by a GET, and
    a game's events or a seek asked by a GET with a ``timeout`` that waits (the
    long-polls) reach the push upstream, query and all; the same without a wait, any
    other method (CORS's preflight too; a seek's ``DELETE``, and a seek opened with a
    timeout) and every other path reach the api."""
    with named_upstream("api") as api, named_upstream("push") as push:
        base = proxy(api, push=push)
        cases = [
            ("GET", "/v1/games/abc/stream", "push"),
            ("GET", "/v1/games/abc/stream?after=3&ticket=t", "push"),
            ("GET", "/v1/games/abc?wait_version=4", "push"),
            ("GET", "/v1/games/abc?wait=turn", "push"),
            ("GET", "/v1/games/abc?version=2&wait_version=4", "push"),
            ("GET", "/v1/games/abc", "api"),
            ("GET", "/v1/games/abc?version=2", "api"),
            ("GET", "/v1/games/abc?wait_version=", "api"),
            ("OPTIONS", "/v1/games/abc?wait_version=4", "api"),
            ("POST", "/v1/games/abc/actions", "api"),
            ("GET", "/v1/games/abc/events?after=0", "api"),
            ("GET", "/v1/games/abc/events?after=4&timeout=30", "push"),
            ("GET", "/v1/games/abc/events?timeout=0.5", "push"),
            ("GET", "/v1/games/abc/events?timeout=x", "push"),
            ("GET", "/v1/games/abc/events?timeout=0", "api"),
            ("GET", "/v1/games/abc/events?timeout=0.0", "api"),
            ("GET", "/v1/games/abc/events?timeout=", "api"),
            ("OPTIONS", "/v1/games/abc/events?timeout=30", "api"),
            ("GET", "/v1/games/abc/events/x?timeout=30", "api"),
            ("GET", "/v1/me/stream", "push"),
            ("GET", "/v1/me/stream?ticket=t&after=2", "push"),
            ("OPTIONS", "/v1/me/stream", "api"),
            ("GET", "/v1/me/stream-tickets", "api"),
            ("GET", "/v1/seeks/s.2.x?timeout=30", "push"),
            ("GET", "/v1/seeks/s.2.x", "api"),
            ("GET", "/v1/seeks/s.2.x?timeout=0", "api"),
            ("DELETE", "/v1/seeks/s.2.x?timeout=30", "api"),
            ("POST", "/v1/seeks?timeout=30", "api"),
            ("GET", "/v1/games", "api"),
            ("POST", "/v1/streams/games", "push"),
            ("POST", "/v1/streams/games/s1/add", "push"),
            ("POST", "/v1/streams/games/s1/remove", "push"),
        ]
        for method, target, expected in cases:
            r = requests.request(method, f"{base}{target}", timeout=10)
            assert r.status_code == 200, (method, target, r.text)
            assert r.json() == {"upstream": expected, "method": method, "target": target}


@pytest.mark.parametrize(("request_bytes", "status", "code"), [
    (b"GET /v1/rules/presets?" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n", 414,
     "request_line_too_long"),
    (b"GET /v1/rules/presets HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 9000 + b"\r\n\r\n", 431,
     "header_fields_too_large"),
    (b"GET /v1/rules/presets HTTP/1.1\r\nHost: x\r\n"
     + b"".join(b"X-%d: " % n + b"c" * 7500 + b"\r\n" for n in range(5)) + b"\r\n", 431,
     "header_fields_too_large"),
    (b"GARBAGE\r\n\r\n", 400, "bad_request"),
    (b"GET /v1/rules/presets HTTP/1.1\r\nHost: x\r\n"
     + b"".join(b"X-%d: v\r\n" % n for n in range(150)) + b"Connection: close\r\n\r\n", 200,
     None),
    (b"BREW /v1/rules/presets HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405,
     "method_not_allowed"),
], ids=["long-request-line", "long-header", "over-32-kb-of-headers", "malformed", "many-headers",
        "unknown-method"])
def test_every_answer_through_nginx_is_problem_json_even_for_what_gunicorn_would_refuse(
    live_server: str, proxy, request_bytes: bytes, status: int, code: str | None,
) -> None:
    """Request lines and headers past gunicorn's own limits are answered by nginx, as
    problems with the codes gunicorn's refusals have (tests/ops/test_gunicorn_refusals.py);
    many headers (past gunicorn's default 100) pass through to the service."""
    base = proxy(live_server.removeprefix("http://"))
    answer = raw_exchange(base, request_bytes)
    assert answer.status == status, answer.body[:300]
    if code is not None:
        assert answer.headers["Content-Type"] == "application/problem+json", answer
        assert json.loads(answer.body)["status"] == status
        assert json.loads(answer.body)["code"] == code


def test_a_gunicorn_that_is_down_is_a_503_problem_through_nginx(proxy) -> None:
    base = proxy(f"127.0.0.1:{free_port()}")  # nothing listens there
    r = requests.get(f"{base}/v1/rules/presets", timeout=10)
    assert r.status_code == 503 and r.headers["Content-Type"] == "application/problem+json"
    assert r.json()["code"] == "service_unavailable" and r.headers["Retry-After"] == "5"
