"""schemathesis against a live gunicorn: every check, positive and negative data, stateful links.

The run follows the OpenAPI links from game creation to viewing, acting as each
seat, reading events and claiming seats. Every check runs in every phase, except
``ignored_auth`` in the stateful phase only (there it takes the link-supplied seat tokens
for generated ones; see ``service/conformance/schemathesis.toml``, which also lists the few expected-status
allowances and why). Zero failures are allowed.

The command is the one ``python -m service.conformance`` runs (``schemathesis_args``), at
40 examples per operation: this is the suite's only schemathesis run, so the conformance
command's test leaves its schemathesis row out rather than repeat the same deterministic
examples and coverage phases (seed 13) at fewer examples.
"""

from __future__ import annotations

import subprocess

import pytest
from schemathesis.config import SchemathesisConfig

from service.conformance.contract import CONFIG, schemathesis_args


@pytest.mark.parametrize("phase", ["examples", "coverage", "fuzzing", "stateful"])
def test_ignored_auth_runs_in_every_phase_but_the_stateful_one(phase: str) -> None:
    project = SchemathesisConfig.from_path(CONFIG).projects.get_default()
    checks = project.checks_config_for(phase=phase)
    assert checks.get_by_name(name="ignored_auth").enabled is (phase != "stateful")
    assert checks.get_by_name(name="not_a_server_error").enabled  # the rest stay on


@pytest.mark.slow
def test_schemathesis_finds_no_failure_against_the_live_server(live_server: str) -> None:
    result = subprocess.run(schemathesis_args(live_server, writes=True, max_examples=40),
                            capture_output=True, text=True, timeout=600)
    tail = result.stdout[-6000:]
    assert result.returncode == 0, tail
    assert "Stateful" in result.stdout and "API Links" in result.stdout
