"""The pieces the AsyncAPI document's messages are written with (:mod:`.asyncapi`,
:mod:`.asyncapi_many`): a reference to an OpenAPI component, a Server-Sent Events
message's fields as headers, a message."""

from __future__ import annotations

from typing import Any

from service.play import END_RETRY_MS

__all__ = ["COMPONENT", "message", "ref", "sse_headers"]

COMPONENT = "#/components/schemas/"


def ref(name: str) -> dict[str, str]:
    return {"$ref": COMPONENT + name}


def sse_headers(event: str | None = None, *, seq: str | None = None, retry: bool = False,
                 comment: str | None = None) -> dict[str, Any]:
    """The fields of a Server-Sent Events message other than ``data``, as its headers."""
    properties: dict[str, Any] = {}
    if event is not None:
        properties["event"] = {"type": "string", "const": event,
                               "description": "The `event` field: the message's name."}
    if seq is not None:
        properties["id"] = {"type": "string", "pattern": "^[0-9]+$", "description":
                            f"The `id` field: the {seq}'s `seq`, which `EventSource` sends "
                            "back as `Last-Event-ID` when it reconnects."}
    if retry:
        properties["retry"] = {"type": "string", "pattern": "^[0-9]+$", "description":
                               "The `retry` field: the reconnect delay in milliseconds "
                               f"(the service sends {END_RETRY_MS})."}
    if comment is not None:
        properties["comment"] = {"type": "string", "const": comment,
                                 "description": "A comment line's text (`EventSource` "
                                 "ignores it)."}
    return {"type": "object", "properties": properties, "required": list(properties),
            "additionalProperties": False}


def message(name: str, title: str, summary: str, content_type: str,
             payload: dict[str, Any] | None, headers: dict[str, Any] | None = None,
             description: str | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"name": name, "title": title, "summary": summary,
                               "contentType": content_type}
    if description is not None:
        message["description"] = description
    if headers is not None:
        message["headers"] = headers
    if payload is not None:
        message["payload"] = payload
    return message
