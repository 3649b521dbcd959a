"""Action bodies (draw, discard, go out, resign, back): documented here, validated by the engine alone;
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
        fields.List(CardIn()), allow_none=True,
        metadata={"description": "Optional: the melds to lay (checked); without them (or "
                  "null) the optimal arrangement is used."},
    )


class ResignActionSchema(StrictSchema):
    """Give up your seat, any time (on turn or not): the `greedy` bot plays it to the end.
    Never listed in `legal_actions`."""

    type = fields.String(required=True, validate=validate.OneOf(["resign"]))


class BackActionSchema(StrictSchema):
    """Your seat is `away` (its turns timed out): play your own turns again. Never listed
    in `legal_actions`."""

    type = fields.String(required=True, validate=validate.OneOf(["back"]))


ActionSchemas = {
    "DrawAction": DrawActionSchema,
    "DiscardAction": DiscardActionSchema,
    "GoOutAction": GoOutActionSchema,
    "ResignAction": ResignActionSchema,
    "BackAction": BackActionSchema,
}
#: What ``legal_actions`` lists (resign and back are always taken, never listed).
LISTED = ("DrawAction", "DiscardAction", "GoOutAction")
ACTION_ONE_OF = {"oneOf": [ref(name) for name in LISTED]}
