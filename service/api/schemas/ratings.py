"""Ratings, their history and the leaderboards: response bodies (docs/ratings.md)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.core.rules import PRESETS

from .cards import StrictSchema

__all__ = ["LadderEntryRequestSchema", "LadderEntrySchema", "LadderSchema", "LeaderboardSchema",
           "RatingHistorySchema", "RatingSchema"]


class RatingSchema(Schema):
    """One rating, as shown: its deviation grown with the time since the last rated game."""

    rating = fields.Float(required=True, metadata={"example": 1500.0})
    deviation = fields.Float(required=True, metadata={
        "description": "Glicko-2's rating deviation: about 95% sure the strength is within "
                       "twice this of `rating`.", "example": 350.0})
    games = fields.Integer(required=True, metadata={"description": "Rated games played."})
    provisional = fields.Boolean(required=True, metadata={
        "description": "The deviation is 110 or more: too few recent games to trust yet."})


class RatingPointSchema(Schema):
    game_id = fields.String(required=True)
    at = fields.String(required=True, metadata={"format": "date-time",
                                                "description": "When the game ended."})
    rating = fields.Float(required=True)
    deviation = fields.Float(required=True)
    place = fields.Integer(required=True, metadata={"description": "The place from 1."})
    players = fields.Integer(required=True)


class RatingHistorySchema(Schema):
    handle = fields.String(required=True)
    preset = fields.String(required=True, validate=validate.OneOf(list(PRESETS)))
    rating = fields.Nested(RatingSchema, required=True, metadata={
        "description": "The rating now."})
    history = fields.List(fields.Nested(RatingPointSchema), required=True, metadata={
        "description": "The rating after each rated game, oldest first."})
    next_start = fields.Integer(required=True, allow_none=True, metadata={
        "description": "Pass as `start` for the next page (null: no more)."})


class LeaderboardEntrySchema(Schema):
    rank = fields.Integer(required=True, metadata={"description": "From 1."})
    handle = fields.String(required=True)
    bot = fields.Boolean(required=True)
    rating = fields.Float(required=True)
    deviation = fields.Float(required=True)
    games = fields.Integer(required=True)


class LeaderboardSchema(Schema):
    preset = fields.String(required=True, validate=validate.OneOf(list(PRESETS)))
    bot = fields.Boolean(required=True)
    entries = fields.List(fields.Nested(LeaderboardEntrySchema), required=True)
    next_start = fields.Integer(required=True, allow_none=True, metadata={
        "description": "Pass as `start` for the next page (null: no more)."})


def _two() -> int:
    """A callable ``load_default``: applied, but not written in the document as a default
    (generators would read the field as always sent: see ``absent_is_null``)."""
    return 2


def _four() -> int:
    return 4


def _one() -> int:
    return 1


class LadderEntryRequestSchema(StrictSchema):
    min_players = fields.Integer(load_default=_two, strict=True, validate=validate.Range(2, 8),
                                 metadata={"description": "The smallest table you play "
                                           "(default 2)."})
    max_players = fields.Integer(load_default=_four, strict=True, validate=validate.Range(2, 8),
                                 metadata={"description": "The largest table you play "
                                           "(default 4)."})
    games_at_once = fields.Integer(load_default=_one, strict=True, validate=validate.Range(1, 4),
                                   metadata={"description": "How many ladder games you play "
                                             "at once (1-4, default 1)."})


class _LadderTablesSchema(Schema):
    """The tables a member plays and how many games at once."""

    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    games_at_once = fields.Integer(required=True)


class LadderEntrySchema(_LadderTablesSchema):
    preset = fields.String(required=True, validate=validate.OneOf(list(PRESETS)))
    ladder = fields.Boolean(required=True, metadata={"description": "On the ladder."})


class LadderMemberSchema(_LadderTablesSchema):
    handle = fields.String(required=True)
    reference = fields.Boolean(required=True, metadata={
        "description": "A reference bot: a permanent member, its rating a fixed anchor."})
    rating = fields.Float(required=True)
    playing = fields.Integer(required=True, metadata={"description": "Ladder games in play."})


class LadderGameSchema(Schema):
    game_id = fields.String(required=True)
    players = fields.List(fields.String(), required=True, metadata={
        "description": "The handles seated, by seat."})


class LadderSchema(Schema):
    preset = fields.String(required=True, validate=validate.OneOf(list(PRESETS)))
    members = fields.List(fields.Nested(LadderMemberSchema), required=True, metadata={
        "description": "Highest rating first."})
    games = fields.List(fields.Nested(LadderGameSchema), required=True, metadata={
        "description": "The ladder games in play (watch one: `GET /v1/games/{game_id}`)."})
