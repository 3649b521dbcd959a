"""Rules the document keeps so that generated typed clients come out right.

Each rule is one way openapi-typescript (and its kind) produced wrong types before:
a field with a `default` read as always present, untyped events, a free-form `code`,
untyped problem details, operations without an `operationId` (no method names), and
schemas nothing uses (types nothing returns). tests/typescript compiles a client against
the generated types; these rules say, per rule, what broke.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from service.api.problems import PROBLEM_CODES
from service.api.schemas.events import EVENT_TYPES
from service.openapi import document

SERVICE = Path(__file__).resolve().parents[2] / "service"
METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def _operations(doc: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method in METHODS:
                yield method, path, op


def _schemas(node: Any) -> Iterator[dict[str, Any]]:
    """Every object in ``node`` that has ``properties`` (a schema of an object)."""
    if isinstance(node, dict):
        if isinstance(node.get("properties"), dict):
            yield node
        for value in node.values():
            yield from _schemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from _schemas(value)


def test_every_operation_has_a_unique_operation_id() -> None:
    ids = [op.get("operationId") for _, _, op in _operations(document())]
    missing = [(m, p) for m, p, op in _operations(document()) if not op.get("operationId")]
    assert not missing
    assert len(ids) == len(set(ids))


def test_no_component_schema_is_unused() -> None:
    doc = document()
    text = json.dumps(doc)
    unused = [name for name in doc["components"]["schemas"]
              if f'"#/components/schemas/{name}"' not in text
              and f'"#/components/schemas/{name}/' not in text]
    assert not unused, f"schemas nothing refers to: {unused}"


def test_no_optional_property_carries_a_default() -> None:
    """A property with `default` comes out required in openapi-typescript's types."""
    wrong = []
    for schema in _schemas(document()):
        required = set(schema.get("required", []))
        wrong += [name for name, prop in schema["properties"].items()
                  if isinstance(prop, dict) and "default" in prop and name not in required]
    assert not wrong, f"optional properties with a default (use a callable load_default): {wrong}"


def test_the_problem_code_is_the_enum_of_every_code_the_service_sends() -> None:
    problem = document()["components"]["schemas"]["Problem"]
    assert problem["properties"]["code"]["enum"] == list(PROBLEM_CODES)
    assert "code" in problem["required"]


def _error_detail_keywords() -> set[str]:
    """The keyword arguments of every error raised in service/ (they become problem
    members; ``headers`` of ApiProblem are response headers)."""
    found: set[str] = set()
    for path in SERVICE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", "")
            if name.endswith(("Error", "Exceeded")) or name in ("ApiProblem", "problem_response"):
                found |= {k.arg for k in node.keywords if k.arg and k.arg != "headers"}
    return found


def test_every_problem_detail_the_code_sends_is_a_typed_problem_member() -> None:
    problem = document()["components"]["schemas"]["Problem"]
    keywords = _error_detail_keywords()
    assert {"current_seat", "current_version", "newest"} <= keywords  # the scan sees them
    untyped = sorted(keywords - set(problem["properties"]))
    assert not untyped, f"problem members missing from the Problem schema: {untyped}"
    assert all(problem["properties"][k] for k in keywords), "a member with an empty schema"
    assert problem.get("additionalProperties") is False


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def test_no_text_of_the_document_closes_a_block_comment() -> None:
    """Generators copy descriptions into `/* … */` comments: OpenAPI Generator's Go client
    writes an operation's description there unescaped, so a `*/` in one (the stream's
    `Accept: */*`) ended the comment and the package did not compile."""
    assert not [text for text in _strings(document()) if "*/" in text]


def test_every_event_type_has_its_own_schema_in_the_discriminated_union() -> None:
    doc = document()
    events = doc["components"]["schemas"]["EventsResponse"]["properties"]["events"]["items"]
    mapping = events["discriminator"]["mapping"]
    assert set(mapping) == set(EVENT_TYPES)
    for event_type, (name, _) in EVENT_TYPES.items():
        schema = doc["components"]["schemas"][name]
        assert schema["properties"]["type"]["enum"] == [event_type]
        assert {"type", "seq"} <= set(schema["required"])


def test_legal_actions_are_the_action_union_and_nothing_looser() -> None:
    schemas = document()["components"]["schemas"]
    for view in ("InProgressGameView", "FinishedGameView"):
        items = schemas[view]["properties"]["legal_actions"]["items"]
        assert items == {"oneOf": [{"$ref": f"#/components/schemas/{n}"}
                                   for n in ("DrawAction", "DiscardAction", "GoOutAction",
                                             "ClaimVictoryAction")]}
