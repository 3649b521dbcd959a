"""The packages of ``service/`` form layers: no package imports one that imports it back.

The graph is read from the sources (every ``import``, at any depth of the module, lazy
ones included), one node per top-level package of ``service`` (``service/app.py`` and the
other top-level modules are nodes of their own), so a cycle cannot hide behind a
function-level import. Each package must also import on its own in a fresh interpreter.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVICE = ROOT / "service"


def _node(module: str) -> str | None:
    """``service.engine.rounds`` → ``engine``; modules outside ``service`` → ``None``."""
    parts = module.split(".")
    if parts[0] != "service" or len(parts) < 2:
        return None
    return parts[1]


def _module_of(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> set[str]:
    module = _module_of(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            found.add(target)
            found |= {f"{target}.{alias.name}" for alias in node.names}
    return found


def _exists(node: str) -> bool:
    """Whether ``node`` is a package or module of ``service`` (not a name imported from it)."""
    return (SERVICE / node / "__init__.py").exists() or (SERVICE / f"{node}.py").exists()


def package_graph() -> dict[str, set[str]]:
    """For each node of ``service``, the other nodes it imports."""
    graph: dict[str, set[str]] = {}
    for path in SERVICE.rglob("*.py"):
        me = _node(_module_of(path))
        if me is None:
            continue
        edges = graph.setdefault(me, set())
        for target in _imports(path):
            other = _node(target)
            if other is not None and other != me and _exists(other):
                edges.add(other)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_package_of_the_service_imports_one_that_imports_it_back() -> None:
    graph = package_graph()
    assert {"core", "engine", "solver", "play", "api", "storage"} <= set(graph)
    assert _cycle(graph) is None, " → ".join(_cycle(graph) or [])


def test_the_layers_below_the_game_import_nothing_above_them() -> None:
    graph = package_graph()
    assert graph["core"] == set()
    assert graph["solver"] == {"core"}
    assert graph["engine"] <= {"core", "solver"}


def test_the_client_imports_nothing_of_the_service_but_the_core() -> None:
    """A bot on ``service.client`` needs none of the server's code: the client shares only
    the contract's JSON shapes with the engine (``service/core/shapes.py``)."""
    graph = package_graph()
    assert graph["client"] <= {"core"}


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


PACKAGES = sorted(p.name for p in SERVICE.iterdir() if (p / "__init__.py").exists())


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_imports_on_its_own_in_a_fresh_interpreter(package: str) -> None:
    done = subprocess.run([sys.executable, "-c", f"import service.{package}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
