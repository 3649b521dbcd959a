"""Redocly CLI's linter on the committed document, with the committed ruleset
(tests/contract/redocly/redocly.yaml: Redocly's recommended rules as errors, and a few
more). Skipped where npm is missing (.ci/run installs Node and npm).

Why a linter beside the 3.1 validator and test_openapi_resolves.py: it knows rules of
OpenAPI that neither checks, and it is what a reader of the document may run on it. It
runs offline: the package is one file locked by package-lock.json, installed once with
`npm ci` into tests/contract/redocly/node_modules, and its telemetry and update notice are
turned off.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent / "redocly"
DOCUMENT = HERE.parents[2] / "openapi" / "openapi.json"
NPM = shutil.which("npm")

pytestmark = pytest.mark.skipif(NPM is None, reason="npm is not installed (.ci/run installs "
                                "nodejs and npm); the OpenAPI lint needs it")

#: Nothing leaves the machine: no usage report, no look-up of a newer release.
OFFLINE = {"REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=HERE, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **OFFLINE})


@pytest.fixture(scope="module")
def redocly() -> Path:
    """`npm ci` unless node_modules already holds exactly the locked package."""
    installed = HERE / "node_modules" / ".package-lock.json"
    lock = HERE / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        done = _run(str(NPM), "ci", "--no-audit", "--no-fund")
        assert done.returncode == 0, done.stdout + done.stderr
    return HERE / "node_modules" / ".bin" / "redocly"


def lint(redocly: Path, document: Path) -> subprocess.CompletedProcess[str]:
    # --lint-config error: a rule the ruleset misspells is an error too, not a warning
    return _run(str(redocly), "lint", "--lint-config", "error", "--config", "redocly.yaml",
                "--format", "stylish", str(document))


def test_the_linter_finds_no_problem_in_the_document(redocly: Path) -> None:
    done = lint(redocly, DOCUMENT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in done.stdout, done.stdout


def test_the_linter_refuses_a_security_scheme_nobody_defined(
        redocly: Path, tmp_path: Path) -> None:
    """What the document had: operations naming an `accountKey` it never defined."""
    document = json.loads(DOCUMENT.read_text())
    del document["components"]["securitySchemes"]["accountKey"]
    broken = tmp_path / "openapi.json"
    broken.write_text(json.dumps(document, indent=2))
    done = lint(redocly, broken)
    assert done.returncode != 0
    assert "security-defined" in done.stdout and "`accountKey`" in done.stdout, done.stdout
