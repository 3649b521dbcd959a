"""Generate the Go client from openapi/openapi.json with OpenAPI Generator and build
openapi/go/main.go against it, offline: ``python openapi/go/build.py OUT`` (``make
go-client`` builds into openapi/go/build/, which git ignores).

What it leaves in OUT: ``openapi.json`` (the generator's copy of the document),
``src/threethirteen/`` (the generated package), and ``play``, the program.

Nothing generated is committed: the package is made again from the committed document
on every build, so it cannot drift from it. The generator is PyPI's
``openapi-generator-cli`` (the dev extra), which bundles OpenAPI Generator's jar and runs
it on the machine's Java. The Go side is built in GOPATH mode, on Debian's Go and its
``golang-gopkg-validator.v2-dev`` (in /usr/share/gocode), the one package the generated
code imports beyond the standard library: no module proxy is asked for anything.

The generator's copy differs from the document in three places, each a limit of the
generator rather than of the document, and checked to be exactly what is expected (a
changed document stops the build here rather than building something else):

* ``x-oai-itemSchema`` is left out. The OpenAPI Initiative registered it for 3.1
  documents (it is 3.2's ``itemSchema``, a stream's item), but the generator's parser
  refuses every ``x-oai-`` key of a 3.1 document as reserved, and with it the whole
  document unless validation is skipped. The Go client has no use for it (it reads no
  streams), so the rest of the document is validated as the generator would any other.
* The solve request's body, ``allOf: [SolveRequest]`` with a ``oneOf`` saying that
  exactly one of ``wild_rank`` and ``round`` is given, is sent as ``SolveRequest``: the
  Go generator has no type for a body that combines the two (it writes
  ``UNKNOWN_BASE_TYPE``, which does not compile), and its normalizer's rules for
  ``allOf`` and ``oneOf`` do not change that. The server still refuses a body with both
  or neither (422).
* ``webhooks`` are left out. The generator writes each webhook as a call the client
  makes, into the file of the webhook's tag (``me``), where it replaces the ``/v1/me``
  operations of that tag instead of joining them: the client would lose ``getMe`` and
  seven others and gain three calls it can never make (the service sends webhooks; a
  client receives them, on its own server).

The options: ``null`` types (a waiting seek's ``game_id``, a bot seat's ``token``) are
``interface{}``, as the generator's 3.1 support (beta) otherwise writes ``nil``, which is
no Go type; ``useOneOfDiscriminatorLookup`` decodes a union on its discriminator
(``status``, ``kind``, ``type``) instead of trying each variant in turn.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DOCUMENT = HERE.parent / "openapi.json"
PACKAGE = "threethirteen"
#: Where Debian's Go packages (golang-*-dev) put their sources: a GOPATH entry.
DEBIAN_GOPATH = Path("/usr/share/gocode")
VALIDATOR = Path("src/gopkg.in/validator.v2")


def generator_document(document: dict[str, Any]) -> dict[str, Any]:
    """The document as the generator is given it (the module docstring says why)."""
    copy: dict[str, Any] = json.loads(json.dumps(document))
    dropped = _drop_item_schemas(copy)
    assert dropped, "the document no longer has x-oai-itemSchema: drop this step"
    body = copy["paths"]["/v1/solve"]["post"]["requestBody"]["content"]["application/json"]
    schema = body["schema"]
    assert set(schema) == {"allOf", "oneOf"} and schema["allOf"] == [
        {"$ref": "#/components/schemas/SolveRequest"}], schema
    body["schema"] = schema["allOf"][0]
    assert copy.pop("webhooks", None), "the document no longer has webhooks: drop this step"
    return copy


def _drop_item_schemas(node: Any) -> int:
    dropped = 0
    if isinstance(node, dict):
        dropped += node.pop("x-oai-itemSchema", None) is not None
        for value in node.values():
            dropped += _drop_item_schemas(value)
    elif isinstance(node, list):
        for value in node:
            dropped += _drop_item_schemas(value)
    return dropped


def generator() -> str:
    """PyPI's openapi-generator-cli beside this Python (the venv), else on PATH."""
    beside = Path(sys.executable).parent / "openapi-generator-cli"
    found = str(beside) if beside.exists() else shutil.which("openapi-generator-cli")
    if found is None:
        raise SystemExit("openapi-generator-cli is not installed: pip install -e '.[dev]'")
    return found


def gopath(out: Path) -> str:
    """OUT (the generated package) and every GOPATH entry that has validator.v2."""
    entries = [out]
    for entry in [DEBIAN_GOPATH, *map(Path, os.environ.get("GOPATH", "").split(os.pathsep))]:
        if str(entry) not in ("", ".") and (entry / VALIDATOR).is_dir() and entry not in entries:
            entries.append(entry)
    if len(entries) == 1:
        raise SystemExit("gopkg.in/validator.v2 is not in any GOPATH: apt-get install "
                         "golang-gopkg-validator.v2-dev")
    return os.pathsep.join(map(str, entries))


def generate(out: Path) -> Path:
    """The package in OUT/src/threethirteen, made again from the committed document."""
    out.mkdir(parents=True, exist_ok=True)
    copy = out / "openapi.json"
    copy.write_text(json.dumps(generator_document(json.loads(DOCUMENT.read_text()))))
    package = out / "src" / PACKAGE
    shutil.rmtree(package, ignore_errors=True)
    _run([generator(), "generate", "-g", "go", "-i", str(copy), "-o", str(package),
          "--type-mappings=null=interface{}",
          f"--additional-properties=packageName={PACKAGE},withGoMod=false,"
          "useOneOfDiscriminatorLookup=true",
          # the Go sources only: no Markdown pages, no test stubs, no git_push.sh
          "--global-property=apiDocs=false,modelDocs=false,apiTests=false,modelTests=false"])
    return package


def build(out: Path) -> Path:
    """OUT/play from main.go and the generated package (GOPATH mode: offline)."""
    program = out / "play"
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": gopath(out), "GOFLAGS": "",
           "GOPROXY": "off", "GOTOOLCHAIN": "local",
           "GOCACHE": os.environ.get("GOCACHE") or str(out / "gocache")}
    _run(["go", "build", "-o", str(program), str(HERE / "main.go")], env=env)
    return program


def _run(args: list[str], env: dict[str, str] | None = None) -> None:
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args[:3])}… failed:\n{done.stdout[-6000:]}"
                         f"{done.stderr[-6000:]}")


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else HERE / "build").resolve()
    generate(out)
    print(build(out))


if __name__ == "__main__":
    main()
