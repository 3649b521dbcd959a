"""The newcomer path: clone the repository into a fresh folder and run the README's
`make run` as written (with the port moved to a free one), until it serves /healthz.

This builds a new virtual env and installs the project, so it takes a minute.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
import requests

from tests.conftest import PATIENCE, ROOT, free_port

#: What `make test` installs and `make run` must not.
TEST_ONLY = {"pytest", "hypothesis", "ruff", "schemathesis", "requests-mock", "selenium",
             "openapi-python-client", "openapi-spec-validator", "kubernetes-validate",
             "pytest-xdist", "mypy"}


def readme_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```sh\n(.*?)```", readme, re.S)
    assert block, "the README starts with a sh block of the two commands"
    return [line.strip() for line in block.group(1).splitlines() if line.strip()]


def test_the_readme_starts_with_make_run_and_make_test() -> None:
    assert readme_commands() == ["make run", "make test"]


@pytest.mark.slow
def test_a_fresh_clone_serves_healthz_after_make_run(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "VIRTUAL_ENV")}
    env.update(PORT=str(port), ACCESS_LOG="")
    # pip may reuse its cache; the clone gets its own venv, exactly as a newcomer's would
    log = tmp_path / "make-run.log"
    proc = subprocess.Popen(
        ["make", "run"], cwd=clone, env=env, start_new_session=True,
        stdout=log.open("w"), stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 400
        while time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()[-3000:]
            try:
                if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).ok:
                    break
            except (requests.ConnectionError, requests.Timeout):  # not up, or still booting
                time.sleep(1)
        else:
            pytest.fail("make run did not serve /healthz in time")
        ready = requests.get(f"http://127.0.0.1:{port}/readyz", timeout=5)
        assert ready.status_code == 200, ready.text + log.read_text()[-3000:]
        created = requests.post(f"http://127.0.0.1:{port}/v1/games",
                                json={"players": [{"name": "a"}, {"name": "b"}]}, timeout=5)
        assert created.status_code == 201
        # what serves, and nothing of the test toolchain
        listed = subprocess.run([str(clone / ".venv" / "bin" / "pip"), "list",
                                 "--format=freeze"], capture_output=True, text=True,
                                check=True).stdout.lower()
        installed = {line.split("==")[0].replace("_", "-") for line in listed.splitlines()}
        assert {"gunicorn", "flask", "redis"} <= installed
        assert not installed & TEST_ONLY, installed & TEST_ONLY
        # no warning of ours; the machine's own are not (its pip configuration naming index
        # folders it lacks, setuptools' note on editable installs, the kernel's overcommit)
        machine = ("it is neither a file nor a directory", "pip-build-env", "overcommit")
        ours = [line for line in log.read_text().lower().splitlines()
                if "warning" in line and not any(m in line for m in machine)]
        assert not ours, ours
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # make, the run script, gunicorn, redis-server
        proc.wait(PATIENCE)
