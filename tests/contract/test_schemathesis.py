"""schemathesis against a live gunicorn: every check, positive and negative data, stateful links.

The run follows the OpenAPI links from game creation to viewing, acting as each
seat, reading events and claiming seats. Every check runs except ``ignored_auth``
(it takes the link-supplied seat tokens for generated ones; see ``schemathesis.toml``,
which also lists the few expected-status allowances and why). Zero failures are allowed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.slow
def test_schemathesis_finds_no_failure_against_the_live_server(live_server: str) -> None:
    st = Path(sys.prefix) / "bin" / "st"
    result = subprocess.run(
        [str(st), "--config-file", str(HERE / "schemathesis.toml"), "run",
         f"{live_server}/openapi.json",
         "--checks", "all", "--exclude-checks", "ignored_auth", "--mode", "all", "--max-examples", "40", "--seed", "13",
         "--phases", "examples,coverage,fuzzing,stateful",
         "--request-timeout", "10", "--no-color", "--generation-database", "none"],
        capture_output=True, text=True, timeout=600,
    )
    tail = result.stdout[-6000:]
    assert result.returncode == 0, tail
    assert "Stateful" in result.stdout and "API Links" in result.stdout
