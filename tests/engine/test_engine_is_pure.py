"""``service/engine`` and the core it stands on are pure: no web, storage or JSON library is
imported anywhere in them."""

from __future__ import annotations

import ast
from pathlib import Path

import service.core
import service.engine

FORBIDDEN = {"flask", "flask_smorest", "marshmallow", "redis", "json", "werkzeug"}
ENGINE = Path(service.engine.__file__).parent
CORE = Path(service.core.__file__).parent


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_the_engine_imports_no_web_storage_or_json_library() -> None:
    sources = sorted(ENGINE.glob("*.py")) + sorted(CORE.glob("*.py"))
    assert len(sources) > 10
    for path in sources:
        assert not _imports(path) & FORBIDDEN, path.name


def test_the_public_names_are_exactly_those_documented() -> None:
    assert set(service.engine.__all__) == {
        "Event", "GameState", "apply", "claim", "from_dict", "legal_actions", "new_game",
        "opening_events", "parse_action", "places", "standing_places", "to_dict", "view",
        "winners",
    }
    for name in service.engine.__all__:
        assert getattr(service.engine, name) is not None
