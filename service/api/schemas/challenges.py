"""Challenges: one account invites others to a game (request and response bodies)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.core.rules import PRESETS
from service.play import (
    CHALLENGE_DEFAULT_SECONDS,
    CHALLENGE_MAX_SECONDS,
    CHALLENGE_TURN_SECONDS,
    HANDLE_PATTERN,
    MAX_TURN_SECONDS,
)

from .cards import StrictSchema, absent_is_null, check_boolean, ref
from .rules import RulesSchema

__all__ = ["ChallengeListSchema", "ChallengeRequestSchema", "ChallengeSchema"]


def _turn_seconds_default() -> int:
    return CHALLENGE_TURN_SECONDS  # a callable: see absent_is_null


def _expires_default() -> int:
    return CHALLENGE_DEFAULT_SECONDS


class ChallengeRequestSchema(StrictSchema):
    to = fields.List(
        fields.String(validate=validate.Regexp(HANDLE_PATTERN),
                      metadata={"pattern": HANDLE_PATTERN}),
        required=True, validate=validate.Length(1, 7),
        metadata={"description": "The handles challenged (1 to 7, each once, not yours): "
                  "accounts, or the reference bots (`random`, `greedy`, `strong`), which "
                  "accept at once. The game's seats are you (seat 0), then these in this "
                  "order.", "uniqueItems": True, "example": ["bob"]})
    rules = fields.Raw(load_default=absent_is_null, allow_none=True, metadata={
        "description": "The rules: a spec or a preset name; default classic.",
        "anyOf": [ref("RulesSpec"), {"type": "string", "enum": list(PRESETS)},
                  {"type": "null"}]})
    turn_seconds = fields.Integer(
        load_default=_turn_seconds_default, allow_none=True,
        validate=validate.Range(1, MAX_TURN_SECONDS),
        metadata={"description": f"Each turn's clock, up to 14 days (default "
                  f"{CHALLENGE_TURN_SECONDS}); null: no clock, which each challenged "
                  "agrees to by accepting."})
    rated = fields.Raw(load_default=bool, validate=check_boolean, metadata={
        "type": "boolean", "description": "Whether the game counts for ratings (default "
        "false)."})
    expires_in = fields.Integer(
        load_default=_expires_default, validate=validate.Range(5, CHALLENGE_MAX_SECONDS),
        metadata={"description": f"Seconds until the challenge expires unanswered "
                  f"(default {CHALLENGE_DEFAULT_SECONDS}, at most {CHALLENGE_MAX_SECONDS})."})


class ChallengeSchema(Schema):
    challenge_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(
        ["pending", "accepted", "declined", "canceled", "expired"]), metadata={
        "description": "`pending` until everyone challenged accepted (`accepted`, with "
                       "`game_id`), one declined (`declined`), the challenger canceled it "
                       "(`canceled`) or it expired unanswered (`expired`)."})
    challenger = fields.String(required=True, metadata={"description": "Who challenged."})
    to = fields.List(fields.String(), required=True, metadata={
        "description": "Who is challenged, in seat order after the challenger."})
    accepted = fields.List(fields.String(), required=True, metadata={
        "description": "Those challenged who accepted so far."})
    declined_by = fields.String(required=True, allow_none=True)
    rules = fields.Nested(RulesSchema, required=True)
    players = fields.Integer(required=True)
    turn_seconds = fields.Integer(required=True, allow_none=True)
    rated = fields.Boolean(required=True)
    created = fields.String(required=True, metadata={"format": "date-time"})
    expires = fields.String(required=True, metadata={
        "format": "date-time", "description": "When a pending challenge expires."})
    game_id = fields.String(required=True, allow_none=True, metadata={
        "description": "The game once accepted: `/v1/games/{game_id}`, played with your key."})


class ChallengeListSchema(Schema):
    challenges = fields.List(fields.Nested(ChallengeSchema), required=True, metadata={
        "description": "Pending challenges, soonest to expire first."})
