"""What service/wire/deprecations.py declares is what the document, the responses and the
docs say: each deprecation gives at least 90 days' notice, is marked ``deprecated: true``
where it lives, lists ``Deprecation`` and ``Sunset`` on its operations' successful
responses, and nothing else in the document is deprecated without an entry (a sunset).

The operation branch (a whole operation deprecated) has no public entry today, so it is
shown on a registration made for the test only.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.app import create_app
from service.config import Config
from service.openapi import document
from service.wire import deprecations
from service.wire.deprecations import DEPRECATED, NOTICE, Deprecation

ROOT = Path(__file__).resolve().parents[2]
METHODS = ("get", "put", "post", "delete", "patch")


def _deprecated_places(node: Any, where: str = "#") -> list[str]:
    found = [where] if isinstance(node, dict) and node.get("deprecated") is True else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += _deprecated_places(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _deprecated_places(value, f"{where}/{index}")
    return found


def _announcing(doc: dict[str, Any]) -> set[tuple[str, str]]:
    """(METHOD, path) of every operation whose responses document the two headers."""
    return {(method.upper(), path) for path, item in doc["paths"].items()
            for method, op in item.items() if method in METHODS
            and any("Deprecation" in r.get("headers", {}) for r in op["responses"].values())}


def test_every_sunset_is_at_least_90_days_after_it_was_announced() -> None:
    assert timedelta(days=90) == NOTICE
    assert DEPRECATED, "the round_started.round entry"
    for entry in DEPRECATED:
        assert entry.deprecated <= entry.announced
        assert entry.sunset - entry.announced >= NOTICE, entry.what
        assert entry.sunset.tzinfo is UTC and entry.deprecated.tzinfo is UTC


def test_the_document_marks_each_deprecation_where_it_lives_and_nothing_else() -> None:
    doc = document()
    expected = []
    for entry in DEPRECATED:
        for method, path in entry.operations:
            op = doc["paths"][path][method.lower()]
            for status, response in op["responses"].items():
                if status.startswith("2"):
                    assert {"Deprecation", "Sunset"} <= set(response["headers"]), (path, status)
            if entry.field is None:
                assert op["deprecated"] is True
                expected.append(f"#/paths/{path}/{method.lower()}")
        if entry.field is not None:
            schema, name = entry.field
            assert doc["components"]["schemas"][schema]["properties"][name]["deprecated"]
            expected.append(f"#/components/schemas/{schema}/properties/{name}")
    assert sorted(_deprecated_places(doc)) == sorted(expected)
    assert _announcing(doc) == {op for entry in DEPRECATED for op in entry.operations}


def test_the_docs_and_the_changelog_give_each_sunset() -> None:
    api_md = (ROOT / "docs" / "api.md").read_text()
    changelog = (ROOT / "CHANGELOG.md").read_text()
    for entry in DEPRECATED:
        day = f"{entry.sunset:%Y-%m-%d}"
        assert day in api_md and day in changelog, entry.what


@pytest.fixture
def presets_deprecated(monkeypatch: pytest.MonkeyPatch) -> Deprecation:
    """A registration for this test only: GET /v1/rules/presets as a deprecated operation."""
    entry = Deprecation(what="the presets", instead="nothing", announced=datetime(2030, 1, 1, tzinfo=UTC),
                        deprecated=datetime(2030, 1, 1, tzinfo=UTC),
                        sunset=datetime(2030, 6, 1, tzinfo=UTC),
                        operations=(("GET", "/v1/rules/presets"),))
    monkeypatch.setattr(deprecations, "DEPRECATED", (entry,))
    return entry


def test_a_deprecated_operation_is_marked_and_answers_both_headers(
        presets_deprecated: Deprecation) -> None:
    client = create_app(Config(redis_url="redis://127.0.0.1:9/0")).test_client()
    presets = client.get("/openapi.json").json["paths"]["/v1/rules/presets"]["get"]
    assert presets["deprecated"] is True
    assert presets["responses"]["200"]["headers"]["Sunset"]["example"] == (
        "Sat, 01 Jun 2030 00:00:00 GMT")
    r = client.get("/v1/rules/presets")
    assert r.status_code == 200
    assert r.headers["Deprecation"] == f"@{int(presets_deprecated.deprecated.timestamp())}"
    assert r.headers["Sunset"] == "Sat, 01 Jun 2030 00:00:00 GMT"
