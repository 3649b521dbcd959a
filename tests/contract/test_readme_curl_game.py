"""The README's curl game runs as printed against a live gunicorn, and prints what it says.

Why run the text itself: the front door is the first thing a newcomer copies, and a
copy kept in a test would drift from it silently. The block is cut into its commands
(a command is its line plus any ``\\`` continuations); each ``# →`` line under a command
is one line that command must print, exactly. Comments are left to bash.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import ROOT

ARROW = "# → "


@dataclass
class Step:
    command: str
    expected: list[str] = field(default_factory=list)


def curl_game() -> str:
    """The README's sh block that plays the game (the one that sets ``API=``)."""
    blocks = re.findall(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    (game,) = [b for b in blocks if b.startswith("API=")]
    return game


def steps(block: str) -> list[Step]:
    found: list[Step] = []
    lines = iter(block.splitlines())
    for line in lines:
        if line.startswith(ARROW):
            assert found, "an expected output comes after a command"
            found[-1].expected.append(line.removeprefix(ARROW))
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        command = line
        while command.endswith("\\"):
            command += "\n" + next(lines)
        found.append(Step(command))
    return found


def script(block: str, api: str) -> tuple[str, list[Step]]:
    """One bash script that runs every step and prints a marker line after each."""
    parsed = steps(block)
    body = ["set -euo pipefail"]
    for number, step in enumerate(parsed):
        command = step.command
        if number == 0:
            assert command.startswith("API="), "the block starts by naming the server"
            command = f"API={api}"
        body += [command, f"echo '@@step {number}'"]
    return "\n".join(body) + "\n", parsed


def test_the_readme_game_is_cut_into_commands_with_their_outputs() -> None:
    parsed = steps(curl_game())
    assert parsed[0].command == "API=http://127.0.0.1:8000"
    checked = [s for s in parsed if s.expected]
    assert len(checked) >= 15
    assert any('"go_out"' in s.command for s in checked), "the game includes going out"
    assert any('"status":"finished"' in line for s in checked for line in s.expected)


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq")),
                    reason="the README's game needs curl and jq on PATH")
def test_the_readme_curl_game_prints_what_the_readme_says(live_server: str,
                                                          tmp_path: Path) -> None:
    text, parsed = script(curl_game(), live_server)
    run = subprocess.run(["bash", "-c", text], capture_output=True, text=True, timeout=120,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr + run.stdout
    outputs = re.split(r"^@@step \d+\n", run.stdout, flags=re.M)
    assert len(outputs) == len(parsed) + 1
    for step, output in zip(parsed, outputs, strict=False):
        if step.expected:
            printed = [line.rstrip() for line in output.splitlines()]
            assert printed == step.expected, step.command
