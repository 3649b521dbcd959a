"""Rules: the resolved options of a preset or a game, and the rules spec a request
sends (documented here, validated by the engine alone)."""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, fields, validate

from .cards import RANKS, StrictSchema, absent_is_null, ref


class ContractSchema(StrictSchema):
    sets = fields.Integer(
        strict=True, validate=validate.Range(0, 5),
        metadata={"description": "Minimum number of sets going out must include."},
    )
    runs = fields.Integer(
        strict=True, validate=validate.Range(0, 5),
        metadata={"description": "Minimum number of runs going out must include."},
    )


class RulesSchema(Schema):
    """The resolved rules of a game: every option of the rules (docs/rules.md) with its value."""

    preset = fields.String(
        required=True, validate=validate.OneOf(["classic", "bga", "family"]),
        metadata={"description": "The preset the options started from."},
    )
    min_players = fields.Integer(required=True, metadata={"description": "Fewest players."})
    max_players = fields.Integer(required=True, metadata={"description": "Most players."})
    # an int or "auto" here; GameRulesSchema narrows it to the int in use
    decks: fields.Field[Any] = fields.Raw(
        required=True,
        metadata={
            "description": 'Number of 52-card decks, or "auto": the fewest, at least the '
            "preset's minimum, leaving 21+ cards after the final deal. A preset may say "
            '"auto"; a game\'s rules always show the number its shoe holds.',
            "oneOf": [{"type": "integer", "minimum": 1, "maximum": 8}, {"enum": ["auto"]}],
        },
    )
    jokers = fields.Integer(required=True, metadata={"description": "Printed jokers (wild)."})
    aces = fields.String(
        required=True, validate=validate.OneOf(["low", "high", "both", "wrap"]),
        metadata={"description": "Where aces may stand in runs."},
    )
    card_values = fields.Dict(
        keys=fields.String(validate=validate.OneOf(RANKS)),
        values=fields.Integer(),
        required=True,
        metadata={"description": "Deadwood penalty of each rank (A 2 … 9 T J Q K)."},
    )
    wild_penalty = fields.Integer(
        required=True, allow_none=True,
        metadata={"description": "Penalty of a wild-rank card in deadwood; null: face value."},
    )
    joker_penalty = fields.Integer(
        required=True, metadata={"description": "Penalty of a printed joker in deadwood."}
    )
    ace_penalty = fields.Integer(
        required=True, allow_none=True,
        metadata={"description": "Penalty of an ace in deadwood; null: from card_values."},
    )
    min_naturals_per_meld = fields.Integer(
        required=True, metadata={"description": "Cards not used as wilds each meld needs."}
    )
    max_wilds_per_meld = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Wild limit per meld; null: none."}
    )
    lay_off = fields.Boolean(
        required=True, metadata={"description": "Whether final turns may lay off onto table melds."}
    )
    hand_sizes = fields.List(
        fields.Integer(), required=True,
        metadata={"description": "Hand size of each round; the rank equal to it is wild."},
    )
    final_round_multiplier = fields.Integer(
        required=True, metadata={"description": "Multiplier of the last round's penalties."}
    )
    contracts = fields.List(
        fields.Nested(ContractSchema, allow_none=True),
        required=True, allow_none=True,
        metadata={"description": "Per round, the sets and runs going out needs, or null."},
    )
    stock_exhausted = fields.String(
        required=True, validate=validate.OneOf(["reshuffle", "end_round"]),
        metadata={"description": "What an empty stock does."},
    )
    tie_break = fields.String(
        required=True, validate=validate.OneOf(["zero_rounds", "shared"]),
        metadata={"description": "How equal totals are decided."},
    )
    turn_limit = fields.Integer(
        required=True, allow_none=True, validate=validate.Range(1, 100),
        metadata={"description": "Turns per player in one round; when every player has had "
                  "this many and nobody went out, the round ends as the hands stand (reason "
                  "`turn_limit`). null: no limit (refused with a bot seat or a turn clock)."},
    )


class GameRulesSchema(RulesSchema):
    """The rules of one game: as :class:`RulesSchema`, with the decks in use (never "auto",
    which depends on the number of players)."""

    decks = fields.Integer(
        required=True, validate=validate.Range(1, 8),
        metadata={"description": "Number of 52-card decks in this game's shoe."},
    )


class RulesSpecSchema(Schema):
    """A rules spec: a preset plus any options to override (names and ranges as in docs/rules.md).

    Unknown options and out-of-range values are a 422 (`invalid_rules`).
    """

    preset = fields.String(
        validate=validate.OneOf(["classic", "bga", "family"]),
        metadata={"description": "The base preset; default `classic`."},
    )
    min_players = fields.Integer(validate=validate.Range(2, 8))
    max_players = fields.Integer(validate=validate.Range(2, 8))
    decks = fields.Raw(
        metadata={"oneOf": [{"type": "integer", "minimum": 1, "maximum": 8}, {"enum": ["auto"]}]}
    )
    jokers = fields.Integer(validate=validate.Range(0, 8))
    aces = fields.String(validate=validate.OneOf(["low", "high", "both", "wrap"]))
    card_values = fields.Raw(
        metadata={
            "description": "Penalty overrides by rank (`10` is taken as `T`).",
            "type": "object",
            "properties": {
                r: {"type": "integer", "minimum": 0, "maximum": 1000} for r in [*RANKS, "10"]
            },
            "additionalProperties": False,
        }
    )
    wild_penalty = fields.Integer(allow_none=True, validate=validate.Range(0, 1000))
    joker_penalty = fields.Integer(validate=validate.Range(0, 1000))
    ace_penalty = fields.Integer(allow_none=True, validate=validate.Range(0, 1000))
    min_naturals_per_meld = fields.Integer(validate=validate.Range(0, 3))
    max_wilds_per_meld = fields.Integer(allow_none=True, validate=validate.Range(0, 13))
    lay_off = fields.Boolean()
    hand_sizes = fields.List(
        fields.Integer(validate=validate.Range(3, 14)), validate=validate.Length(1, 20)
    )
    final_round_multiplier = fields.Integer(validate=validate.Range(1, 10))
    contracts = fields.List(fields.Nested(ContractSchema, allow_none=True), allow_none=True)
    stock_exhausted = fields.String(validate=validate.OneOf(["reshuffle", "end_round"]))
    tie_break = fields.String(validate=validate.OneOf(["zero_rounds", "shared"]))
    turn_limit = fields.Integer(allow_none=True, validate=validate.Range(1, 100))

    class Meta:
        unknown = RAISE


class PresetsSchema(Schema):
    presets = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(RulesSchema),
        required=True,
        metadata={"description": "Each preset's resolved options, by name."},
    )


def rules_spec_field(description: str) -> fields.Raw:
    """A rules spec inside a request: checked by the engine (the single validator)."""
    return fields.Raw(
        load_default=absent_is_null,
        allow_none=True,
        metadata={"description": description, "anyOf": [ref("RulesSpec"), {"type": "null"}]},
    )
