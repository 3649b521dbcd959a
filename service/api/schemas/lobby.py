"""The lobby's listings and matchmaking's seeks: request and response bodies."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from ..names import PlayerName
from .cards import StrictSchema, absent_is_null, ref
from .rules import RulesSchema

__all__ = ["LobbyPageSchema", "SeekRequestSchema", "SeekSchema"]


class ListedSeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True)
    open = fields.Boolean(required=True)


class ListedGameSchema(Schema):
    """A game as the lobby shows it: public facts only (no hand, stock or seed)."""

    game_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["open", "in_progress"]))
    preset = fields.String(required=True)
    rules = fields.Nested(RulesSchema, required=True)
    players = fields.Integer(required=True)
    seats = fields.List(fields.Nested(ListedSeatSchema), required=True)
    seats_taken = fields.Integer(required=True)
    seats_open = fields.Integer(required=True)
    round = fields.Integer(required=True, metadata={"description": "The round being played, "
                                                    "from 1."})
    seeded_by_creator = fields.Boolean(
        required=True, metadata={"description": "The creator chose the seed (and can know "
                                 "every hand)."})
    created = fields.String(required=True, metadata={"format": "date-time"})


class LobbyPageSchema(Schema):
    games = fields.List(fields.Nested(ListedGameSchema), required=True)
    next_cursor = fields.String(
        required=True, allow_none=True,
        metadata={"description": "Pass as `cursor` for the next page (null: no more)."})


class SeekRequestSchema(StrictSchema):
    rules = fields.Raw(load_default=absent_is_null, allow_none=True, metadata={
        "description": "The rules: a spec or a preset name; default classic. Seekers meet "
                       "when their rules resolve to the same options.",
        "anyOf": [ref("RulesSpec"), {"type": "string", "enum": ["classic", "bga", "family"]},
                  {"type": "null"}]})
    players = fields.Integer(required=True, validate=validate.Range(2, 8),
                             metadata={"description": "How many players the game has."})
    name = PlayerName("Your name at the table (required, but for a seek sent with an "
                      "account key: the seat is then named by the account's handle).")


class SeekSchema(Schema):
    seek_id = fields.String(required=True, metadata={
        "description": "The seek's id (not a secret: its token is)."})
    status = fields.String(required=True, validate=validate.OneOf(["waiting", "matched"]))
    name = fields.String(required=True)
    players = fields.Integer(required=True)
    expires = fields.String(required=True, allow_none=True, metadata={
        "format": "date-time", "description": "When a waiting seek expires (null: matched)."})
    game_id = fields.String(required=True, allow_none=True)
    seat = fields.Integer(required=True, allow_none=True)
    token = fields.String(required=True, allow_none=True, metadata={
        "description": "Your seat's bearer token: it reads and cancels this seek and, once "
                       "matched, plays your seat. Made when the seek is opened and stored "
                       "only as its hash; every answer to its bearer repeats it. Null for "
                       "a seek sent with an account key (the key does all that)."})
