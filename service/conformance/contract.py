"""schemathesis on the document the server serves, with the suite's own settings.

The served document, not the committed one: what is checked is what this deployment
says about itself. ``schemathesis.toml`` (next to this module) holds the allowances the
test suite uses too (tests/contract/test_schemathesis.py), each with its reason."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

__all__ = ["CONFIG", "schemathesis_args", "schemathesis_check"]

CONFIG = Path(__file__).resolve().parent / "schemathesis.toml"


def schemathesis_args(url: str, *, writes: bool, max_examples: int, seed: int = 13,
                      request_timeout: float = 10.0) -> list[str]:
    """The ``st run`` command line of the check. Without writes only ``GET`` operations
    run, and not the stateful phase (it follows the links from game creation). Its own
    function so that tests/contract/test_schemathesis.py runs exactly this command."""
    phases = "examples,coverage,fuzzing,stateful" if writes else "examples,coverage,fuzzing"
    args = [str(Path(sys.prefix) / "bin" / "st"), "--config-file", str(CONFIG), "run",
            f"{url}/openapi.json", "--mode", "all", "--max-examples", str(max_examples),
            "--seed", str(seed), "--phases", phases, "--request-timeout", str(request_timeout),
            "--no-color", "--generation-database", "none"]
    if not writes:
        args += ["--include-method", "GET"]
    return args


def schemathesis_check(url: str, *, writes: bool, max_examples: int, seed: int = 13,
                       request_timeout: float = 10.0) -> str:
    """Run ``st run`` (the CLI, as documented) and fail with its last lines on a failure."""
    args = schemathesis_args(url, writes=writes, max_examples=max_examples, seed=seed,
                             request_timeout=request_timeout)
    done = subprocess.run(args, capture_output=True, text=True, timeout=1800)
    summary = [line for line in done.stdout.splitlines() if line.strip()][-3:]
    if done.returncode != 0:
        tail = done.stdout[-3000:] + done.stderr[-1000:]
        raise AssertionError(f"schemathesis failed (exit {done.returncode}): {tail}")
    return " ".join(summary)
