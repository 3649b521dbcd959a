"""Tournaments: request and response bodies (the rules: docs/tournaments.md)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.core.rules import PRESETS
from service.play import HANDLE_PATTERN, MAX_ENTRANTS, MAX_ROUNDS, MAX_TURN_SECONDS

from ..names import PlayerName
from .cards import StrictSchema, absent_is_null, check_boolean, ref

__all__ = ["TournamentListSchema", "TournamentRequestSchema", "TournamentSchema"]


def _turn_seconds_default() -> int:
    return 60  # a callable: see absent_is_null


class TournamentRequestSchema(StrictSchema):
    name = PlayerName("The tournament's name.", max_length=60, required=True)
    system = fields.String(required=True, validate=validate.OneOf(["swiss", "round_robin"]),
                           metadata={"description": "`swiss` (paired round by round from the "
                                     "standings) or `round_robin` (scheduled at the start)."})
    seats = fields.Integer(required=True, validate=validate.Range(2, 8),
                           metadata={"description": "Players at each table."})
    rounds = fields.Integer(load_default=absent_is_null, allow_none=True,
                            validate=validate.Range(1, MAX_ROUNDS),
                            metadata={"description": "Swiss: how many rounds (required). "
                                      "A round robin has as many as its schedule."})
    rules = fields.Raw(load_default=absent_is_null, allow_none=True, metadata={
        "description": "The games' rules: a spec or a preset name; default classic. A "
        "rated tournament plays a preset unchanged.",
        "anyOf": [ref("RulesSpec"), {"type": "string", "enum": list(PRESETS)},
                  {"type": "null"}]})
    turn_seconds = fields.Integer(
        load_default=_turn_seconds_default, allow_none=True,
        validate=validate.Range(1, MAX_TURN_SECONDS),
        metadata={"description": "Each turn's clock (default 60); null: none."})
    rated = fields.Raw(load_default=bool, validate=check_boolean, metadata={
        "type": "boolean", "description": "Whether its games count for ratings."})
    entrants = fields.List(
        fields.String(validate=validate.Regexp(HANDLE_PATTERN),
                      metadata={"pattern": HANDLE_PATTERN}),
        load_default=absent_is_null, allow_none=True, validate=validate.Length(0, MAX_ENTRANTS),
        metadata={"description": "The accounts invited (each once; each must take "
                  "invitations from you, as for a challenge): they hear "
                  "`tournament_invited` and play once they accept (`join`); name yourself "
                  "to play too. Absent or empty: open to any account that joins until it "
                  "starts."})
    starts_at = fields.Float(load_default=absent_is_null, allow_none=True, metadata={
        "description": "When it starts (Unix seconds, from now to a year ahead); null: when "
        "its creator starts it.", "minimum": 0})


class _Table(Schema):
    game_id = fields.String(required=True)
    players = fields.List(fields.String(), required=True, metadata={
        "description": "In turn order: the first moves first in the game's first round."})
    finished = fields.Boolean(required=True)


class _Played(Schema):
    round = fields.Integer(required=True)
    tables = fields.List(fields.Nested(_Table), required=True)
    byes = fields.List(fields.String(), required=True)


class StandingSchema(Schema):
    place = fields.Integer(required=True)
    handle = fields.String(required=True)
    points = fields.Float(required=True)
    buchholz = fields.Float(required=True, metadata={
        "description": "The sum of the points of every opponent met."})
    total = fields.Integer(required=True, metadata={
        "description": "The sum of the player's final totals (lower is better)."})
    games = fields.Integer(required=True)
    byes = fields.Integer(required=True)
    first_seats = fields.Integer(required=True, metadata={
        "description": "Games in which the player moved first."})


class TournamentSchema(Schema):
    tournament_id = fields.String(required=True)
    name = fields.String(required=True)
    creator = fields.String(required=True)
    system = fields.String(required=True, validate=validate.OneOf(["swiss", "round_robin"]))
    seats = fields.Integer(required=True)
    rounds = fields.Integer(required=True, allow_none=True, metadata={
        "description": "How many rounds (a round robin's: null until it starts)."})
    status = fields.String(required=True,
                           validate=validate.OneOf(["open", "running", "finished"]))
    open = fields.Boolean(required=True, metadata={"description": "Open to join."})
    rules = fields.Dict(required=True)
    turn_seconds = fields.Integer(required=True, allow_none=True)
    rated = fields.Boolean(required=True)
    entrants = fields.List(fields.String(), required=True, metadata={
        "description": "The accounts that play: who joined, or accepted an invitation."})
    invited = fields.List(fields.String(), required=True, metadata={
        "description": "Accounts invited that have not answered yet: each plays once it "
        "accepts (`join`), and drops out if it has not by the start."})
    created = fields.String(required=True, metadata={"format": "date-time"})
    starts_at = fields.String(required=True, allow_none=True, metadata={"format": "date-time"})
    started = fields.String(required=True, allow_none=True, metadata={"format": "date-time"})
    finished = fields.String(required=True, allow_none=True, metadata={"format": "date-time"})
    played = fields.List(fields.Nested(_Played), required=True)
    standings = fields.List(fields.Nested(StandingSchema), required=True)


class TournamentListSchema(Schema):
    tournaments = fields.List(fields.Nested(TournamentSchema), required=True)
    next_cursor = fields.String(required=True, allow_none=True)
