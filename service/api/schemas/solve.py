"""The solver's request (a hand, its wild rank or round, table melds) and its analysis."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from .cards import RANKS, Card, CardList, Cards, Melds, StrictSchema
from .rules import rules_spec_field


class SolveRequestSchema(StrictSchema):
    """A hand to analyse. Give `wild_rank` (a rank or null) or `round`, not both."""

    hand = CardList(
        required=True, validate=validate.Length(max=30),
        metadata={"description": "The hand, up to 30 cards."},
    )
    wild_rank = fields.String(
        allow_none=True,
        validate=validate.OneOf([*RANKS, *[r.lower() for r in RANKS], "10"]),
        metadata={"description": "The wild rank, or null: no wild rank (printed jokers stay "
                  "wild)."},
    )
    round = fields.Integer(
        strict=True, validate=validate.Range(1, 20),
        metadata={"description": "Instead of wild_rank: the round number (1-based); the wild "
                  "rank comes from the rules' hand sizes and the round's contract applies."},
    )
    table = fields.List(
        CardList(validate=validate.Length(max=30),
                 metadata={"description": "A meld on the table."}),
        validate=validate.Length(max=12),
        metadata={"description": "Melds on the table to lay off onto (when `lay_off` is on), at most 12."},
    )
    rules = rules_spec_field("The rules; default classic.")

    @validates_schema
    def _one_wild_source(self, data: dict[str, Any], **_: Any) -> None:
        if ("wild_rank" in data) == ("round" in data):
            raise ValidationError("give exactly one of 'wild_rank' and 'round'", "wild_rank")


class LayoffSchema(Schema):
    meld = fields.Integer(required=True, metadata={"description": "Index of the table meld."})
    cards = Cards("Cards laid onto it.", required=True)


class GoOutSchema(Schema):
    discard = Card(required=True)
    melds = Melds("An arrangement of the rest into melds.", required=True)
    layoffs = fields.List(fields.Nested(LayoffSchema), metadata={"description": "Lay-offs, when any."})


class DiscardValueSchema(Schema):
    card = Card(required=True)
    penalty = fields.Integer(
        required=True, metadata={"description": "Minimum penalty of the hand without this card."}
    )


class SolveResponseSchema(Schema):
    penalty = fields.Integer(
        required=True, metadata={"description": "Minimum deadwood penalty of the whole hand."}
    )
    melds = Melds("An arrangement reaching that penalty.", required=True)
    deadwood = Cards("The cards left outside melds in that arrangement.", required=True)
    layoffs = fields.List(
        fields.Nested(LayoffSchema),
        metadata={"description": "Cards of that arrangement laid onto table melds (only when any)."},
    )
    go_out = fields.List(
        fields.Nested(GoOutSchema), required=True,
        metadata={"description": "Each distinct card whose discard leaves the rest fully melded."},
    )
    discards = fields.List(
        fields.Nested(DiscardValueSchema), required=True,
        metadata={"description": "Each distinct card and the penalty without it, best first."},
    )
    wild_rank = fields.String(
        required=True, allow_none=True, metadata={"description": "The wild rank used."}
    )
