"""Request schemas use marshmallow's public API only, and a card list still reports each
invalid card at its own index."""

from __future__ import annotations

import ast
from pathlib import Path

from flask.testing import FlaskClient

API = Path(__file__).resolve().parents[2] / "service" / "api"
#: marshmallow's private field hooks: overriding them ties the service to its internals.
PRIVATE_HOOKS = {"_deserialize", "_serialize", "_validate", "_validate_missing"}


def test_no_schema_or_field_overrides_a_private_marshmallow_hook() -> None:
    for path in API.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                methods = {f.name for f in node.body if isinstance(f, ast.FunctionDef)}
                assert not methods & PRIVATE_HOOKS, f"{path.relative_to(API)}: {node.name}"


def test_each_invalid_card_of_a_list_is_reported_at_its_index(client: FlaskClient) -> None:
    body = {"hand": ["7H", "7X", "8H", "ZZ"], "wild_rank": "5",
            "table": [["7H", "8H", "9H"], ["2C", "JOKER", "1S"]]}
    r = client.post("/v1/solve", json=body)
    assert r.status_code == 422 and r.json["code"] == "invalid_body"
    errors = r.json["errors"]
    assert set(errors["hand"]) == {"1", "3"} and "'7X' is not a card" in errors["hand"]["1"][0]
    assert set(errors["table"]) == {"1"} and set(errors["table"]["1"]) == {"2"}


def test_a_valid_card_list_is_read_in_every_accepted_spelling(client: FlaskClient) -> None:
    r = client.post("/v1/solve", json={"hand": ["10h", "J♠", "jk"], "wild_rank": "5"})
    assert r.status_code == 200
    assert r.json["penalty"] == 10 + 10 + 25 and sorted(r.json["deadwood"]) == ["JK", "JS", "TH"]
