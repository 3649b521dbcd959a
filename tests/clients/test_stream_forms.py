"""The two forms of each stream in the document say the same thing, message by message.

Why: the TypeScript client (openapi/typescript/src/stream.ts) reads a Server-Sent Event
as the NDJSON message of its name, `event: view` as `{"type": "view", "view": …}` and
`event: end` as `{"type": "end", …}`, so that both formats iterate as one typed union
(`StreamMessage`, `AccountStreamMessage`). openapi-typescript types an SSE `data` as a
string (it does not read `contentSchema`), so what makes that reading right is the
document itself: each SSE variant's `data` must have the schema of what the NDJSON
message of the same name carries, and each message an SSE variant.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import ROOT

DOCUMENT = json.loads((ROOT / "openapi" / "openapi.json").read_text())
SCHEMAS: dict[str, Any] = DOCUMENT["components"]["schemas"]
STREAMS = ["/v1/games/{game_id}/stream", "/v1/me/stream"]


def resolve(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = SCHEMAS[schema["$ref"].rsplit("/", 1)[1]]
    return schema


def forms(path: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The stream's NDJSON messages by `type`, and its SSE `data` schemas by event name."""
    content = DOCUMENT["paths"][path]["get"]["responses"]["200"]["content"]
    union = resolve(content["application/x-ndjson"]["schema"]["items"])
    messages = {}
    for variant in union["oneOf"]:
        message = resolve(variant)
        (kind,) = message["properties"]["type"]["enum"]
        messages[kind] = message
    sse = {}
    for variant in resolve(content["text/event-stream"]["schema"])["oneOf"]:
        data = variant["properties"]["data"]
        assert data["contentMediaType"] == "application/json"
        sse[variant["properties"]["event"]["const"]] = data["contentSchema"]
    return messages, sse


@pytest.mark.parametrize("path", STREAMS)
def test_every_ndjson_message_has_a_server_sent_event_of_its_name_and_no_more(path: str) -> None:
    messages, sse = forms(path)
    assert set(messages) == set(sse)


@pytest.mark.parametrize("path", STREAMS)
def test_each_server_sent_event_carries_what_the_ndjson_message_of_its_name_carries(
        path: str) -> None:
    messages, sse = forms(path)
    for kind, message in messages.items():
        fields = {k: v for k, v in message["properties"].items() if k != "type"}
        if kind in fields:  # {"type": "view", "view": …}: the SSE data is the member
            assert list(fields) == [kind], kind
            assert sse[kind] == fields[kind], kind
        else:  # {"type": "end", "reason": …}: the SSE data is the message without `type`
            data = resolve(sse[kind])
            assert data["properties"] == fields, kind
            assert set(data["required"]) == set(message["required"]) - {"type"}, kind
