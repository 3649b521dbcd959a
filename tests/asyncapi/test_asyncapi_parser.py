"""openapi/asyncapi.json is valid AsyncAPI 3.0, as the AsyncAPI Initiative's own parser
reads it.

Why this tool: ``@asyncapi/parser`` (npm) is the reference implementation the AsyncAPI
tools are built on (the CLI, Studio, the generators). It checks a document against the
official JSON Schema of the specification (``@asyncapi/specs``, the schema the
specification's repository publishes), then what that schema cannot say: every
``$ref`` resolves, an operation sends only its channel's messages, each message's
payload and headers are valid in their schema format (AsyncAPI's JSON Schema draft 07
superset). All of it runs offline once installed: its rules and schemas ship in the
package. Python's ``jsonschema`` against the specs' JSON Schema alone would check the
first part only. Skipped where npm is missing (.ci/run installs Node).

The npm packages are locked by package-lock.json and installed once with ``npm ci``
into tests/asyncapi/node_modules (reused while the lock file is unchanged).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
DOCUMENT = HERE.parents[1] / "openapi" / "asyncapi.json"
NPM = shutil.which("npm")
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NPM is None or NODE is None, reason="node and npm are "
                                "not installed (.ci/run installs nodejs and npm); the "
                                "AsyncAPI parser runs on Node")


@pytest.fixture(scope="module")
def parser() -> Path:
    """`npm ci` unless node_modules already holds exactly the locked packages."""
    installed = HERE / "node_modules" / ".package-lock.json"
    lock = HERE / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        done = subprocess.run([str(NPM), "ci", "--no-audit", "--no-fund"], cwd=HERE,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stdout + done.stderr
    return HERE / "validate.mjs"


def diagnostics(script: Path, document: Path) -> tuple[int, list[dict[str, Any]]]:
    """The parser's exit status and its diagnostics of ``document``."""
    done = subprocess.run([str(NODE), str(script), str(document)], cwd=HERE,
                          capture_output=True, text=True, timeout=120)
    assert not done.stderr, done.stderr
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()]


def test_the_document_is_valid_asyncapi_3_0(parser: Path) -> None:
    status, found = diagnostics(parser, DOCUMENT)
    assert status == 0, found
    # no error, no warning; the one note: 3.1.0 exists (the contract says 3.0)
    assert [d["code"] for d in found] == ["asyncapi-latest-version"], found


def test_the_parser_refuses_the_openapi_form_of_a_discriminator(
        parser: Path, tmp_path: Path) -> None:
    """What the document's one rewrite of the OpenAPI schemas is for: an OpenAPI
    ``discriminator`` object left as it is makes the document invalid AsyncAPI."""
    document = json.loads(DOCUMENT.read_text())
    note = document["components"]["schemas"]["AccountNote"]
    note["discriminator"] = {"propertyName": note["discriminator"]}
    broken = tmp_path / "asyncapi.json"
    broken.write_text(json.dumps(document))
    status, found = diagnostics(parser, broken)
    assert status == 1
    assert any(d["severity"] == "Error" and d["path"] == "components/schemas/AccountNote"
               for d in found), found


def test_the_parser_refuses_a_message_of_another_channel(parser: Path, tmp_path: Path) -> None:
    document = json.loads(DOCUMENT.read_text())
    document["operations"]["streamGame"]["messages"].append(
        {"$ref": "#/channels/accountStream/messages/noteLine"})
    broken = tmp_path / "asyncapi.json"
    broken.write_text(json.dumps(document))
    status, found = diagnostics(parser, broken)
    assert status == 1
    assert "asyncapi3-operation-messages-from-referred-channel" in {d["code"] for d in found}
