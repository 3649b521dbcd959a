"""The lobby's listings and matchmaking's seeks: request and response bodies."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from service.core.rules import PRESETS
from service.play import MAX_TURN_SECONDS, SEEK_TURN_SECONDS

from ..names import PlayerName
from .cards import Described, StrictSchema, absent_is_null, check_boolean, ref
from .rules import RulesSchema
from .views import seat_bot, seat_kind

__all__ = ["SEEK", "LobbyPageSchema", "MatchedSeekSchema", "SeekRequestSchema",
           "WaitingSeekSchema"]


class ListedSeatSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True)
    open = fields.Boolean(required=True)
    kind = seat_kind()
    bot = seat_bot()


class ListedGameSchema(Schema):
    """A game as the lobby shows it: public facts only (no hand, stock or seed)."""

    game_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(["open", "in_progress"]))
    preset = fields.String(required=True, validate=validate.OneOf(list(PRESETS)))
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


def _seek_clock() -> int:
    return SEEK_TURN_SECONDS  # a callable: see absent_is_null


class SeekRequestSchema(StrictSchema):
    rules = fields.Raw(load_default=absent_is_null, allow_none=True, metadata={
        "description": "The rules: a spec or a preset name; default classic. Seekers meet "
                       "when their rules resolve to the same options.",
        "anyOf": [ref("RulesSpec"), {"type": "string", "enum": ["classic", "bga", "family"]},
                  {"type": "null"}]})
    players = fields.Integer(required=True, validate=validate.Range(2, 8),
                             metadata={"description": "How many players the game has."})
    name = PlayerName("Your name at the table. Left out, the seek is your account's "
                      "(send its key; the seat is named by its handle): 401 without one.")
    turn_seconds = fields.Integer(
        load_default=_seek_clock, allow_none=True, strict=True,
        validate=validate.Range(1, MAX_TURN_SECONDS),
        metadata={"description": f"The turn clock you ask for, up to 14 days (default "
                  f"{SEEK_TURN_SECONDS}); null: none. You meet seekers who asked for the "
                  "same clock or for none; the game has no clock only if every one of you "
                  "asked for none."})
    rated = fields.Raw(load_default=bool, validate=check_boolean, metadata={
        "type": "boolean", "description": "Whether the game counts for ratings (default "
        "false): rated seeks meet rated seeks only, each an account's (401 without its "
        "key) with a turn clock (422 `invalid_seek` without)."})


class _SeekSchema(Schema):
    seek_id = fields.String(required=True, metadata={
        "description": "The seek's id (not a secret: its token is)."})
    name = fields.String(required=True)
    players = fields.Integer(required=True)
    turn_seconds = fields.Integer(required=True, allow_none=True, metadata={
        "description": "The turn clock this seek asked for (null: none); the game's is in "
                       "its view's `clock`."})
    rated = fields.Boolean(required=True)
    token = fields.String(required=True, allow_none=True, metadata={
        "description": "Your seat's bearer token: it reads and cancels this seek and, once "
                       "matched, plays your seat. Made when the seek is opened and stored "
                       "only as its hash; every answer to its bearer repeats it. Null for "
                       "a seek sent with an account key (the key does all that)."})


class WaitingSeekSchema(_SeekSchema):
    """A seek still waiting for players: no game yet."""

    status = fields.String(required=True, validate=validate.OneOf(["waiting"]))
    expires = fields.String(required=True, metadata={
        "format": "date-time", "description": "When it expires unmatched."})
    game_id = Described({"type": "null", "description": "Null until matched."}, required=True)
    seat = Described({"type": "null", "description": "Null until matched."}, required=True)


class MatchedSeekSchema(_SeekSchema):
    """A matched seek: your seat of its game, which `token` plays."""

    status = fields.String(required=True, validate=validate.OneOf(["matched"]))
    expires = Described({"type": "null", "description": "Null: a matched seek does not "
                         "expire."}, required=True)
    game_id = fields.String(required=True, metadata={
        "description": "Your game: `/v1/games/{game_id}`."})
    seat = fields.Integer(required=True, metadata={"description": "Your seat in it."})


#: A seek, waiting or matched: ``status`` says which (``game_id`` and ``seat`` come with
#: ``matched``, so a typed client gets them without a null check once it checked status).
SEEK: dict[str, Any] = {
    "oneOf": [ref("WaitingSeek"), ref("MatchedSeek")],
    "discriminator": {"propertyName": "status", "mapping": {
        "waiting": "#/components/schemas/WaitingSeek",
        "matched": "#/components/schemas/MatchedSeek"}},
}
