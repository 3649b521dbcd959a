"""Creating a game and claiming a seat: the request bodies and the tokens they return."""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from service.bots import BOTS

from ..names import PlayerName
from .accounts import HANDLE_PATTERN
from .cards import Described, StrictSchema, absent_is_null, check_boolean, ref
from .rules import rules_spec_field

#: The largest integer seed: 2**53 - 1, the largest integer every JSON reader holds
#: exactly (JavaScript reads numbers as doubles: 2**63 came out as 9223372036854776000, a
#: bound the server did not have). A larger seed is sent as a string.
SEED_MAX = 2**53 - 1
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


_SEAT_KEYS = ("name", "bot", "account")


def _seat_spec(given: str, title: str) -> dict[str, Any]:
    # `{}`: the type is PlayerSpec's own property; `not: {}`: the field may not be sent
    # (`enum: []` says the same, but openapi-python-client refuses an empty enum; a
    # boolean schema would be clearer JSON Schema, but apispec reads a non-object property
    # as a component's name)
    return {"title": title, "type": "object", "required": [given],
            "properties": {given: {}, **{k: {"not": {}} for k in _SEAT_KEYS if k != given}}}


#: What the document adds to ``PlayerSpec``: exactly one of ``name``, ``bot`` and
#: ``account`` (what ``_one_of`` checks), so ``{}`` and ``{"name": …, "bot": …}`` are
#: refused by the document as by the server, and a typed client may not write two.
PLAYER_SPEC_ONE_OF: dict[str, Any] = {"oneOf": [
    _seat_spec("name", "A player's seat, or an open one"),
    _seat_spec("bot", "A bot's seat"),
    _seat_spec("account", "Your account's seat"),
]}


def _check_seed(seed: object) -> None:
    if seed is None or (isinstance(seed, str) and len(seed) <= 64):
        return
    if isinstance(seed, int) and not isinstance(seed, bool) and -SEED_MAX <= seed <= SEED_MAX:
        return
    raise ValidationError(f"a seed is a string of up to 64 characters or an integer of at "
                          f"most {SEED_MAX} either side of 0")


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
            "description": "Makes the shuffles reproducible; hidden until the end. An "
            "integer is taken as its decimal text; one beyond ±(2^53 - 1) is sent as a "
            "string.",
            "oneOf": [
                {"type": "string", "maxLength": 64},
                {"type": "integer", "minimum": -SEED_MAX, "maximum": SEED_MAX},
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


class _SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)


def _kind(kind: str) -> fields.String:
    return fields.String(required=True, validate=validate.OneOf([kind]), metadata={
        "description": "`human`: a named player's seat; `open`: to be claimed; `bot`: a "
                       "bot's seat; `account`: your account's seat (its key plays it)."})


class HumanSeatTokenSchema(_SeatTokenSchema):
    """A named player's seat and its token."""

    kind = _kind("human")
    name = fields.String(required=True)
    open = Described({"type": "boolean", "enum": [False]}, required=True)
    bot = Described({"type": "null"}, required=True)
    token = fields.String(required=True, metadata={
        "description": "The seat's secret bearer token, shown only here."})


class OpenSeatTokenSchema(_SeatTokenSchema):
    """An open seat: claimed later, its token given to whoever claims it."""

    kind = _kind("open")
    name = Described({"type": "null"}, required=True)
    open = Described({"type": "boolean", "enum": [True]}, required=True)
    bot = Described({"type": "null"}, required=True)
    token = Described({"type": "null"}, required=True)


class BotSeatTokenSchema(_SeatTokenSchema):
    """A bot's seat: the service plays it, no token."""

    kind = _kind("bot")
    name = fields.String(required=True, metadata={"description": "The bot's name."})
    open = Described({"type": "boolean", "enum": [False]}, required=True)
    bot = fields.String(required=True, validate=validate.OneOf(sorted(BOTS)))
    token = Described({"type": "null"}, required=True)


class AccountSeatTokenSchema(_SeatTokenSchema):
    """Your account's seat: named by its handle, played with its key, no token."""

    kind = _kind("account")
    name = fields.String(required=True, metadata={"description": "The account's handle."})
    open = Described({"type": "boolean", "enum": [False]}, required=True)
    bot = Described({"type": "null"}, required=True)
    token = Described({"type": "null"}, required=True)


SEAT_TOKENS = {"human": ("HumanSeatToken", HumanSeatTokenSchema),
               "open": ("OpenSeatToken", OpenSeatTokenSchema),
               "bot": ("BotSeatToken", BotSeatTokenSchema),
               "account": ("AccountSeatToken", AccountSeatTokenSchema)}
#: A seat of a new game: ``kind`` says which (a named seat's ``token`` is a string).
SEAT_TOKEN: dict[str, Any] = {
    "oneOf": [ref(name) for name, _ in SEAT_TOKENS.values()],
    "discriminator": {"propertyName": "kind", "mapping": {
        kind: f"#/components/schemas/{name}" for kind, (name, _) in SEAT_TOKENS.items()}},
}


class CreateGameResponseSchema(Schema):
    game_id = fields.String(required=True)
    seats = fields.List(Described(ref("SeatToken")), required=True)
    state = Described({**ref("GameView"), "description": "Spectator view."}, required=True)


class ClaimRequestSchema(StrictSchema):
    name = PlayerName("Your name at the table. Left out, the claim is your account's "
                      "(send its key; the seat is named by its handle): 401 without one.")


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
    state = Described({**ref("SeatView"), "description": "Your view."}, required=True)
