"""Marshmallow schemas: the documented shape of every request and response body.

They are the contract's source: flask-smorest turns them into the OpenAPI
document. Request bodies for games, seats and the solver are *loaded* through
them (strict types, unknown fields refused); rules specs and action bodies are
documented here but validated by the engine alone, so each rule has a single
validator. Responses on hot paths are serialized straight from the engine's
dicts with orjson, and these schemas only document them (the contract tests
check the served bodies against the document).

One module per concept: cards, problem, rules, solve, actions, views, games, events, health.
"""

from __future__ import annotations

from .actions import ActionSchemas
from .cards import CARD_RE
from .events import EventsResponseSchema
from .games import (
    ClaimRequestSchema,
    ClaimResponseSchema,
    CreateGameRequestSchema,
    CreateGameResponseSchema,
)
from .health import HealthSchema
from .problem import ProblemSchema
from .rules import PresetsSchema, RulesSchema, RulesSpecSchema
from .solve import SolveRequestSchema, SolveResponseSchema
from .views import GameViewSchema

__all__ = [
    "CARD_RE",
    "ActionSchemas",
    "ClaimRequestSchema",
    "ClaimResponseSchema",
    "CreateGameRequestSchema",
    "CreateGameResponseSchema",
    "EventsResponseSchema",
    "GameViewSchema",
    "HealthSchema",
    "PresetsSchema",
    "ProblemSchema",
    "RulesSchema",
    "RulesSpecSchema",
    "SolveRequestSchema",
    "SolveResponseSchema",
]
