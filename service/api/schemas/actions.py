"""Action bodies (draw, discard, go out, resign, back, abort, claim victory): documented
here, validated by the engine alone; a view's `legal_actions` lists the turn moves and
claims of victory as a oneOf."""

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


class AbortActionSchema(StrictSchema):
    """End the game with no result (finished, `finish_reason: aborted`, no winners): only
    before your seat has played its first turn (your view says `you.can_abort`). Never
    listed in `legal_actions`."""

    type = fields.String(required=True, validate=validate.OneOf(["abort"]))


class ClaimVictoryActionSchema(StrictSchema):
    """Seat `against` is `away` (its turn clock ran out twice in a row and its player has
    not come back): it resigns. With one player left standing you win at once (`finish_reason:
    resigned`). Listed in `legal_actions` on your turn, accepted off it too."""

    type = fields.String(required=True, validate=validate.OneOf(["claim_victory"]))
    against = fields.Integer(required=True, strict=True, metadata={
        "description": "The away seat.", "minimum": 0, "maximum": 7})


ActionSchemas = {
    "DrawAction": DrawActionSchema,
    "DiscardAction": DiscardActionSchema,
    "GoOutAction": GoOutActionSchema,
    "ResignAction": ResignActionSchema,
    "BackAction": BackActionSchema,
    "AbortAction": AbortActionSchema,
    "ClaimVictoryAction": ClaimVictoryActionSchema,
}
#: What ``legal_actions`` lists (resign, back and abort are taken, never listed).
LISTED = ("DrawAction", "DiscardAction", "GoOutAction", "ClaimVictoryAction")
ACTION_ONE_OF = {"oneOf": [ref(name) for name in LISTED]}
