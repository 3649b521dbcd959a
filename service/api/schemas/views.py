"""The game view: what a caller may see of a game (its seat's hand, never another's)."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from .actions import ACTION_ONE_OF
from .cards import RANKS, Card, Cards, Described, Melds, ref
from .rules import GameRulesSchema
from .solve import LayoffSchema


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


#: What a seat to move must do: the ``final_*`` phases are the turns after someone went out.
TURN_PHASES = ("draw", "discard", "final_draw", "final_discard")


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
        validate=validate.OneOf(TURN_PHASES),
        metadata={"description": "What the current seat must do next; `final_*` in the final "
                  "turns after someone went out."},
    )
    stock_count = fields.Integer(required=True)
    discard_top = Card(required=True, allow_none=True)
    discard_count = fields.Integer(required=True)
    went_out = fields.Integer(
        required=True, allow_none=True, metadata={"description": "Who went out this round."}
    )
    turn_timed_out = fields.Boolean(
        required=True, metadata={"description": "The current turn timed out: the stand-in "
                                 "plays the rest of it (the seat's player cannot act)."})
    turns = fields.Integer(
        required=True, metadata={"description": "Turns played this round before anyone went "
                                 "out; at the rules' `turn_limit` × players the round ends."})
    contract = fields.Nested(RoundContractSchema, required=True, allow_none=True)
    table = fields.List(
        fields.Nested(TableMeldSchema), required=True,
        metadata={"description": "Melds laid this round (after someone went out)."},
    )


def seat_kind() -> fields.String:
    """Who plays a seat (a view's player, a lobby's seat)."""
    return fields.String(
        required=True, validate=validate.OneOf(["human", "bot", "away", "resigned"]),
        metadata={"description": "Who plays the seat: its human; a server-side `bot`; or "
                  "the `greedy` stand-in for an `away` seat (turns timed out) or a "
                  "`resigned` one (docs/lifecycle.md).", "example": "bot"})


def seat_bot() -> fields.String:
    """The bot playing a seat now."""
    return fields.String(
        required=True, allow_none=True,
        metadata={"description": "The reference bot playing the seat now (null: its human, "
                  "or nobody yet).", "example": "strong"})


class PlayerSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True, metadata={"description": "Null: open."})
    open = fields.Boolean(required=True, metadata={"description": "Whether the seat is unclaimed."})
    hand_count = fields.Integer(required=True)
    total = fields.Integer(required=True, metadata={"description": "Penalty points so far."})
    round_scores = fields.List(fields.Integer(), required=True)
    kind = seat_kind()
    bot = seat_bot()
    account = fields.String(
        required=True, allow_none=True,
        metadata={"description": "The account holding the seat (null: a seat token's, a "
                  "bot seat's, or open).", "example": "ann"})
    account_bot = fields.Boolean(
        required=True, metadata={"description": "The account holding the seat is a declared "
                                 "bot account (a program plays it)."})


class ClockSchema(Schema):
    turn_seconds = fields.Integer(required=True, metadata={"description": "Seconds per turn.",
                                                           "example": 60})
    deadline = fields.String(
        required=True, allow_none=True, metadata={
            "format": "date-time",
            "description": "When the current turn times out (RFC 3339, UTC); null while "
                           "seats are open, once finished, or while the stand-in plays a "
                           "timed-out turn.",
            "example": "2026-01-01T12:00:00.000Z"})


class RematchSchema(Schema):
    asked = fields.List(fields.Integer(), required=True,
                        metadata={"description": "Seats that asked for or accepted a rematch.",
                                  "example": [0]})
    game_id = fields.String(required=True, allow_none=True,
                            metadata={"description": "The rematch, once every player who did not resign accepted.",
                                      "example": "k3J9xQ2mVb7T"})


class YouSchema(Schema):
    seat = fields.Integer(required=True)
    hand = Cards("Your hand, sorted.", required=True)
    can_abort = fields.Boolean(required=True, metadata={
        "description": "Your seat has not played its first turn yet: `{\"type\": \"abort\"}` "
                       "ends the game with no result (never listed in `legal_actions`)."})


class SeatResultSchema(Schema):
    seat = fields.Integer(required=True)
    melds = Melds("The player's melds.", required=True)
    layoffs = fields.List(fields.Nested(LayoffSchema), required=True)
    deadwood = Cards("Cards left outside melds.", required=True)
    score = fields.Integer(required=True)


class LastRoundSchema(Schema):
    number = fields.Integer(required=True)
    wild_rank = fields.String(required=True, validate=validate.OneOf(RANKS))
    went_out = fields.Integer(required=True, allow_none=True)
    reason = fields.String(required=True,
                           validate=validate.OneOf(["went_out", "stock_exhausted", "turn_limit"]))
    results = fields.List(fields.Nested(SeatResultSchema), required=True)


class _GameViewSchema(Schema):
    """What every view has: no other seat's cards, no stock order, no seed before the end."""

    game_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "Also the ETag."})
    rules = fields.Nested(GameRulesSchema, required=True)
    seed_commitment = fields.String(
        required=True, metadata={"description": 'sha256_hex(seed_salt + ":" + seed).'}
    )
    seeded_by_creator = fields.Boolean(required=True)
    rated = fields.Boolean(required=True, metadata={
        "description": "A rated game: its result moves every seat's rating in its preset "
                       "(docs/ratings.md)."})
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
        Described(ACTION_ONE_OF), required=True,
        metadata={"description": "The moves of your turn, each a valid action body, then "
                  "`claim_victory` against each away seat; empty off your turn. `resign`, "
                  "`back` and `abort` are never listed (see `you.can_abort`)."},
    )
    last_round = fields.Nested(LastRoundSchema, required=True, allow_none=True)
    clock = fields.Nested(ClockSchema, required=True, allow_none=True,
                          metadata={"description": "The turn clock; null: none."})
    rematch = fields.Nested(RematchSchema, required=True)


class InProgressGameViewSchema(_GameViewSchema):
    """A game being played (or waiting for its open seats)."""

    status = fields.String(required=True, validate=validate.OneOf(["in_progress"]))


class FinishedGameViewSchema(_GameViewSchema):
    """A finished game: the winners, and the seed and salt revealed to check the deals."""

    status = fields.String(required=True, validate=validate.OneOf(["finished"]))
    winners = fields.List(fields.Integer(), required=True)
    finish_reason = fields.String(
        required=True, validate=validate.OneOf(["completed", "resigned", "aborted"]),
        metadata={"description": "`completed` (every round played), `resigned` (every "
                  "player but the winner resigned or was claimed against) or `aborted` (a "
                  "seat that had not played ended it: no result, no winners)."})
    seed = fields.String(required=True, metadata={"description": "The seed, revealed."})
    seed_salt = fields.String(required=True, metadata={"description": "The salt, revealed."})
    table_nonce = fields.String(required=True, metadata={
        "description": "With the table it makes the salt (docs/records.md)."})


class InProgressSeatViewSchema(InProgressGameViewSchema):
    """A seat's own view of a game being played: ``you`` is set."""

    you = fields.Nested(YouSchema, required=True, metadata={"description": "Your seat."})


class FinishedSeatViewSchema(FinishedGameViewSchema):
    """A seat's own view of a finished game: ``you`` is set."""

    you = fields.Nested(YouSchema, required=True, metadata={"description": "Your seat."})


def _by_status(names: dict[str, str]) -> dict[str, Any]:
    return {"oneOf": [ref(name) for name in names.values()],
            "discriminator": {"propertyName": "status", "mapping": {
                status: f"#/components/schemas/{name}" for status, name in names.items()}}}


#: Views as the document names them. ``GameView`` is anyone's: its ``status`` says which
#: variant (a finished game has its winners and seed, a typed client reads them once it
#: checked ``status``). ``SeatView`` is a seat's own (``you`` is set): what an action, a
#: rematch and a claim answer, so a typed client needs no null check on ``you`` there. Each
#: variant is a whole schema of its own rather than an ``allOf`` narrowing ``you``: a
#: generator merging ``You | null`` with ``You`` fails (openapi-python-client drops both).
VIEW_SCHEMAS: dict[str, type[Schema]] = {
    "InProgressGameView": InProgressGameViewSchema,
    "FinishedGameView": FinishedGameViewSchema,
    "InProgressSeatView": InProgressSeatViewSchema,
    "FinishedSeatView": FinishedSeatViewSchema,
}
VIEW_COMPONENTS: dict[str, dict[str, Any]] = {
    "GameView": _by_status({"in_progress": "InProgressGameView",
                            "finished": "FinishedGameView"}),
    "SeatView": _by_status({"in_progress": "InProgressSeatView",
                            "finished": "FinishedSeatView"}),
}


# -- creating and claiming ------------------------------------------------------------
