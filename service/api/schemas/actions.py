"""Action bodies (draw, discard, go out): documented here, validated by the engine alone;
a view's `legal_actions` lists them as a oneOf."""

from __future__ import annotations

from marshmallow import fields, validate

from .cards import CardIn, StrictSchema, ref


class DrawActionSchema(StrictSchema):
    type = fields.String(required=True, validate=validate.OneOf(["draw"]))
    source = fields.String(
        required=True, validate=validate.OneOf(["stock", "discard"]),
        metadata={"description": "Top of the stock, or top of the discard pile."},
    )


class DiscardActionSchema(StrictSchema):
    type = fields.String(required=True, validate=validate.OneOf(["discard"]))
    card = CardIn(required=True)


class GoOutActionSchema(StrictSchema):
    type = fields.String(required=True, validate=validate.OneOf(["go_out"]))
    discard = CardIn(required=True)
    melds = fields.List(
        fields.List(CardIn()),
        metadata={"description": "Optional: the melds to lay (checked); without them the "
                  "optimal arrangement is used."},
    )


ActionSchemas = {
    "DrawAction": DrawActionSchema,
    "DiscardAction": DiscardActionSchema,
    "GoOutAction": GoOutActionSchema,
}
ACTION_ONE_OF = {"oneOf": [ref(name) for name in ActionSchemas]}
