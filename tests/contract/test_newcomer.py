"""The newcomer path: clone the repository into a fresh folder and do what the README
says, as written: `make run` (with the port moved to a free one) until it serves
/healthz, then the README's "Write your own bot" steps: save its `my_bot.py`, run its
command in the clone, and watch the bot make its moves to the end of its game.

This builds a new virtual env and installs the project, so it takes a minute; the two
tests share the one clone and its server.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

from tests.conftest import PATIENCE, ROOT, free_port, wait_until

#: What `make test` installs and `make run` must not.
TEST_ONLY = {"pytest", "hypothesis", "ruff", "schemathesis", "requests-mock", "selenium",
             "openapi-python-client", "openapi-spec-validator", "kubernetes-validate",
             "pytest-xdist", "mypy"}
#: Where the README's commands and code say the service is.
README_URL = "http://127.0.0.1:8000"


def readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", readme, re.S)
    assert block, "the README starts with a sh block of the two commands"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def readme_bot() -> tuple[str, str, list[str]]:
    """The README's "Write your own bot" steps: the file to save, its code, and the
    commands to run after it (the sh block that follows the code)."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Write your own bot", 1)[1].split("\n## ", 1)[0]
    found = re.search(r"Save this as `([\w.]+)`.*?```python\n(.*?)```.*?```sh\n(.*?)```",
                      section, re.S)
    assert found, "the README's bot section says which file to save, its code, its command"
    name, code, commands = found.groups()
    assert "make run" in section.split(name, 1)[0], "the section starts the service first"
    return name, code, [line for line in commands.splitlines() if line.strip()]


def test_the_readme_starts_with_make_run_and_make_test() -> None:
    assert readme_commands() == ["make run", "make test"]


def test_the_readme_bot_is_a_file_to_save_and_one_command_to_run_it() -> None:
    name, code, commands = readme_bot()
    assert name == "my_bot.py" and README_URL in code
    assert commands == [f".venv/bin/python {name}"]


@dataclass
class Served:
    """A fresh clone serving with `make run`: its folder, its root URL and its log."""

    clone: Path
    url: str
    log: Path
    push_url: str


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = tmp_path_factory.mktemp("newcomer")
    clone = home / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "VIRTUAL_ENV")}
    push_port = free_port()
    env.update(PORT=str(port), PUSH_PORT=str(push_port), ACCESS_LOG="")
    # pip may reuse its cache; the clone gets its own venv, exactly as a newcomer's would
    assert readme_commands()[0] == "make run"
    log = home / "make-run.log"
    proc = subprocess.Popen(
        ["make", "run"], cwd=clone, env=env, start_new_session=True,
        stdout=log.open("w"), stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 400
        while time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()[-3000:]
            try:
                if requests.get(f"{url}/healthz", timeout=1).ok:
                    break
            except (requests.ConnectionError, requests.Timeout):  # not up, or still booting
                time.sleep(1)
        else:
            pytest.fail("make run did not serve /healthz in time")
        yield Served(clone, url, log, f"http://127.0.0.1:{push_port}")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # make, the run script, gunicorn, redis-server
        proc.wait(PATIENCE)


@pytest.mark.slow
def test_a_fresh_clone_serves_healthz_after_make_run(served: Served) -> None:
    ready = requests.get(f"{served.url}/readyz", timeout=5)
    assert ready.status_code == 200, ready.text + served.log.read_text()[-3000:]
    created = requests.post(f"{served.url}/v1/games",
                            json={"players": [{"name": "a"}, {"name": "b"}]}, timeout=5)
    assert created.status_code == 201
    # the push tier beside it answers the same game's view
    game = f"/v1/games/{created.json()['game_id']}"
    wait_until(lambda: requests.get(served.push_url + "/healthz", timeout=1).ok, PATIENCE,
               "make run's push process")
    pushed = requests.get(served.push_url + game, timeout=5)
    assert pushed.status_code == 200 and pushed.json() == requests.get(
        served.url + game, timeout=5).json()
    # what serves, and nothing of the test toolchain
    listed = subprocess.run([str(served.clone / ".venv" / "bin" / "pip"), "list",
                             "--format=freeze"], capture_output=True, text=True,
                            check=True).stdout.lower()
    installed = {line.split("==")[0].replace("_", "-") for line in listed.splitlines()}
    assert {"gunicorn", "flask", "redis"} <= installed
    assert not installed & TEST_ONLY, installed & TEST_ONLY
    # no warning of ours; the machine's own are not (its pip configuration naming index
    # folders it lacks, setuptools' note on editable installs, the kernel's overcommit)
    machine = ("it is neither a file nor a directory", "pip-build-env", "overcommit")
    ours = [line for line in served.log.read_text().lower().splitlines()
            if "warning" in line and not any(m in line for m in machine)]
    assert not ours, ours


@pytest.mark.slow
def test_the_readme_bot_makes_its_moves_in_a_fresh_clone_as_the_readme_says(
        served: Served) -> None:
    name, code, commands = readme_bot()
    (served.clone / name).write_text(code.replace(README_URL, served.url))
    done = subprocess.run(["bash", "-c", "\n".join(["set -e", *commands])], cwd=served.clone,
                          capture_output=True, text=True, timeout=300,
                          env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"round 1: \{'type': 'draw', 'source': '(stock|discard)'\}", lines[0]), lines[:3]
    assert len([line for line in lines if line.startswith("round ")]) >= 11 * 2  # 11 rounds
    assert re.fullmatch(r"winners: \[('my-bot'|'greedy')(, 'greedy')?\]", lines[-1]), lines[-3:]
