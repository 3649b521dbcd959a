"""Checks, their outcomes and the summary table.

A check is a named function that raises :class:`AssertionError` (or any error) to fail
and returns a short detail to pass; running them all, whatever fails, is what lets the
table name every broken part of a deployment at once."""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass

__all__ = ["Check", "Outcome", "format_table", "run_checks"]


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    run: Callable[[], str]
    #: Whether the check creates anything (games, moves): left out with ``--no-writes``.
    writes: bool = True


@dataclass(frozen=True, slots=True)
class Outcome:
    name: str
    passed: bool
    detail: str
    seconds: float


def run_checks(checks: Iterable[Check]) -> list[Outcome]:
    """Run every check, in order; a failure is recorded and the next check runs."""
    outcomes = []
    for check in checks:
        started = time.perf_counter()
        try:
            detail, passed = check.run(), True
        except Exception as exc:  # any error fails this check only, with what it said
            last = traceback.extract_tb(exc.__traceback__)[-1]
            detail, passed = f"{type(exc).__name__}: {exc} (line {last.lineno})", False
        outcomes.append(Outcome(check.name, passed, " ".join(detail.split()),
                                time.perf_counter() - started))
    return outcomes


def format_table(outcomes: list[Outcome], width: int = 100) -> str:
    """``check | result | detail`` rows, then a count line."""
    name_w = max([len("check"), *(len(o.name) for o in outcomes)])
    lines = [f"{'check':<{name_w}}  result  detail", f"{'-' * name_w}  ------  {'-' * 6}"]
    for o in outcomes:
        detail = o.detail if len(o.detail) <= width else o.detail[: width - 1] + "…"
        lines.append(f"{o.name:<{name_w}}  {'pass' if o.passed else 'FAIL':<6}  {detail}")
    failed = sum(not o.passed for o in outcomes)
    lines.append(f"{len(outcomes) - failed} passed, {failed} failed")
    return "\n".join(lines)
