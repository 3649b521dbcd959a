"""The committed OpenAPI document is exactly what the app serves (that it is valid OpenAPI 3.1
and that all it names resolves: test_openapi_resolves.py)."""

from __future__ import annotations

import json
from pathlib import Path

from service.app import create_app
from service.config import Config

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"


def served() -> dict:
    app = create_app(Config(redis_url="redis://127.0.0.1:9/0"))
    return app.test_client().get("/openapi.json").json  # type: ignore[no-any-return]


def test_the_committed_document_matches_the_served_one() -> None:
    committed = json.loads(COMMITTED.read_text())
    assert committed == served(), "the API changed: run `make openapi` and commit the result"


def test_every_operation_documents_its_errors_as_problem_json() -> None:
    document = served()
    for path, item in document["paths"].items():
        for method, op in item.items():
            if method == "parameters":
                continue
            responses = op["responses"]
            if path not in ("/healthz", "/metrics", "/v1/rules/presets", "/v1/solve",
                                "/v1/bots"):
                assert "503" in responses, (method, path)  # every view that calls Redis
            for status, response in responses.items():
                if status.startswith(("4", "5")):
                    assert "application/problem+json" in response["content"], (method, path)


def test_the_contract_paths_are_all_there() -> None:
    paths = served()["paths"]
    assert {"/v1/rules/presets", "/v1/solve", "/v1/games", "/v1/games/{game_id}",
            "/v1/games/{game_id}/actions"} <= set(paths)


def test_an_actions_503_says_it_may_have_been_applied_and_how_to_find_out() -> None:
    act = served()["paths"]["/v1/games/{game_id}/actions"]["post"]
    unavailable = act["responses"]["503"]["description"]
    assert "may still have been applied" in unavailable
    assert "same `Idempotency-Key`" in unavailable
    assert "in fact applied" in act["description"] and "Idempotency-Key" in act["description"]
