"""Reading service/api's views as code (for the contract tests that hold the document to
what each view does): which functions are an operation's view, and its ``operationId``."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

#: The methods of a flask ``MethodView`` that are operations.
METHODS = {"get", "post", "put", "patch", "delete"}


def is_view(cls: ast.ClassDef) -> bool:
    """Whether ``cls`` is a ``MethodView`` (a path's operations)."""
    return any(isinstance(b, ast.Name) and b.id == "MethodView" for b in cls.bases)


def operation_id(fn: ast.FunctionDef) -> str | None:
    """The ``operationId`` a view's method declares in its decorators, if any."""
    for decorator in fn.decorator_list:
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if keyword.arg == "operationId" and isinstance(keyword.value, ast.Constant):
                    return str(keyword.value.value)
    return None


def views_in(tree: ast.Module, path: Path) -> Iterator[tuple[str, ast.FunctionDef]]:
    """(operationId, method) of every view method of ``tree``; one without an
    operationId fails, naming it."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and is_view(node):
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and fn.name in METHODS:
                    op = operation_id(fn)
                    assert op, f"{path.name}: {node.name}.{fn.name} has no operationId"
                    yield op, fn
