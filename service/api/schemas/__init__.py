"""Marshmallow schemas: the documented shape of every request and response body.

They are the contract's source: flask-smorest turns them into the OpenAPI
document. Request bodies for games, seats and the solver are *loaded* through
them (strict types, unknown fields refused); rules specs and action bodies are
documented here but validated by the engine alone, so each rule has a single
validator. Responses on hot paths are serialized straight from the engine's
dicts with orjson, and these schemas only document them (the contract tests
check the served bodies against the document).

One module per concept: cards, problem, rules, solve, actions, views, games, events, health.
:func:`register_components` names them in the document.
"""

from __future__ import annotations

from typing import Any

from apispec import APISpec
from marshmallow import Schema

from .accounts import AccountRequestSchema, AccountSettingsSchema
from .actions import ActionSchemas
from .challenges import ChallengeRequestSchema, ChallengeSchema
from .evaluations import EvaluationRequestSchema, EvaluationSchema
from .events import (
    EVENT_SCHEMAS,
    SSE_EVENT,
    STREAM_MESSAGE,
    STREAM_SCHEMAS,
    EventsResponseSchema,
)
from .games import (
    PLAYER_SPEC_ONE_OF,
    SEAT_TOKEN,
    SEAT_TOKENS,
    ClaimRequestSchema,
    ClaimResponseSchema,
    CreateGameRequestSchema,
    CreateGameResponseSchema,
    PlayerSpecSchema,
)
from .health import HealthSchema
from .lobby import SEEK, MatchedSeekSchema, SeekRequestSchema, WaitingSeekSchema
from .mistakes import MISTAKE_ANSWER
from .notes import (
    ACCOUNT_SSE_EVENT,
    ACCOUNT_STREAM_MESSAGE,
    ANY_NOTE,
    NOTE_SCHEMAS,
    WEBHOOK_SCHEMAS,
    AccountStreamNoteMessageSchema,
)
from .problem import ProblemSchema
from .ratings import LadderEntryRequestSchema
from .records import RecordSchema
from .rules import PresetsSchema, RulesSchema, RulesSpecSchema
from .solve import SolveRequestSchema, SolveResponseSchema
from .tournaments import StandingSchema, TournamentRequestSchema, TournamentSchema
from .views import VIEW_COMPONENTS, VIEW_SCHEMAS

#: The components the document names itself, in order (the others are named by apispec
#: after the schemas that nest them): marshmallow schemas, unions written as JSON Schema
#: (a ``oneOf`` with a discriminator, which a marshmallow schema cannot say), and
#: ``PlayerSpec``, a schema with a ``oneOf`` added. Registered before anything nests
#: them, so each keeps its name.
COMPONENTS: dict[str, type[Schema] | dict[str, Any] | tuple[dict[str, Any], type[Schema]]] = {
    "RulesSpec": RulesSpecSchema,
    "SolveRequest": SolveRequestSchema,
    "PlayerSpec": (PLAYER_SPEC_ONE_OF, PlayerSpecSchema),
    "CreateGameRequest": CreateGameRequestSchema,
    "ClaimRequest": ClaimRequestSchema,
    "SeekRequest": SeekRequestSchema,
    "AccountRequest": AccountRequestSchema,
    "AccountSettings": AccountSettingsSchema,
    "ChallengeRequest": ChallengeRequestSchema,
    "Challenge": ChallengeSchema,
    "LadderEntryRequest": LadderEntryRequestSchema,
    "TournamentRequest": TournamentRequestSchema,
    "Standing": StandingSchema,
    "Tournament": TournamentSchema,
    "EvaluationRequest": EvaluationRequestSchema,
    "Evaluation": EvaluationSchema,
    **ActionSchemas,
    "MistakeAnswer": MISTAKE_ANSWER,
    **VIEW_SCHEMAS,
    **VIEW_COMPONENTS,
    **{name: schema for name, schema in SEAT_TOKENS.values()},
    "SeatToken": SEAT_TOKEN,
    **EVENT_SCHEMAS,
    **STREAM_SCHEMAS,
    "StreamMessage": STREAM_MESSAGE,
    "StreamSseEvent": SSE_EVENT,
    "WaitingSeek": WaitingSeekSchema,
    "MatchedSeek": MatchedSeekSchema,
    "Seek": SEEK,
    "Record": RecordSchema,
    **NOTE_SCHEMAS,
    "AccountNote": ANY_NOTE,
    "AccountStreamNoteMessage": AccountStreamNoteMessageSchema,
    "AccountStreamMessage": ACCOUNT_STREAM_MESSAGE,
    "AccountSseEvent": ACCOUNT_SSE_EVENT,
    **WEBHOOK_SCHEMAS,
}


def register_components(spec: APISpec) -> None:
    """Name every component of :data:`COMPONENTS` in ``spec``."""
    for name, component in COMPONENTS.items():
        if isinstance(component, tuple):
            spec.components.schema(name, component[0], schema=component[1])
        elif isinstance(component, dict):
            spec.components.schema(name, component)
        else:
            spec.components.schema(name, schema=component)

__all__ = [
    "COMPONENTS",
    "ActionSchemas",
    "ClaimRequestSchema",
    "ClaimResponseSchema",
    "CreateGameRequestSchema",
    "CreateGameResponseSchema",
    "EventsResponseSchema",
    "HealthSchema",
    "PresetsSchema",
    "ProblemSchema",
    "RulesSchema",
    "RulesSpecSchema",
    "SolveRequestSchema",
    "SolveResponseSchema",
    "register_components",
]
