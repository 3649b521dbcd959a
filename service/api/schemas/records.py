"""A finished game's record (``GET /v1/games/{id}/record``): the game, to be kept and checked.

Its JSON is built by ``service/verify/record.py`` and checked by ``python -m service.verify``;
docs/records.md says how to check one without this service.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from .cards import RANKS, Card, Melds
from .rules import RulesSchema
from .views import SeatResultSchema

ACTION_TYPES = ["draw", "discard", "go_out", "claim", "resign", "back", "abort", "claim_victory",
                "time_out"]


class RecordPlayerSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    kind = fields.String(
        required=True, validate=validate.OneOf(["human", "bot", "away", "resigned"]),
        metadata={"description": "The seat's kind at the end (a replay starts every seat "
                  "as `human`, or `bot` for a bot seat).", "example": "human"})
    bot = fields.String(required=True, allow_none=True,
                        metadata={"description": "The bot of a bot seat (null: a human's).",
                                  "example": None})
    played_by = fields.String(required=True, allow_none=True,
                              metadata={"description": "The bot playing the seat at the end "
                                        "(null: its human).", "example": None})
    claimed = fields.Boolean(required=True, metadata={
        "description": "Whether the seat was open at the start and claimed by a `claim` "
                       "action (then a replay starts it unnamed).", "example": False})
    account = fields.String(required=True, allow_none=True, metadata={
        "description": "The account that held the seat (null: none).", "example": None})
    account_bot = fields.Boolean(required=True, metadata={
        "description": "That account is a declared bot account.", "example": False})


class RecordActionSchema(Schema):
    """One version of the game: the action that made it, by whom."""

    seat = fields.Integer(required=True, metadata={"example": 0})
    by = fields.String(required=True, validate=validate.OneOf(["player", "service"]), metadata={
        "description": "Who made it: the seat's player, or the service (a bot seat, the "
                       "stand-in of an away, resigned or timed-out seat, the clock's "
                       "`time_out`). A replay applies it as that actor, and the engine "
                       "refuses a move that was not that actor's to make.",
        "example": "player"})
    type = fields.String(required=True, validate=validate.OneOf(ACTION_TYPES), metadata={
        "description": "A move (`draw`, `discard`, `go_out`, `resign`, `back`, `abort`, "
                       "`claim_victory`: the body of `POST …/actions`), an open seat named "
                       "(`claim`), or a turn that the clock ended (`time_out`: the stand-in's "
                       "moves follow).",
        "example": "draw"})
    source = fields.String(validate=validate.OneOf(["stock", "discard"]),
                           metadata={"description": "`draw` only."})
    card = Card()  # discard only
    discard = Card()  # go_out only
    melds = Melds("`go_out` only: the melds laid.")
    name = fields.String(metadata={"description": "`claim` only."})
    away = fields.Boolean(metadata={"description": "`time_out` only: whether the seat went "
                                    "`away` with it (its second time-out in a row)."})
    against = fields.Integer(metadata={"description": "`claim_victory` only: the away seat."})


class RecordRoundSchema(Schema):
    number = fields.Integer(required=True, metadata={"example": 1})
    hand_size = fields.Integer(required=True, metadata={"example": 3})
    wild_rank = fields.String(required=True, validate=validate.OneOf(RANKS),
                              metadata={"example": "3"})
    dealer = fields.Integer(required=True, metadata={"example": 1})
    discard_top = Card(required=True)  # the card turned up
    # how the round ended: absent only from the round in play when the game ended by
    # resignations (finish_reason `resigned`) or was aborted, which was not scored
    went_out = fields.Integer(allow_none=True)
    reason = fields.String(validate=validate.OneOf(["went_out", "stock_exhausted", "turn_limit"]))
    results = fields.List(fields.Nested(SeatResultSchema), metadata={
        "description": "Each seat's final arrangement and score (absent: the round in play "
                       "when the others resigned or the game was aborted, not scored)."})
    totals = fields.List(fields.Integer(),
                         metadata={"description": "Running totals after this round."})


class RecordSchema(Schema):
    """Everything needed to replay and check the game: rules, seats, seed and salt, every
    action in order (one per version), and what each round came to."""

    format = fields.String(required=True, validate=validate.Equal("three-thirteen-record/2"),
                           metadata={"example": "three-thirteen-record/2"})
    game_id = fields.String(required=True, metadata={"example": "k3J9xQ2mVb7T"})
    rules = fields.Nested(RulesSchema, required=True,
                          metadata={"description": "The resolved rules, as the game stored them."})
    decks = fields.Integer(required=True, metadata={"description": "Decks in the shoe.",
                                                    "example": 1})
    players = fields.List(fields.Nested(RecordPlayerSchema), required=True)
    turn_seconds = fields.Integer(required=True, allow_none=True)
    rated = fields.Boolean(required=True, metadata={
        "description": "A rated game (sealed by the salt too, when true)."})
    seed = fields.String(required=True, metadata={"example": "7"})
    seed_salt = fields.String(required=True)
    seed_commitment = fields.String(required=True, metadata={
        "description": 'sha256_hex(seed_salt + ":" + seed): what every view showed before '
                       "the end."})
    table_nonce = fields.String(required=True, metadata={
        "description": "The secret the salt was made from with the table: seed_salt = "
                       'sha256_hex("three-thirteen table:" + nonce + ":" + the table as '
                       "canonical JSON)[:32], so the commitment every view showed seals the "
                       "rules, names, bots, clock, seeded_by_creator and rated too (docs/records.md)."})
    seeded_by_creator = fields.Boolean(required=True)
    first_dealer = fields.Integer(required=True)
    versions = fields.Integer(required=True, metadata={
        "description": "Versions of the game played (the number of actions); "
                       "`GET /v1/games/{id}?version=N` serves 0 to this."})
    actions = fields.List(fields.Nested(RecordActionSchema), required=True)
    rounds = fields.List(fields.Nested(RecordRoundSchema), required=True)
    totals = fields.List(fields.Integer(), required=True)
    winners = fields.List(fields.Integer(), required=True)
    places = fields.List(fields.Integer(), required=True, metadata={
        "description": "Each seat's final place from 1, by seat: lowest total first, the "
                       "rules' tie-break applied, players sharing a place when still tied (the "
                       "next place skips), a resigned seat below every seat that did not "
                       "resign. Empty for an aborted game. What a rating and a tournament "
                       "read (docs/ratings.md)."})
    finish_reason = fields.String(
        required=True, validate=validate.OneOf(["completed", "resigned", "aborted"]),
        metadata={"description": "`completed`: every round played; `resigned`: every player "
                  "but the winner resigned; `aborted`: a seat that had not played ended it "
                  "(no winners)."})
    created_at = fields.String(required=True, allow_none=True, metadata={"format": "date-time"})
    finished_at = fields.String(required=True, metadata={"format": "date-time"})
