"""The Go client OpenAPI Generator makes from openapi/openapi.json, built and run as its
users would.

openapi/go/build.py (also `make go-client`) generates the package again from the
committed document, through the generator's own validation of it, and builds
openapi/go/main.go against it offline (GOPATH mode, Debian's Go and validator.v2); the
program then plays a whole game against the reference `greedy` bot on a real gunicorn and
redis-server (tests/conftest.py's `live_server`), and the game it names is finished, with
the totals and winners it printed.

Skipped only where Java, Go or Debian's gopkg.in/validator.v2 is missing (.ci/run
installs them); PyPI's openapi-generator-cli, which runs the generator, is in the dev
extra.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "openapi" / "go" / "build.py"


def _load_build() -> ModuleType:
    """openapi/go/build.py as a module (it is a script, not part of a package)."""
    spec = importlib.util.spec_from_file_location("go_client_build", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BUILD = _load_build()
MISSING = [what for what, there in (
    ("java (Debian's default-jre-headless)", shutil.which("java")),
    ("go (Debian's golang-go)", shutil.which("go")),
    ("gopkg.in/validator.v2 (Debian's golang-gopkg-validator.v2-dev)",
     (BUILD.DEBIAN_GOPATH / BUILD.VALIDATOR).is_dir()),
) if not there]
needs_go = pytest.mark.skipif(
    bool(MISSING), reason=f"{', '.join(MISSING)} not installed (.ci/run installs them); the "
    "Go client is generated with Java and built with Go")


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package generated afresh and the program built, as `make go-client` does."""
    out = tmp_path_factory.mktemp("go-client")
    done = subprocess.run([sys.executable, str(SCRIPT), str(out)], capture_output=True,
                          text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert done.stdout.strip() == str(out / "play")
    return out / "play"


@needs_go
def test_the_go_program_plays_a_whole_game_against_the_greedy_bot(
        program: Path, live_server: str) -> None:
    import requests

    done = subprocess.run([str(program), live_server], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    first, *totals, winners = done.stdout.splitlines()
    game_id = first.removeprefix("game: ")
    view = requests.get(f"{live_server}/v1/games/{game_id}", timeout=10).json()
    assert view["status"] == "finished", view
    names = ["go-bot", "greedy"]
    assert totals == [f"{name}: {player['total']}"
                      for name, player in zip(names, view["players"], strict=True)]
    assert winners == "winners: " + ", ".join(names[seat] for seat in view["winners"])
    assert len(view["players"][0]["round_scores"]) == len(view["rules"]["hand_sizes"])


@needs_go
def test_the_generated_package_covers_every_operation_of_the_document(program: Path) -> None:
    """Each operation is a method of the generated client, so none was dropped on the way
    (the generator skips what it cannot read, with only a warning)."""
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    operations = [op["operationId"] for item in document["paths"].values()
                  for op in item.values() if isinstance(op, dict) and "operationId" in op]
    package = program.parent / "src" / "threethirteen"
    source = "\n".join(path.read_text() for path in package.glob("api_*.go"))
    methods = set(re.findall(r"^func \(a \*\w+APIService\) (\w+)Execute\(", source, re.M))
    assert len(operations) > 40
    assert {op[0].upper() + op[1:] for op in operations} == methods


def _without_item_schemas(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _without_item_schemas(v) for k, v in node.items() if k != "x-oai-itemSchema"}
    if isinstance(node, list):
        return [_without_item_schemas(v) for v in node]
    return node


def test_the_generators_copy_differs_from_the_document_only_where_build_py_says() -> None:
    """Only the three changes build.py's docstring gives, each to what the document says
    next to it: its streams' item schemas dropped, the solve body's `oneOf` dropped, its
    webhooks dropped."""
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    copy = BUILD.generator_document(document)
    assert "x-oai-itemSchema" in json.dumps(document)
    assert "x-oai-itemSchema" not in json.dumps(copy)
    solve = ["paths", "/v1/solve", "post", "requestBody", "content", "application/json",
             "schema"]
    expected = _without_item_schemas(document)
    node = expected
    for key in solve[:-1]:
        node = node[key]
    assert set(node["schema"]) == {"allOf", "oneOf"}
    node["schema"] = {"$ref": "#/components/schemas/SolveRequest"}
    assert set(expected.pop("webhooks")) == {"challenge", "game_finished", "your_turn"}
    assert copy == expected
