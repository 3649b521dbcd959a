"""A game's events and the page of them that `GET …/events` returns."""

from __future__ import annotations

from marshmallow import Schema, fields


class EventSchema(Schema):
    """One event. Public fields for everyone; the caller's private ones (a drawn card, a
    dealt hand) merged in. Types: round_started, draw, discard, went_out, laid_down,
    reshuffled, round_ended, game_finished, seat_claimed."""

    seq = fields.Integer(required=True, metadata={"description": "1, 2, 3… over the game."})
    type = fields.String(required=True)

    class Meta:
        unknown = "include"


class EventsResponseSchema(Schema):
    game_id = fields.String(required=True)
    events = fields.List(fields.Nested(EventSchema), required=True)
    next_after = fields.Integer(
        required=True, metadata={"description": "Pass as `after` to continue."}
    )
    more = fields.Boolean(
        required=True, metadata={"description": "Whether more events are already available."}
    )
