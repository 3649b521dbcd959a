"""Creating a game and claiming a seat: the request bodies and the tokens they return."""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.bots import BOTS

from ..names import PlayerName
from .accounts import HANDLE_PATTERN
from .cards import StrictSchema, absent_is_null, check_boolean
from .rules import rules_spec_field
from .views import GameViewSchema

SEED_MAX = 2**63 - 1
MAX_TURN_SECONDS = 86_400


class PlayerSpecSchema(StrictSchema):
    """A seat at creation: `{"name": "ann"}`, `{"name": null}` to leave it open for
    someone to claim, `{"bot": "greedy"}` for a server-side bot seat (see
    `GET /v1/bots`: claimed at once, no token, it plays as soon as it is on turn), or
    `{"account": "<your handle>"}` for your account's seat (with its key as the bearer:
    no token, the key plays it)."""

    name = PlayerName("The player's name, or null: an open seat.", allow_none=True)
    bot = fields.String(
        validate=validate.OneOf(sorted(BOTS)),
        metadata={"description": "A reference bot plays this seat (instead of `name`).",
                  "example": "strong"},
    )
    account = fields.String(
        validate=validate.Regexp(HANDLE_PATTERN),
        metadata={"description": "Your account's handle: the seat is your account's (send "
                  "its key as the bearer).", "pattern": HANDLE_PATTERN, "example": "ann"},
    )

    @validates_schema
    def _one_of(self, data: dict[str, object], **kwargs: object) -> None:
        if sum(key in data for key in ("name", "bot", "account")) != 1:
            raise ValidationError('a seat is {"name": …}, {"bot": …} or {"account": …}, '
                                  'exactly one of them')


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
    rules = rules_spec_field("The rules; default classic.")
    turn_seconds = fields.Integer(
        strict=True, load_default=absent_is_null, allow_none=True,
        validate=validate.Range(1, MAX_TURN_SECONDS),
        metadata={"description": "The turn clock, a setting of this game (not a rule): "
                  "seconds each seat has per turn; when they run out the `greedy` bot "
                  f"plays the turn for it. Null (the default): no clock. At most "
                  f"{MAX_TURN_SECONDS}.", "example": 60},
    )
    seed = fields.Raw(
        load_default=absent_is_null,
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
    unlisted = fields.Raw(
        load_default=bool, validate=check_boolean,  # a callable: see absent_is_null
        metadata={"type": "boolean",
                  "description": "Keep the game out of the lobby: its open seats are reachable "
                  "only by whoever has its id. Default false.", "example": True},
    )


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    name = fields.String(required=True, allow_none=True)
    open = fields.Boolean(required=True)
    bot = fields.String(required=True, allow_none=True,
                        metadata={"description": "The bot of a bot seat (null: a human's)."})
    token = fields.String(
        required=True, allow_none=True,
        metadata={"description": "The seat's secret bearer token, shown only here (null: an "
              "open seat, or a bot's)."},
    )


class CreateGameResponseSchema(Schema):
    game_id = fields.String(required=True)
    seats = fields.List(fields.Nested(SeatTokenSchema), required=True)
    state = fields.Nested(GameViewSchema, required=True, metadata={"description": "Spectator view."})


class ClaimRequestSchema(StrictSchema):
    name = PlayerName("Your name at the table (required, but for a claim sent with an "
                      "account key: the seat is then named by the account's handle).")


class ClaimResponseSchema(Schema):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    token = fields.String(
        required=True, allow_none=True,
        metadata={"description": "The seat's bearer token, shown only here (null: a seat "
                  "claimed with an account key, which plays it)."}
    )
    seeded_by_creator = fields.Boolean(
        required=True,
        metadata={"description": "The creator chose this game's seed, so the creator can know "
                  "every hand: decide before you play."},
    )
    state = fields.Nested(GameViewSchema, required=True, metadata={"description": "Your view."})
