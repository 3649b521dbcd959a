"""The document as a TypeScript compiler sees it: types generated from openapi/openapi.json
with openapi-typescript, and tests/typescript/play.ts (create a game, follow its NDJSON
stream, play narrowed legal actions, read typed events and problem codes) type-checked by
`tsc --noEmit` in strict mode. Skipped where npm is missing (.ci/run installs Node).

The npm packages are locked by package-lock.json and installed once with `npm ci` into
tests/typescript/node_modules (reused while the lock file is unchanged).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
DOCUMENT = HERE.parents[1] / "openapi" / "openapi.json"
NPM = shutil.which("npm")

pytestmark = pytest.mark.skipif(NPM is None, reason="npm is not installed (.ci/run installs "
                                "nodejs and npm); the TypeScript check needs it")


def _run(*args: str, cwd: Path = HERE) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def npm_packages() -> Path:
    """`npm ci` unless node_modules already holds exactly the locked packages."""
    installed = HERE / "node_modules" / ".package-lock.json"
    lock = HERE / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        done = _run(str(NPM), "ci", "--no-audit", "--no-fund")
        assert done.returncode == 0, done.stdout + done.stderr
    return HERE / "node_modules" / ".bin"


def _generate(bin_dir: Path, document: Path, out: Path) -> None:
    done = _run(str(bin_dir / "openapi-typescript"), str(document), "-o", str(out))
    assert done.returncode == 0, done.stdout + done.stderr


def _typecheck(bin_dir: Path, project: Path) -> subprocess.CompletedProcess[str]:
    return _run(str(bin_dir / "tsc"), "--noEmit", "-p", str(project))


def test_the_client_script_type_checks_against_types_generated_from_the_document(
        npm_packages: Path) -> None:
    _generate(npm_packages, DOCUMENT, HERE / "generated" / "api.d.ts")
    done = _typecheck(npm_packages, HERE)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_check_fails_when_the_document_makes_an_optional_field_required(
        npm_packages: Path, tmp_path: Path) -> None:
    """What the check exists to catch: `default: null` on the create body's `seed` (the
    generator then reads it as always present) stops play.ts from compiling."""
    document = json.loads(DOCUMENT.read_text())
    document["components"]["schemas"]["CreateGameRequest"]["properties"]["seed"]["default"] = None
    broken = tmp_path / "openapi.json"
    broken.write_text(json.dumps(document))
    project = tmp_path / "project"
    (project / "generated").mkdir(parents=True)
    _generate(npm_packages, broken, project / "generated" / "api.d.ts")
    shutil.copy(HERE / "play.ts", project / "play.ts")
    (project / "node_modules").symlink_to(HERE / "node_modules")
    shutil.copy(HERE / "tsconfig.json", project / "tsconfig.json")
    done = _typecheck(npm_packages, project)
    assert done.returncode != 0
    assert "seed" in done.stdout and "play.ts" in done.stdout, done.stdout
