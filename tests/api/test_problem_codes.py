"""``Problem.code`` in the OpenAPI document is an enum of exactly the codes the service can
emit: every error class's code and every code written at a place that builds a problem."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from service.api.problems import HTTP_CODES, PROBLEM_CODES
from service.core.errors import EngineError
from service.play import PlayError

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "service"
#: Functions whose second positional argument is a problem's code (``Refusal``: what a
#: gunicorn refusal becomes, service/refusals.py; ``Problem``: what both front ends answer,
#: service/wire/problems.py).
PROBLEM_BUILDERS = {"ApiProblem", "Problem", "problem_response", "Refusal"}


def _name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _error_classes() -> dict[str, type]:
    found: dict[str, type] = {}
    todo: list[type] = [EngineError, PlayError]
    while todo:
        cls = todo.pop()
        found[cls.__name__] = cls
        todo.extend(cls.__subclasses__())
    return found


def _codes_written_in_the_service() -> tuple[set[str], set[str]]:
    """(codes at problem-building calls and ``code = …`` assignments, error classes raised)."""
    codes: set[str] = set()
    raised: set[str] = set()
    for path in SERVICE.rglob("*.py"):
        if "client" in path.relative_to(SERVICE).parts:
            continue  # the HTTP client reads problems, it does not answer them
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and _name(node.func) in PROBLEM_BUILDERS:
                if len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                    codes.add(node.args[1].value)
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "code" for t in node.targets
            ):
                value = node.value
                if isinstance(value, ast.Call) and _name(value.func) == "get":
                    value = value.args[-1]  # code = TABLE.get(key, "fallback")
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    codes.add(value.value)
            elif (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                  and (name := _name(node.exc.func)) is not None):
                raised.add(name)
    return codes, raised


def test_the_documents_problem_code_is_an_enum_of_the_services_codes() -> None:
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    code = document["components"]["schemas"]["Problem"]["properties"]["code"]
    assert code["enum"] == list(PROBLEM_CODES)
    assert "rate_limited" in code["enum"] and "invalid_cursor" in code["enum"]


def test_every_code_written_or_raised_anywhere_is_in_the_enum() -> None:
    codes, raised = _codes_written_in_the_service()
    classes = _error_classes()
    raised_codes = {classes[name].code for name in raised if name in classes}
    written = {c for c in codes if c not in {cls.code for cls in classes.values()}}
    assert written | raised_codes | set(HTTP_CODES.values()) <= set(PROBLEM_CODES)
    assert "rate_limited" in written


def test_the_enum_holds_no_code_that_nothing_emits() -> None:
    codes, raised = _codes_written_in_the_service()
    classes = _error_classes()
    subclasses = {name for name, cls in classes.items() if cls not in (EngineError, PlayError)}
    # the two roots are never raised themselves, so their codes are not in the enum
    assert not raised & {"EngineError", "PlayError"}
    emitted = (codes - {EngineError.code, PlayError.code}) | set(HTTP_CODES.values())
    emitted |= {classes[name].code for name in subclasses}
    assert set(PROBLEM_CODES) == emitted


def test_the_api_docs_error_table_has_a_row_for_every_code() -> None:
    """Users switch on ``code``: each one the service can emit is explained in the table of
    docs/api.md ("Errors"), with its status."""
    text = (ROOT / "docs" / "api.md").read_text()
    missing = [code for code in PROBLEM_CODES if f"| `{code}` |" not in text]
    assert not missing
