"""Ratings, their history and the leaderboards: response bodies (docs/ratings.md)."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.core.rules import PRESETS

__all__ = ["LeaderboardSchema", "RatingHistorySchema", "RatingSchema"]


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
