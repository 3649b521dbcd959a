"""`python -m service.conformance`: passes against the suite's own server, and fails,
naming the check, against a server with one defect injected by the test (a view response
without `Vary`: a shared cache could then hand one seat's view to another bearer)."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest
from flask import Response, request
from werkzeug.serving import make_server

from service.app import create_app
from service.config import Config
from tests.conftest import free_port, redis_url_for_tests


def _conformance(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "service.conformance", "--url", url, *args],
                          capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_the_conformance_command_passes_against_the_suites_own_server(live_server: str) -> None:
    """Every check but schemathesis: its row runs ``schemathesis_args``, the very command
    tests/contract/test_schemathesis.py runs at 40 examples against the same server
    settings. Here, at fewer, it would repeat that test's deterministic examples and
    coverage phases (about 40 s) and show nothing new."""
    done = _conformance(live_server, "--skip", "schemathesis")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    for check in ("document", "secrecy", "if-match 412", "idempotent retry",
                  "view cache headers", "full game: bga", "full game: classic",
                  "full game: family"):
        assert f"{check} " in done.stdout
    assert done.stdout.strip().splitlines()[-1].endswith(" passed, 0 failed"), done.stdout


def test_the_read_only_subset_creates_no_game(live_server: str) -> None:
    done = _conformance(live_server, "--no-writes", "--skip", "schemathesis")
    assert done.returncode == 0, done.stdout
    assert "full game" not in done.stdout and "secrecy" not in done.stdout
    assert "document " in done.stdout and "problems (read-only) " in done.stdout


@pytest.fixture
def server_without_vary(redis_server: str) -> Iterator[str]:
    """The app, with one defect: views (GET /v1/games/<id>) lose their `Vary` header."""
    app = create_app(Config(redis_url=redis_url_for_tests(redis_server, 4), rate_limit="off",
                            rate_limit_per_address="off", stream_max_seconds=2))

    @app.after_request
    def _drop_vary(response: Response) -> Response:
        if request.method == "GET" and request.path.count("/") == 3:  # /v1/games/<id>
            del response.headers["Vary"]
        return response

    port = free_port()
    server = make_server("127.0.0.1", port, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.shutdown()


def test_the_conformance_command_fails_naming_the_check_a_server_breaks(
        server_without_vary: str) -> None:
    done = _conformance(server_without_vary, "--skip", "schemathesis", "--skip", "full game")
    assert done.returncode == 1, done.stdout
    rows = {line.split("  ")[0].strip(): line for line in done.stdout.splitlines()}
    assert "FAIL" in rows["view cache headers"] and "Vary" in rows["view cache headers"]
    assert "FAIL" not in rows["secrecy"] and "FAIL" not in rows["if-match 412"]
    assert "1 failed" in done.stdout
