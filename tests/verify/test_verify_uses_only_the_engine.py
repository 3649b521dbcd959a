"""``service.verify`` needs nothing of the service but the game itself (the engine, the
core it stands on, and the reference bots whose moves it re-runs): no Flask, Redis,
storage or service layer, so a record is checked the same with the service gone."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import service.verify

PACKAGE = Path(service.verify.__file__).parent
GAME = ("service.engine", "service.core", "service.bots")


def test_the_verifier_imports_only_the_standard_library_and_the_engine() -> None:
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level:
                continue  # within service.verify
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                top = name.split(".")[0]
                assert name.startswith(GAME) or top in sys.stdlib_module_names \
                    or top == "__future__", f"{path.name} imports {name}"
