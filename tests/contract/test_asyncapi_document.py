"""The committed AsyncAPI document is what the app serves at /asyncapi.json, its schemas are
the OpenAPI document's own, and every event, note and webhook type has its message.

That it is valid AsyncAPI 3.0 is tests/asyncapi/test_asyncapi_parser.py's (the AsyncAPI
Initiative's parser, on Node); that the messages a running server sends are the ones it
describes is tests/asyncapi/test_pushed_messages.py's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from service.api.schemas.events import EVENT_TYPES
from service.api.schemas.notes import NOTE_TYPES
from service.app import create_app
from service.config import Config
from service.play import WEBHOOK_TYPES

COMMITTED = Path(__file__).resolve().parents[2] / "openapi" / "asyncapi.json"


def served(path: str = "/asyncapi.json") -> dict[str, Any]:
    app = create_app(Config(redis_url="redis://127.0.0.1:9/0"))
    return app.test_client().get(path).json  # type: ignore[no-any-return]


def at(document: dict[str, Any], pointer: str) -> Any:
    node: Any = document
    for part in pointer.removeprefix("#/").split("/"):
        node = node[part]
    return node


def deref(document: dict[str, Any], node: Any) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        node = at(document, node["$ref"])
    return node


def refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs(item)


def variant_types(document: dict[str, Any], union: Any) -> set[str]:
    """The ``type`` each variant of a ``oneOf`` union takes."""
    union = deref(document, union)
    assert union["discriminator"] == "type"
    found = set()
    for variant in union["oneOf"]:
        [value] = deref(document, variant)["properties"]["type"]["enum"]
        found.add(value)
    return found


def channel_messages(document: dict[str, Any], channel: str) -> list[dict[str, Any]]:
    return [deref(document, m) for m in document["channels"][channel]["messages"].values()]


def test_the_committed_document_matches_the_served_one() -> None:
    committed = json.loads(COMMITTED.read_text())
    assert committed["asyncapi"] == "3.0.0"
    assert committed == served(), "the API changed: run `make openapi` and commit the result"


def test_every_reference_resolves_inside_the_document() -> None:
    document = served()
    for ref in set(refs(document)):
        assert at(document, ref) is not None, ref


def test_the_schemas_are_the_openapi_documents_own_with_asyncapis_discriminator() -> None:
    """The same JSON Schemas, not a second copy: each component is the OpenAPI one, but
    its discriminator, which AsyncAPI writes as the property's name alone."""
    openapi = served("/openapi.json")["components"]["schemas"]
    schemas = served()["components"]["schemas"]
    assert {"GameView", "StreamEnd", "AccountNote", "ChallengeWebhook"} <= set(schemas)

    def as_openapi(node: Any, original: Any) -> Any:
        if isinstance(node, dict):
            return {k: original[k] if k == "discriminator" else as_openapi(v, original[k])
                    for k, v in node.items()}
        if isinstance(node, list):
            return [as_openapi(v, o) for v, o in zip(node, original, strict=True)]
        return node

    for name, schema in schemas.items():
        assert as_openapi(schema, openapi[name]) == openapi[name], name
    text = json.dumps(schemas)
    assert text.count('"discriminator": "') >= 3  # the event, note and view unions
    assert '"discriminator": {' not in text


def test_every_event_type_is_in_the_game_streams_event_messages() -> None:
    document = served()
    for message in channel_messages(document, "gameStream"):
        if message["name"] == "event":
            payload = deref(document, message["payload"])
            union = payload["properties"]["event"] if "properties" in payload else payload
            assert variant_types(document, union) == set(EVENT_TYPES), message["title"]


def test_every_note_type_is_in_the_account_streams_note_messages() -> None:
    document = served()
    notes = [m for m in channel_messages(document, "accountStream") if m["name"] == "event"]
    assert len(notes) == 2  # NDJSON and SSE
    for message in notes:
        payload = deref(document, message["payload"])
        union = payload["properties"]["event"] if "properties" in payload else payload
        assert variant_types(document, union) == set(NOTE_TYPES), message["title"]


def test_every_note_type_sent_to_webhooks_has_its_message() -> None:
    document = served()
    messages = channel_messages(document, "webhook")
    assert {m["name"] for m in messages} == WEBHOOK_TYPES
    for message in messages:
        body = deref(document, message["payload"])
        assert body["properties"]["type"]["enum"] == [message["name"]]
        assert {"webhook-id", "webhook-timestamp", "webhook-signature"} <= set(
            message["headers"]["required"])


def test_both_streams_list_each_message_once_per_format() -> None:
    document = served()
    kinds = {"gameStream": {"event", "view", "analysis", "end", "heartbeat"},
             "accountStream": {"event", "end", "heartbeat"}}
    for channel, names in kinds.items():
        messages = channel_messages(document, channel)
        by_format = {(m["contentType"], m["name"]) for m in messages}
        assert len(by_format) == len(messages), channel
        assert by_format == ({("application/x-ndjson", n) for n in names}
                             | {("text/event-stream", n) for n in names | {"retry"}})
