"""Marshmallow schemas: the documented shape of every request and response body.

They are the contract's source: flask-smorest turns them into the OpenAPI
document. Request bodies for games, seats and the solver are *loaded* through
them (strict types, unknown fields refused); rules specs and action bodies are
documented here but validated by the engine alone, so each rule has a single
validator. Responses on hot paths are serialized straight from the engine's
dicts with orjson, and these schemas only document them (the contract tests
check the served bodies against the document).
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, validate, validates_schema

from .names import PlayerName
from .problems import PROBLEM_CODES

__all__ = [
    "ActionSchemas",
    "ClaimRequestSchema",
    "ClaimResponseSchema",
    "CreateGameRequestSchema",
    "CreateGameResponseSchema",
    "GameViewSchema",
    "HealthSchema",
    "PresetsSchema",
    "ProblemSchema",
    "RulesSchema",
    "RulesSpecSchema",
    "SolveRequestSchema",
    "SolveResponseSchema",
]

#: What a card may look like in a request (RULES.md: rank then suit; also `10`, lower case,
#: the suit symbols, `JOKER`). Responses always use the canonical two characters.
CARD_PATTERN = r"^(?:[Jj][Oo][Kk][Ee][Rr]|[Jj][Kk]|(?:10|[2-9AaTtJjQqKk])[SHDCshdc♠♥♦♣♤♡♢♧])$"
CARD_RE = re.compile(CARD_PATTERN)
CARD = {"description": "A card: rank then suit (`7H`, `TS`, `JK`); input also accepts `10`, "
        "lower case and ♠♥♦♣; output is always canonical.", "example": "7H"}
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"]
SEED_MAX = 2**63 - 1


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def Card(**kw: Any) -> fields.String:
    return fields.String(metadata=CARD, **kw)


def CardIn(**kw: Any) -> fields.String:
    """A card in a request: the documented pattern is enforced, so valid means parseable."""
    return fields.String(metadata={**CARD, "pattern": CARD_PATTERN}, validate=_check_card, **kw)


def _check_card(text: str) -> None:
    # fullmatch, not match: Python's "$" would also accept a trailing newline.
    if not CARD_RE.fullmatch(text):
        raise ValidationError(f"{text!r} is not a card: write rank then suit, e.g. '7H' or 'JK'")


def CardList(**kw: Any) -> fields.List:
    """A list of request cards: each item is checked on its own, so an error names the
    item (``{"hand": {"3": ["'7X' is not a card…"]}}``)."""
    return fields.List(CardIn(), **kw)


def Cards(description: str, **kw: Any) -> fields.List:
    return fields.List(Card(), metadata={"description": description}, **kw)


def Melds(description: str, **kw: Any) -> fields.List:
    return fields.List(Cards("One meld."), metadata={"description": description}, **kw)


class StrictSchema(Schema):
    class Meta:
        unknown = RAISE


# -- problems -------------------------------------------------------------------------


class ProblemSchema(Schema):
    """An RFC 9457 problem: every error the service returns has this shape."""

    type = fields.String(
        required=True, metadata={"description": "`urn:three-thirteen:problem:<code>`."}
    )
    title = fields.String(required=True, metadata={"description": "Short summary of the status."})
    status = fields.Integer(required=True, metadata={"description": "The HTTP status code."})
    detail = fields.String(
        required=True, metadata={"description": "What went wrong, for a human."}
    )
    code = fields.String(
        required=True, validate=validate.OneOf(PROBLEM_CODES),
        metadata={"description": "Stable machine-readable code; each status's response "
                  "lists the codes it carries."},
    )
    instance = fields.String(metadata={"description": "The request path."})
    errors = fields.Dict(
        metadata={"description": "Per-field messages when a body or query did not validate."}
    )

    class Meta:
        # Engine errors add their details (`field`, `option`, `card`, `current_seat`…).
        unknown = "include"


# -- rules ----------------------------------------------------------------------------

_NULLABLE_INT = {"type": ["integer", "null"]}


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
    """The resolved rules of a game: every option of RULES.md with its value."""

    preset = fields.String(
        required=True, validate=validate.OneOf(["classic", "bga", "family"]),
        metadata={"description": "The preset the options started from."},
    )
    min_players = fields.Integer(required=True, metadata={"description": "Fewest players."})
    max_players = fields.Integer(required=True, metadata={"description": "Most players."})
    decks = fields.Raw(
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


class GameRulesSchema(RulesSchema):
    """The rules of one game: as :class:`RulesSchema`, with the decks in use (never "auto",
    which depends on the number of players)."""

    decks = fields.Integer(
        required=True, validate=validate.Range(1, 8),
        metadata={"description": "Number of 52-card decks in this game's shoe."},
    )


class RulesSpecSchema(Schema):
    """A rules spec: a preset plus any options to override (RULES.md names and ranges).

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

    class Meta:
        unknown = RAISE


class PresetsSchema(Schema):
    presets = fields.Dict(
        keys=fields.String(),
        values=fields.Nested(RulesSchema),
        required=True,
        metadata={"description": "Each preset's resolved options, by name."},
    )


def _rules_spec_field(description: str) -> fields.Raw:
    """A rules spec inside a request: checked by the engine (the single validator)."""
    return fields.Raw(
        load_default=None,
        allow_none=True,
        metadata={"description": description, "anyOf": [_ref("RulesSpec"), {"type": "null"}]},
    )


# -- solve ----------------------------------------------------------------------------


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
    rules = _rules_spec_field("The rules; default classic.")

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


# -- actions --------------------------------------------------------------------------


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
ACTION_ONE_OF = {"oneOf": [_ref(name) for name in ActionSchemas]}


# -- game views -----------------------------------------------------------------------


class TableLayoffSchema(Schema):
    seat = fields.Integer(required=True)
    cards = Cards("Cards laid off.", required=True)


class TableMeldSchema(Schema):
    seat = fields.Integer(required=True, metadata={"description": "Who laid the meld."})
    cards = Cards("The meld as laid.", required=True)
    layoffs = fields.List(fields.Nested(TableLayoffSchema), required=True)


class RoundContractSchema(Schema):
    sets = fields.Integer(required=True)
    runs = fields.Integer(required=True)


class RoundSchema(Schema):
    number = fields.Integer(required=True, metadata={"description": "1-based round number."})
    rounds = fields.Integer(required=True, metadata={"description": "Rounds in the game."})
    hand_size = fields.Integer(required=True)
    wild_rank = fields.String(required=True, validate=validate.OneOf(RANKS))
    dealer = fields.Integer(required=True)
    current_seat = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Whose move; null once finished."}
    )
    phase = fields.String(
        required=True, allow_none=True,
        validate=validate.OneOf(["draw", "discard", "final_draw", "final_discard"]),
        metadata={"description": "What the current seat must do next; `final_*` in the final "
                  "turns after someone went out."},
    )
    stock_count = fields.Integer(required=True)
    discard_top = Card(required=True, allow_none=True)
    discard_count = fields.Integer(required=True)
    went_out = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Who went out this round."}
    )
    contract = fields.Nested(RoundContractSchema, required=True, allow_none=True)
    table = fields.List(
        fields.Nested(TableMeldSchema), required=True,
        metadata={"description": "Melds laid this round (after someone went out)."},
    )


class PlayerSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True, metadata={"description": "Null: open."})
    open = fields.Boolean(required=True, metadata={"description": "Whether the seat is unclaimed."})
    hand_count = fields.Integer(required=True)
    total = fields.Integer(required=True, metadata={"description": "Penalty points so far."})
    round_scores = fields.List(fields.Integer(), required=True)


class YouSchema(Schema):
    seat = fields.Integer(required=True)
    hand = Cards("Your hand, sorted.", required=True)


class SeatResultSchema(Schema):
    seat = fields.Integer(required=True)
    melds = Melds("The player's melds.", required=True)
    layoffs = fields.List(fields.Nested(LayoffSchema), required=True)
    deadwood = Cards("Cards left outside melds.", required=True)
    score = fields.Integer(required=True)


class LastRoundSchema(Schema):
    number = fields.Integer(required=True)
    wild_rank = fields.String(required=True)
    went_out = fields.Integer(required=True, allow_none=True)
    reason = fields.String(required=True, validate=validate.OneOf(["went_out", "stock_exhausted"]))
    results = fields.List(fields.Nested(SeatResultSchema), required=True)


class GameViewSchema(Schema):
    """The game as the caller may see it: no other seat's cards, no stock order, no seed
    before the end."""

    game_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "Also the ETag."})
    status = fields.String(required=True, validate=validate.OneOf(["in_progress", "finished"]))
    rules = fields.Nested(GameRulesSchema, required=True)
    seed_commitment = fields.String(
        required=True, metadata={"description": 'sha256_hex(seed_salt + ":" + seed).'}
    )
    seeded_by_creator = fields.Boolean(required=True)
    round = fields.Nested(RoundSchema, required=True)
    players = fields.List(fields.Nested(PlayerSchema), required=True)
    open_seats = fields.List(
        fields.Integer(), required=True,
        metadata={"description": "Seats still to be claimed; actions wait until it is empty."},
    )
    you = fields.Nested(
        YouSchema, required=True, allow_none=True, metadata={"description": "Null: spectator."}
    )
    legal_actions = fields.List(
        fields.Dict(metadata=ACTION_ONE_OF), required=True,
        metadata={"description": "Every action you may send now, each a valid action body."},
    )
    last_round = fields.Nested(LastRoundSchema, required=True, allow_none=True)
    winners = fields.List(fields.Integer(), metadata={"description": "Once finished."})
    seed = fields.String(metadata={"description": "Revealed once finished."})
    seed_salt = fields.String(metadata={"description": "Revealed once finished."})


# -- creating and claiming ------------------------------------------------------------


class PlayerSpecSchema(StrictSchema):
    """A seat at creation: `{"name": "ann"}`, or `{"name": null}` to leave it open for
    someone to claim."""

    name = PlayerName("The player's name, or null: an open seat.", required=True,
                      allow_none=True)


def _check_seed(seed: object) -> None:
    if seed is None or (isinstance(seed, str) and len(seed) <= 64):
        return
    if isinstance(seed, int) and not isinstance(seed, bool) and -SEED_MAX - 1 <= seed <= SEED_MAX:
        return
    raise ValidationError("a seed is a string of up to 64 characters or a 64-bit integer")


class CreateGameRequestSchema(StrictSchema):
    players = fields.List(
        fields.Nested(PlayerSpecSchema), required=True, validate=validate.Length(2, 8),
        metadata={"description": "One entry per seat, in seat order."},
    )
    rules = _rules_spec_field("The rules; default classic.")
    seed = fields.Raw(
        load_default=None,
        allow_none=True,
        validate=_check_seed,
        metadata={
            "description": "Makes the shuffles reproducible; hidden until the end.",
            "oneOf": [
                {"type": "string", "maxLength": 64},
                {"type": "integer", "minimum": -SEED_MAX - 1, "maximum": SEED_MAX},
                {"type": "null"},
            ],
        },
    )


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True)
    open = fields.Boolean(required=True)
    token = fields.String(
        required=True, allow_none=True,
        metadata={"description": "The seat's secret bearer token, shown only here (null: open)."},
    )


class CreateGameResponseSchema(Schema):
    game_id = fields.String(required=True)
    seats = fields.List(fields.Nested(SeatTokenSchema), required=True)
    state = fields.Nested(GameViewSchema, required=True, metadata={"description": "Spectator view."})


class ClaimRequestSchema(StrictSchema):
    name = PlayerName("Your name at the table.", required=True)


class ClaimResponseSchema(Schema):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    token = fields.String(
        required=True, metadata={"description": "The seat's bearer token, shown only here."}
    )
    state = fields.Nested(GameViewSchema, required=True, metadata={"description": "Your view."})


# -- events and health ----------------------------------------------------------------


class HealthSchema(Schema):
    status = fields.String(required=True)
