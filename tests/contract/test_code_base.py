"""The code base stays one a new engineer can read: small modules, and the speed layer that
was removed stays removed.

Why small modules: a module over about 400 lines holds more than one concept. Why no
mention of a removed mechanism: each of them bypassed a framework's documented path (a
private connection pool, raw WSGI body reads, Flask's sync adapter overridden, a
hand-made ``replace``, private marshmallow hooks). A mention that comes back, even in a
comment or a doc, is the first step of the mechanism coming back, so the whole
repository is searched.
"""

from __future__ import annotations

import ast
import subprocess

from tests.conftest import ROOT

#: "about 400 lines": a little over is a module that is still one concept
MAX_MODULE_LINES = 420
#: spelled in pieces so that this file does not match itself
REMOVED = ["pin" + "ned", "wsgi" + ".input", "ensure" + "_sync", "evol" + "ve",
           "_deser" + "ialize"]
#: the test that asserts marshmallow's private hooks are not overridden names them
ALLOWED = {"tests/api/test_request_schemas.py"}


def test_no_file_of_the_repository_names_a_removed_mechanism() -> None:
    args = ["git", "grep", "--untracked", "-n", "-I", "-F"]
    for word in REMOVED:
        args += ["-e", word]
    found = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    assert found.returncode in (0, 1), found.stderr
    hits = [line for line in found.stdout.splitlines()
            if line.split(":", 1)[0] not in ALLOWED]
    assert not hits, "\n".join(hits)


def test_no_module_of_the_service_is_over_about_four_hundred_lines() -> None:
    sizes = {str(path.relative_to(ROOT)): len(path.read_text().splitlines())
             for path in (ROOT / "service").rglob("*.py")}
    assert not {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES}


def _imports(package: str) -> dict[str, set[str]]:
    """Each module of ``service/<package>`` and the modules of the package it imports
    (at the top or inside a function: a function-level import that closes a circle is
    still a circle)."""
    graph: dict[str, set[str]] = {}
    for path in (ROOT / "service" / package).glob("*.py"):
        tree = ast.parse(path.read_text())
        graph[path.stem] = {node.module.split(".")[0] for node in ast.walk(tree)
                            if isinstance(node, ast.ImportFrom) and node.level == 1
                            and node.module} - {path.stem}
    return graph


def test_no_module_of_the_service_layer_imports_one_that_imports_it_back() -> None:
    """Its modules form layers (the facade, ``__init__``, aside): a circle means two
    concepts that cannot be read apart."""
    graph = {m: deps - {"__init__"} for m, deps in _imports("play").items()
             if m != "__init__"}
    done: set[str] = set()

    def walk(module: str, path: list[str]) -> None:
        for dep in sorted(graph.get(module, ())):
            assert dep not in path, " -> ".join([*path[path.index(dep):], dep])
            if dep not in done:
                walk(dep, [*path, dep])
        done.add(module)

    for module in sorted(graph):
        walk(module, [module])
