"""``GET /asyncapi.json``: the AsyncAPI 3 document of what the service pushes.

The OpenAPI document describes requests and their answers; a stream is one answer that
goes on for an hour, and a webhook is a request the service makes. AsyncAPI describes
those as channels of messages: a game's stream, an account's stream and an account's
webhook events, every message the service sends on each (``docs/streams.md``,
``docs/accounts.md``).

Why built from the OpenAPI document, at run time: the shapes are the marshmallow
schemas' (``service/api/schemas``), which apispec turns into the OpenAPI document's
``components.schemas``. This document takes those components as they are, the ones its
messages reach, under the same names, so their references (``#/components/schemas/…``)
mean the same in both and a change of a schema changes both documents at once. One
keyword is rewritten: OpenAPI's ``discriminator`` is an object (``propertyName``,
``mapping``), AsyncAPI's is the property's name alone (each variant's ``type`` enum
already says which it is). AsyncAPI's default schema format is a superset of JSON
Schema draft 07, and what the OpenAPI 3.1 components use is draft 07 too (type arrays,
``const``, ``enum``; the siblings of a ``$ref`` are descriptions only), so a message
validates against the same schema in either document.

The webhook channel is the OpenAPI document's ``webhooks`` (:mod:`.webhooks`): a message
per webhook, its body and its headers.

How a message is written down: each one is listed once per format of a stream, its
``name`` being what a client switches on. NDJSON: the payload is the line's JSON, whose
``type`` is the name (a heartbeat is an empty line). Server-Sent Events: the payload is
the ``data`` field parsed as JSON (what ``EventSource`` hands over as ``event.data``),
and the message's other fields are its headers: ``event`` (the name), ``id``, ``retry``,
and a comment's text as ``comment`` (the heartbeat). The framing itself is
:mod:`.stream`'s; ``tests/asyncapi`` checks what a running server sends against this.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import orjson
from flask import Blueprint, Response, current_app

from service.play import TICKET_TTL_SECONDS
from service.wire.framing import NDJSON, SSE

from .asyncapi_many import GAMES_CHANNEL, GAMES_MESSAGES, GAMES_OPERATION
from .asyncapi_parts import COMPONENT as _COMPONENT
from .asyncapi_parts import message as _message
from .asyncapi_parts import ref as _ref
from .asyncapi_parts import sse_headers as _sse_headers

__all__ = ["ASYNCAPI_VERSION", "asyncapi_document", "blp"]

ASYNCAPI_VERSION = "3.0.0"

#: Where the document is served (beside ``/openapi.json``; not an operation of the API).
blp = Blueprint("asyncapi", __name__)

DESCRIPTION = """\
What the Three-Thirteen service pushes, beside its requests and answers (the OpenAPI
document, `/openapi.json`):

* **A game's stream**, `GET /v1/games/{game_id}/stream`: the events, the bearer's view
  after each move, heartbeats while idle, a finished game's analysis progress, and a
  last `end` (docs/streams.md).
* **A stream of many games**, `POST /v1/streams/games` (served by the push tier only):
  every message of each game's own stream, each with the game's id as `game`, for up to
  500 games changed while it is open (`…/{stream_id}/add`, `…/remove`; docs/streams.md).
* **An account's stream**, `GET /v1/me/stream`: the account's notes (challenges, its
  games starting, its turns, its games over, its tournaments), heartbeats and `end`
  (docs/accounts.md).
* **Webhook events**: the notes an account's webhook is sent (the `webhook` channel's
  messages), POSTed to its `webhook_url` and signed as Standard Webhooks says
  (docs/accounts.md, Webhooks).

The schemas are the OpenAPI document's components, under the same names.

Both streams are Server-Sent Events (`Accept: text/event-stream`, `*/*` or none) or
newline-delimited JSON (`Accept: application/x-ndjson`); each message is listed once per
format, its `name` being what a client switches on:

* NDJSON: the payload is one line's JSON, whose `type` is the name. A heartbeat is an
  empty line (its payload here: the empty string).
* Server-Sent Events: the payload is the `data` field parsed as JSON (what `EventSource`
  gives as `event.data`); the headers are the message's other fields: `event` (the name),
  `id` (an event's or a note's `seq`: the cursor `Last-Event-ID` resumes from) and
  `retry` (the reconnect delay in milliseconds). A heartbeat is the comment `: ping`
  (headers `{"comment": "ping"}`); every stream starts with a lone `retry` field.

A client skips a name it does not know: new ones may be added, and the ones there are do
not change.
"""


_HEARTBEAT = ("A heartbeat, sent when nothing else was for `STREAM_HEARTBEAT_SECONDS` "
              "(15 s), so proxies keep the connection open.")
_END = ("The stream's last message, with why it ends: `finished` (the game is over: do not "
        "reconnect), `max_duration`, `shutdown` or `unavailable` (reconnect after "
        "`retry_ms` from the last `seq` received).")

#: The messages of the streams, by id (each channel lists those it sends; a stream of many
#: games' own are :mod:`.asyncapi_many`'s).
STREAM_MESSAGES: dict[str, dict[str, Any]] = {
    # a game's stream
    "gameEventLine": _message(
        "event", "Event (NDJSON)", "One event of the game's log, with the bearer's private "
        "fields.", NDJSON, _ref("StreamEventMessage")),
    "gameEventSse": _message(
        "event", "Event (SSE)", "One event of the game's log, with the bearer's private "
        "fields.", SSE, {"$ref": _COMPONENT + "StreamEventMessage/properties/event"},
        _sse_headers("event", seq="event")),
    "viewLine": _message(
        "view", "View (NDJSON)", "The bearer's whole view after the events of a move (or on "
        "connect): what `GET /v1/games/{game_id}` answers it.", NDJSON,
        _ref("StreamViewMessage")),
    "viewSse": _message(
        "view", "View (SSE)", "The bearer's whole view after the events of a move (or on "
        "connect): what `GET /v1/games/{game_id}` answers it.", SSE, _ref("GameView"),
        _sse_headers("view")),
    "analysisLine": _message(
        "analysis", "Analysis progress (NDJSON)", "Where a finished game's analysis stands: "
        "sent at once and at each change until it is `done`.", NDJSON,
        _ref("StreamAnalysisMessage")),
    "analysisSse": _message(
        "analysis", "Analysis progress (SSE)", "Where a finished game's analysis stands: "
        "sent at once and at each change until it is `done`.", SSE, _ref("StreamAnalysis"),
        _sse_headers("analysis")),
    # an account's stream
    "noteLine": _message(
        "event", "Note (NDJSON)", "One note of the account's log.", NDJSON,
        _ref("AccountStreamNoteMessage")),
    "noteSse": _message(
        "event", "Note (SSE)", "One note of the account's log.", SSE, _ref("AccountNote"),
        _sse_headers("event", seq="note")),
    # both streams
    "endLine": _message("end", "End (NDJSON)", _END, NDJSON, _ref("StreamEndMessage")),
    "endSse": _message("end", "End (SSE)", _END, SSE, _ref("StreamEnd"),
                       _sse_headers("end", retry=True)),
    "heartbeatLine": _message(
        "heartbeat", "Heartbeat (NDJSON)", _HEARTBEAT, NDJSON,
        {"type": "string", "const": "", "description": "An empty line."}),
    "heartbeatSse": _message("heartbeat", "Heartbeat (SSE)", _HEARTBEAT, SSE, None,
                             _sse_headers(comment="ping")),
    "retrySse": _message(
        "retry", "Reconnect delay (SSE)", "The stream's first message: a lone `retry` "
        "field, the delay `EventSource` waits before it reconnects.", SSE, None,
        _sse_headers(retry=True)),
    # a stream of many games
    **GAMES_MESSAGES,
}

GAME_STREAM = ("gameEventLine", "viewLine", "analysisLine", "endLine", "heartbeatLine",
               "gameEventSse", "viewSse", "analysisSse", "endSse", "heartbeatSse",
               "retrySse")
ACCOUNT_STREAM = ("noteLine", "endLine", "heartbeatLine",
                  "noteSse", "endSse", "heartbeatSse", "retrySse")



def _webhook_messages(openapi: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """One message per webhook of the OpenAPI document (one per note type the service
    POSTs): its body, and its headers (names in lower case, as HTTP's are
    case-insensitive) with the body's content type."""
    messages = {}
    for note_type, item in openapi["webhooks"].items():
        post = item["post"]
        [(content_type, body)] = post["requestBody"]["content"].items()
        sent = [p for p in post["parameters"] if p["in"] == "header"]
        headers = {p["name"].lower(): {**p["schema"], "description": p["description"]}
                   for p in sent}
        headers["content-type"] = {"type": "string", "const": content_type}
        required = [p["name"].lower() for p in sent if p.get("required")]
        messages[post["operationId"]] = _message(
            note_type, f"`{note_type}` (webhook)", post["summary"] + ".", content_type,
            body["schema"], {"type": "object", "required": [*required, "content-type"],
                             "properties": headers},
            post["description"])
    return messages


def _channel_messages(ids: tuple[str, ...] | list[str]) -> dict[str, Any]:
    return {m: {"$ref": f"#/components/messages/{m}"} for m in ids}


def _operation(channel: str, title: str, summary: str, description: str,
               messages: tuple[str, ...] | list[str], bindings: dict[str, Any],
               security: list[str] | None = None) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "action": "send", "channel": {"$ref": f"#/channels/{channel}"}, "title": title,
        "summary": summary, "description": description,
        "bindings": {"http": {**bindings, "bindingVersion": "0.3.0"}},
        "messages": [{"$ref": f"#/channels/{channel}/messages/{m}"} for m in messages],
    }
    if security is not None:
        operation["security"] = [{"$ref": f"#/components/securitySchemes/{s}"}
                                 for s in security]
    return operation


def _query(openapi: dict[str, Any], path: str) -> dict[str, Any]:
    """The query parameters of ``GET path`` in the OpenAPI document, as one schema."""
    parameters = [p for p in openapi["paths"][path]["get"].get("parameters", [])
                  if p["in"] == "query"]
    return {"type": "object", "properties": {
        p["name"]: {**p["schema"], "description": p["description"]} for p in parameters}}


def _refs(node: Any) -> Iterator[str]:
    """Every ``$ref`` under ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def _reached(schemas: dict[str, Any], roots: Any) -> list[str]:
    """The names of the components ``roots`` reach through ``$ref``s, in the OpenAPI
    document's order."""
    seen: set[str] = set()
    todo = list(_refs(roots))
    while todo:
        ref = todo.pop()
        if not ref.startswith(_COMPONENT):
            continue
        name = ref[len(_COMPONENT):].split("/")[0]
        if name not in seen:
            seen.add(name)
            todo.extend(_refs(schemas[name]))
    return [name for name in schemas if name in seen]


def _as_asyncapi_schema(node: Any) -> Any:
    """An OpenAPI 3.1 schema as AsyncAPI's schema format takes it: each ``discriminator``
    object becomes its ``propertyName`` (the only difference the components meet)."""
    if isinstance(node, dict):
        return {key: value["propertyName"] if key == "discriminator"
                and isinstance(value, dict) else _as_asyncapi_schema(value)
                for key, value in node.items()}
    if isinstance(node, list):
        return [_as_asyncapi_schema(item) for item in node]
    return node


def asyncapi_document(openapi: dict[str, Any]) -> dict[str, Any]:
    """The AsyncAPI 3 document of the streams and webhooks, from the OpenAPI document
    ``openapi`` (as ``/openapi.json`` serves it): its schemas, its webhooks, its security
    schemes, the streams' query parameters and its version."""
    webhooks = _webhook_messages(openapi)
    messages = copy.deepcopy({**STREAM_MESSAGES, **webhooks})
    told = ", ".join(f"`{m['name']}`" for m in webhooks.values())
    schemas = openapi["components"]["schemas"]
    game_path, account_path = "/v1/games/{game_id}/stream", "/v1/me/stream"
    ticket = (f"A stream ticket (`POST …/stream-tickets`: single use, valid "
              f"{TICKET_TTL_SECONDS} s) as `?ticket=`, for a client that cannot send "
              "`Authorization` (`EventSource`).")
    return {
        "asyncapi": ASYNCAPI_VERSION,
        "info": {
            "title": f"{openapi['info']['title']}: streams and webhooks",
            "version": openapi["info"]["version"],
            "description": DESCRIPTION,
            "license": {"name": openapi["info"]["license"]["name"]},
        },
        "defaultContentType": "application/json",
        "servers": {
            "service": {
                "host": "{host}", "protocol": "http", "title": "The service",
                "description": "The service that serves this document, over `http` or "
                               "`https` as it is deployed; the streams' addresses are "
                               "its paths, as in the OpenAPI document.",
                "variables": {"host": {"description": "The host (and port) serving this "
                                       "document.", "default": "127.0.0.1:8000"}},
            },
            "webhookReceiver": {
                "host": "{host}", "protocol": "https", "title": "A webhook receiver",
                "description": "The host of an account's `webhook_url` (`PATCH /v1/me`): "
                               "`https` or `http`, a public address on a web port unless "
                               "the operator allows others (`WEBHOOK_ALLOW_PRIVATE`).",
                "variables": {"host": {"description": "The `webhook_url`'s host and "
                                       "port."}},
            },
        },
        "channels": {
            "gameStream": {
                "address": game_path, "title": "A game's stream",
                "description": "Follows one game: on connect the events after the cursor "
                "(`Last-Event-ID` or `?after=`), then the bearer's view; on every move its "
                "events, then the new view; heartbeats while nothing happens; on a finished "
                "game whose analysis is queued or running, its progress until done; a last "
                "`end`. A spectator gets the public fields, a seat its own private ones "
                "too. See docs/streams.md.",
                "servers": [{"$ref": "#/servers/service"}],
                "parameters": {"game_id": {"description": "The game's id."}},
                "messages": _channel_messages(GAME_STREAM),
            },
            "gamesStream": GAMES_CHANNEL,
            "accountStream": {
                "address": account_path, "title": "An account's stream",
                "description": "The account's notes after the cursor (`Last-Event-ID` or "
                "`?after=`), each once and in order across reconnections, then each as it "
                "is written; heartbeats while nothing happens; a last `end` "
                "(`max_duration`, `shutdown` or `unavailable`). See docs/accounts.md.",
                "servers": [{"$ref": "#/servers/service"}],
                "messages": _channel_messages(ACCOUNT_STREAM),
            },
            "webhook": {
                "address": None, "title": "An account's webhook",
                "description": "The account's `webhook_url` (registered with `PATCH /v1/me`; "
                "its address is the account's to choose). Each event is POSTed until a "
                "`2xx` answers it, retried for about a day. See docs/accounts.md, "
                "Webhooks.",
                "servers": [{"$ref": "#/servers/webhookReceiver"}],
                "messages": _channel_messages(list(webhooks)),
            },
        },
        "operations": {
            "streamGame": _operation(
                "gameStream", "Follow a game", "The service pushes a game's events and "
                "views to a client that opened its stream.",
                "`GET /v1/games/{game_id}/stream` (the OpenAPI operation `streamGame`), "
                "answered as Server-Sent Events or NDJSON by `Accept`. A spectator sends "
                "no credential; a seat sends its token, or a ticket. " + ticket,
                GAME_STREAM, {"method": "GET", "query": _query(openapi, game_path)},
                ["seatToken", "streamTicket"]),
            "streamGames": _operation("gamesStream", *GAMES_OPERATION),
            "streamMe": _operation(
                "accountStream", "Follow an account", "The service pushes an account's "
                "notes to a client that opened its stream.",
                "`GET /v1/me/stream` (the OpenAPI operation `streamMe`), answered as "
                "Server-Sent Events or NDJSON by `Accept`, with the account's key or a "
                "ticket. " + ticket,
                ACCOUNT_STREAM, {"method": "GET", "query": _query(openapi, account_path)},
                ["accountKey", "streamTicket"]),
            "postWebhook": _operation(
                "webhook", "Post an account's webhook events", "The service POSTs an "
                f"account's {told} notes to its webhook.",
                "One `POST` per event, signed with the account's webhook secret (Standard "
                "Webhooks: the `webhook-*` headers). Made by the service's workers; a "
                "`2xx` answer ends it, anything else is retried.",
                list(webhooks), {"method": "POST"}),
        },
        "components": {
            "schemas": {name: _as_asyncapi_schema(schemas[name])
                        for name in _reached(schemas, messages)},
            "messages": messages,
            "securitySchemes": {
                **copy.deepcopy(openapi["components"]["securitySchemes"]),
                "streamTicket": {"type": "httpApiKey", "name": "ticket", "in": "query",
                                 "description": ticket},
            },
        },
    }


@blp.get("/asyncapi.json")
def asyncapi_json() -> Response:
    """The document, built once per app from the OpenAPI document it serves."""
    services = current_app.extensions
    body = services.get("asyncapi_json")
    if body is None:
        spec = services["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
        body = services["asyncapi_json"] = orjson.dumps(asyncapi_document(spec))
    return Response(body, content_type="application/json")
