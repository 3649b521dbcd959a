"""The TypeScript client in openapi/typescript, built and run as its users would.

Its types are generated again from the committed openapi/openapi.json (openapi-typescript)
and the client, its tests and its bot example type-check against them (`tsc --noEmit`,
strict); then, compiled, the bot example plays a whole game against the reference
`greedy` bot on a real gunicorn and redis-server (tests/conftest.py's `live_server`,
whose streams end every 2 s, so the bot's stream is resumed several times a game), and
the client's own tests (openapi/typescript/test: framing, retries, the errors it throws,
and the live ones: both stream formats, a dropped stream resumed, If-Match and
Idempotency-Key, a refusal thrown as a ProblemError, a seat away for two clocks brought
back, a 429's Retry-After) pass against the same service; and the account bot example,
run on an account's key, accepts another account's challenge and moves.

Skipped only where Node or npm is missing (.ci/run installs them). The npm packages are
locked by package-lock.json and installed with `npm ci` into node_modules, reused while
the lock file is unchanged.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.bots.challenger import register, run_challenged
from tests.conftest import ROOT

HERE = ROOT / "openapi" / "typescript"
NODE = shutil.which("node")
NPM = shutil.which("npm")

pytestmark = pytest.mark.skipif(
    NODE is None or NPM is None,
    reason="node and npm are not installed (.ci/run installs nodejs and npm); the TypeScript "
    "client needs them")


def _run(*args: str, env: dict[str, str] | None = None,
         timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(args), cwd=HERE, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def _ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return done.stdout


@pytest.fixture(scope="module")
def bin_dir() -> Path:
    """`npm ci` unless node_modules already holds exactly the locked packages."""
    installed = HERE / "node_modules" / ".package-lock.json"
    lock = HERE / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        _ok(_run(str(NPM), "ci", "--no-audit", "--no-fund"))
    return HERE / "node_modules" / ".bin"


@pytest.fixture(scope="module")
def generated(bin_dir: Path) -> Path:
    """src/generated/api.ts made again from the committed document (`npm run generate`)."""
    out = HERE / "src" / "generated" / "api.ts"
    out.unlink(missing_ok=True)
    _ok(_run(str(bin_dir / "openapi-typescript"), "../openapi.json", "-o", str(out)))
    return out


@pytest.fixture(scope="module")
def compiled(bin_dir: Path, generated: Path) -> subprocess.CompletedProcess[str]:
    """The client, its tests and the bot example compiled into dist/ (`npm run build`):
    one `tsc` run, which type-checks every file exactly as `tsc --noEmit` (`make
    typecheck`) does before it writes anything (a whole check takes tens of seconds on a
    busy 2-core machine: it is run once)."""
    return _run(str(bin_dir / "tsc"), "-p", ".", "--noEmit", "false")


@pytest.fixture(scope="module")
def built(compiled: subprocess.CompletedProcess[str]) -> Path:
    _ok(compiled)
    return HERE / "dist"


def test_the_types_generated_from_the_committed_document_type_check_the_client_and_its_bot(
        generated: Path, compiled: subprocess.CompletedProcess[str]) -> None:
    assert "export interface paths" in generated.read_text()
    assert _ok(compiled) == ""  # no diagnostic
    assert (HERE / "dist" / "examples" / "bot.js").is_file()
    assert (HERE / "dist" / "examples" / "account-bot.js").is_file()


def test_the_bot_example_plays_a_whole_game_against_the_greedy_bot(
        built: Path, live_server: str) -> None:
    out = _ok(_run(str(NODE), str(built / "examples" / "bot.js"), live_server, timeout=300))
    lines = out.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["my-bot", "greedy"], out
    assert all(re.fullmatch(r"[\w-]+: \d+", line) for line in lines[:2]), out
    assert re.fullmatch(r"winners: (my-bot|greedy)(, (my-bot|greedy))?", lines[2]), out


def test_the_account_bot_example_accepts_a_challenge_and_moves(
        built: Path, live_server: str, tmp_path: Path) -> None:
    """Run as docs/clients.md says, on its key alone; the service's streams end every 2 s,
    so it reads its games and challenges again several times while it waits."""
    handle, key = register(live_server, "ts-bot", bot=True)
    _, printed = run_challenged([str(NODE), str(built / "examples" / "account-bot.js")], HERE,
                                live_server, handle, key, tmp_path / "out.txt")
    assert re.fullmatch(r'\S+ v\d+: \{"type":"draw","source":"stock"\}', printed[0]), printed


def test_the_clients_own_tests_pass_against_the_running_service(
        built: Path, live_server: str) -> None:
    tests = sorted(str(p) for p in (built / "test").glob("*.test.js"))
    assert len(tests) >= 3
    done = _run(str(NODE), "--test", "--test-reporter=tap", *tests, env={"THREE_THIRTEEN_URL": live_server},
                timeout=300)
    out = _ok(done)
    assert re.search(r"^# fail 0$", out, re.M) and re.search(r"^# skipped 0$", out, re.M), out
    passed = re.search(r"^# pass (\d+)$", out, re.M)
    assert passed is not None and int(passed.group(1)) >= 28, out


@pytest.mark.parametrize("example", ["bot.ts", "account-bot.ts"])
def test_the_bot_in_docs_clients_md_is_the_example_file_as_it_is(example: str) -> None:
    """The page shows the bots the tests above run, not copies that may drift."""
    blocks = re.findall(r"```ts\n(.*?)```", (ROOT / "docs" / "clients.md").read_text(), re.S)
    assert (HERE / "examples" / example).read_text() in blocks
