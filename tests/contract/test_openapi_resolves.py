"""Everything the committed OpenAPI document names is there: it is valid OpenAPI 3.1 (the
3.1 validator of openapi-spec-validator), every ``$ref`` points at something, every link
at an operation, every security requirement at a defined scheme, and every example is
valid against the schema it illustrates (jsonschema, Draft 2020-12, the dialect of 3.1).

Why beyond the validator: it checks the document's shape, not its names. A requirement of
a scheme that ``components.securitySchemes`` never defines passed it (20 operations named
an ``accountKey`` nobody defined, so Swagger UI's *Authorize* offered no way to send an
account key), and so would a ``$ref`` to a renamed schema inside an ``allOf``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from openapi_spec_validator import OpenAPIV31SpecValidator

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "openapi.json"
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def committed() -> dict[str, Any]:
    return json.loads(COMMITTED.read_text())  # type: ignore[no-any-return]


def _walk(node: Any, where: str = "#") -> Iterator[tuple[str, Any]]:
    """(JSON pointer, value) of every value under ``node``, itself first."""
    yield where, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, f"{where}/{_escaped(key)}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{where}/{index}")


def _escaped(key: str) -> str:
    """``key`` as a JSON pointer's token (RFC 6901)."""
    return str(key).replace("~", "~0").replace("/", "~1")


def _resolve(document: dict[str, Any], pointer: str) -> Any:
    """What the local reference ``pointer`` (``#/a/b``) points at; KeyError if nothing."""
    node: Any = document
    for part in pointer.removeprefix("#/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _operations(document: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                yield f"{method.upper()} {path}", item[method]


def dangling_refs(document: dict[str, Any]) -> list[str]:
    """Where a ``$ref`` (or a discriminator's mapping) points at nothing in the document."""
    wrong = []
    for where, node in _walk(document):
        if not isinstance(node, dict):
            continue
        targets = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        if isinstance(node.get("discriminator"), dict):
            targets += node["discriminator"].get("mapping", {}).values()
        for target in targets:
            if not target.startswith("#/"):
                wrong.append(f"{where}: {target} is not a reference into this document")
                continue
            try:
                _resolve(document, target)
            except (KeyError, IndexError, ValueError):
                wrong.append(f"{where}: {target}")
    return wrong


def dangling_links(document: dict[str, Any]) -> list[str]:
    """Where a response's link names an operation the document does not have."""
    ids = {op.get("operationId") for _, op in _operations(document)}
    return [f"{where}: {node['operationId']}" for where, node in _walk(document)
            if "/links/" in where and isinstance(node, dict)
            and isinstance(node.get("operationId"), str) and node["operationId"] not in ids]


def undefined_schemes(document: dict[str, Any]) -> list[str]:
    """Security requirements (the root's and each operation's) naming an undefined scheme,
    or asking scopes of a scheme that has none (only OAuth2 and OpenID Connect have)."""
    schemes = document.get("components", {}).get("securitySchemes", {})
    wrong = []
    requirements = [("root", document.get("security", []))]
    requirements += [(name, op.get("security", [])) for name, op in _operations(document)]
    for where, alternatives in requirements:
        for requirement in alternatives:
            for scheme, scopes in requirement.items():
                if scheme not in schemes:
                    wrong.append(f"{where}: {scheme} is not in components.securitySchemes")
                elif scopes and schemes[scheme]["type"] not in ("oauth2", "openIdConnect"):
                    wrong.append(f"{where}: {scheme} has no scopes to ask for")
    return wrong


def errors(document: dict[str, Any], schema: dict[str, Any], value: Any) -> list[str]:
    """Why ``value`` does not match ``schema`` (a schema of ``document``): none if it does.
    The document is the validator's root, so that its "#/components/..." references
    resolve (a shallow copy: the validator resolves them lazily, as it meets them)."""
    validator = Draft202012Validator({**document, "allOf": [schema]})
    return sorted(e.message for e in validator.iter_errors(value))


def examples(node: Any, where: str = "#") -> list[tuple[str, dict[str, Any], Any]]:
    """(where, schema, example) of every example in the document: a media type's
    ``example`` and ``examples``, a parameter's or header's, and a schema's own."""
    found: list[tuple[str, dict[str, Any], Any]] = []
    if isinstance(node, dict):
        schema = node.get("schema")
        if isinstance(schema, dict):
            if "example" in node:
                found.append((where, schema, node["example"]))
            for name, example in (node.get("examples") or {}).items():
                found.append((f"{where}/examples/{name}", schema, example["value"]))
        if "example" in node and ("type" in node or "$ref" in node or "oneOf" in node
                                  or "anyOf" in node):
            found.append((where, {k: v for k, v in node.items() if k != "example"},
                          node["example"]))
        for key, value in node.items():
            if key not in ("example", "examples"):
                found += examples(value, f"{where}/{_escaped(key)}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += examples(value, f"{where}/{index}")
    return found


def wrong_examples(document: dict[str, Any]) -> dict[str, list[str]]:
    """Each example that its schema refuses, with why (a plain-text example of a string
    schema is the text itself, not JSON: nothing to check beyond its type)."""
    wrong = {}
    for where, schema, example in examples(document):
        if schema.get("type") == "string" and "text~1plain" in where:
            continue
        if found := errors(document, schema, example):
            wrong[where] = found
    return wrong


def test_the_committed_document_is_valid_openapi_3_1() -> None:
    document = committed()
    assert document["openapi"] == "3.1.0"
    OpenAPIV31SpecValidator(document).validate()


def test_every_reference_of_the_document_resolves() -> None:
    document = committed()
    refs = [node for _, node in _walk(document) if isinstance(node, dict) and "$ref" in node]
    assert len(refs) > 100  # the walk sees them: schemas, responses, properties alike
    assert dangling_refs(document) == []
    assert dangling_links(document) == []


def test_every_security_requirement_names_a_defined_scheme() -> None:
    document = committed()
    assert undefined_schemes(document) == []
    used = {scheme for _, op in _operations(document) for requirement in op.get("security", [])
            for scheme in requirement}
    assert used == set(document["components"]["securitySchemes"]), "a scheme nothing uses"


def test_every_example_of_the_document_matches_its_schema() -> None:
    document = committed()
    assert len(examples(document)) > 20  # media types, parameters, headers and properties
    assert wrong_examples(document) == {}


def test_the_examples_checked_include_the_variants() -> None:
    wheres = [where for where, _, _ in examples(committed())]
    assert any("/~1v1~1seeks/" in w for w in wheres)  # a matched seek
    assert any("/~1v1~1games~1{game_id}~1actions/" in w for w in wheres)  # each action body


def test_each_check_finds_what_it_exists_to_find() -> None:
    """A broken copy of the document: each check names what was broken, and only that."""
    document = committed()
    broken = json.loads(json.dumps(document))
    broken["components"]["schemas"]["Problem"]["properties"]["extra"] = {
        "$ref": "#/components/schemas/NoSuchSchema"}
    broken["paths"]["/v1/me"]["get"]["security"] = [{"accountKee": []}]
    broken["paths"]["/v1/games"]["post"]["requestBody"]["content"]["application/json"][
        "example"] = {"players": "ann"}
    broken["paths"]["/v1/games"]["post"]["responses"]["201"]["links"]["GetGame"][
        "operationId"] = "getGme"
    assert dangling_refs(broken) == [
        "#/components/schemas/Problem/properties/extra: #/components/schemas/NoSuchSchema"]
    assert dangling_links(broken) == [
        "#/paths/~1v1~1games/post/responses/201/links/GetGame: getGme"]
    assert undefined_schemes(broken) == [
        "GET /v1/me: accountKee is not in components.securitySchemes"]
    assert list(wrong_examples(broken)) == [
        "#/paths/~1v1~1games/post/requestBody/content/application~1json"]
