"""The requests the service makes to an account's webhook, as OpenAPI 3.1 ``webhooks``.

Why in the OpenAPI document: a webhook is part of the contract like a response, and 3.1
describes requests an API makes with ``webhooks`` (an operation per event, its body and
headers), where generators and Swagger UI read them. One per note type the service
sends there (:data:`service.play.WEBHOOK_TYPES`); the bodies are the schemas of
:mod:`.schemas.notes`, the headers Standard Webhooks' (``service/webhooks/send.py``
makes them). The AsyncAPI document's webhook channel is built from these
(:mod:`.asyncapi`). See ``docs/accounts.md``, Webhooks.
"""

from __future__ import annotations

from typing import Any

from .schemas.cards import ref
from .schemas.notes import WEBHOOK_TYPES_DOCUMENTED

__all__ = ["WEBHOOKS", "WEBHOOK_HEADERS"]


def _header(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"in": "header", "name": name, "required": True, "description": description,
            "schema": schema}


#: The headers of every delivery (Standard Webhooks), as OpenAPI header parameters.
WEBHOOK_HEADERS = [
    _header("webhook-id", "The event's id: the same at every attempt of it, and for no "
            "other event. Delivery is at least once: keep the ids you handled and skip a "
            "repeat.", {"type": "string", "pattern": "^msg_[0-9a-f]{32}$"}),
    _header("webhook-timestamp", "When this attempt was signed, in Unix seconds: refuse one "
            "more than 5 minutes from your clock (a replay).",
            {"type": "string", "pattern": "^[0-9]+$"}),
    _header("webhook-signature", "`v1,` and the base64 of the HMAC-SHA256 of "
            "`{webhook-id}.{webhook-timestamp}.{body}` (the body's exact bytes), keyed with "
            "the bytes of the account's secret (the base64 after `whsec_`).",
            {"type": "string", "pattern": "^v1,[A-Za-z0-9+/]+={0,2}$"}),
]


def _webhook(note_type: str) -> dict[str, Any]:
    _, (component, _) = WEBHOOK_TYPES_DOCUMENTED[note_type]
    return {"post": {
        "operationId": component[0].lower() + component[1:],
        "summary": f"A `{note_type}` note, POSTed to the account's webhook",
        "description": f"The service POSTs each `{note_type}` note of an account that "
        "registered a `webhook_url` (`PATCH /v1/me`) there, signed with its secret, until a "
        "`2xx` answers it (retried for about a day). Made by the service's workers.",
        "tags": ["me"],
        # No credential of the schemes: the receiver knows the service by the signature.
        "security": [],
        "parameters": WEBHOOK_HEADERS,
        "requestBody": {"required": True, "content": {
            "application/json": {"schema": ref(component)}}},
        "responses": {"2XX": {"description": "Received: the event is delivered. Answer as "
                              "soon as it is stored, and do the work afterwards; any other "
                              "answer (or none within the timeout) is retried."}},
    }}


#: OpenAPI's ``webhooks``, by note type.
WEBHOOKS: dict[str, Any] = {note_type: _webhook(note_type)
                            for note_type in WEBHOOK_TYPES_DOCUMENTED}
