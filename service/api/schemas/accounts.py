"""Accounts, "my games" and the account stream's notes: request and response bodies."""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from service.core.rules import PRESETS
from service.play import CHALLENGES_FROM, HANDLE_PATTERN

from .cards import StrictSchema, check_boolean
from .ratings import RatingSchema

__all__ = ["HANDLE_PATTERN", "WEBHOOK_URL_MAX", "AccountRequestSchema", "AccountSchema",
           "AccountSettingsSchema", "CreatedAccountSchema", "KeySchema", "MyGamesSchema",
           "ProfileSchema", "UpdatedAccountSchema", "WebhookSecretSchema", "handle_field"]

#: The longest webhook URL taken.
WEBHOOK_URL_MAX = 2048
_SECRET = ("The secret your webhook's deliveries are signed with (Standard Webhooks: "
           "`whsec_` and base64), shown only here; verify each delivery's "
           "`webhook-signature` with it. See docs/accounts.md, Webhooks.")


def handle_field(description: str, required: bool = False) -> fields.String:
    """A handle: 2 to 24 characters of ``A-Z a-z 0-9 _ -``."""
    return fields.String(validate=validate.Regexp(HANDLE_PATTERN), required=required,
                         metadata={"description": description, "pattern": HANDLE_PATTERN,
                                   "example": "ann"})


class AccountRequestSchema(StrictSchema):
    handle = handle_field("Your handle: 2 to 24 characters of `A-Z a-z 0-9 _ -`, unique "
                          "regardless of case.", required=True)
    bot = fields.Raw(load_default=bool, validate=check_boolean, metadata={
        "type": "boolean", "description": "Whether a program plays this account (shown "
        "wherever it plays). Default false."})


class CreatedAccountSchema(Schema):
    handle = fields.String(required=True)
    bot = fields.Boolean(required=True)
    key = fields.String(required=True, metadata={
        "description": "The account's key, shown only here (and when rotated): send it as "
                       "`Authorization: Bearer <key>`. Stored only as its hash."})


class KeySchema(Schema):
    key = fields.String(required=True, metadata={
        "description": "The new key, shown only here; the old one is refused from now on."})


class AutoAnalysesSchema(Schema):
    """Your automatic analyses (with `analyse_rated`): the quota, and what is left of it."""

    per_day = fields.Integer(required=True, metadata={
        "description": "Rated games analysed by themselves in any 24 hours "
                       "(`ANALYSIS_AUTO_PER_DAY`); past it, a game is skipped and you hear "
                       "`analysis_skipped`."})
    used = fields.Integer(required=True, metadata={
        "description": "Those of the last 24 hours."})


class AccountSchema(Schema):
    """Your own account, as ``GET /v1/me`` shows it to its key."""

    handle = fields.String(required=True)
    bot = fields.Boolean(required=True)
    created = fields.String(required=True, metadata={"format": "date-time"})
    challenges_from = fields.String(required=True, validate=validate.OneOf(CHALLENGES_FROM),
                                    metadata={"description": "Who may challenge you."})
    webhook_url = fields.String(required=True, allow_none=True, metadata={
        "description": "Where `your_turn`, `challenge` and `game_finished` are POSTed "
                       "(null: nowhere). Its secret is never shown here."})
    analyse_rated = fields.Boolean(required=True, metadata={
        "description": "Your rated games are analysed when they finish, up to "
                       "`auto_analyses.per_day` in any 24 hours (docs/analysis.md)."})
    auto_analyses = fields.Nested(AutoAnalysesSchema, required=True)
    last_note = fields.Integer(required=True, metadata={
        "description": "The number of your newest note (0: none): a bot that starts reads "
                       "`GET /v1/me/games` and `GET /v1/challenges`, then follows "
                       "`/v1/me/stream?after=<this>`."})


class UpdatedAccountSchema(AccountSchema):
    """Your account as changed: with the webhook's new secret when one was made."""

    webhook_secret = fields.String(metadata={
        "description": f"Present only when this change registered a new or changed "
                       f"`webhook_url`. {_SECRET}", "example": "whsec_" + "A" * 43 + "="})


class AccountSettingsSchema(StrictSchema):
    challenges_from = fields.String(validate=validate.OneOf(CHALLENGES_FROM), metadata={
        "description": "Who may challenge you: `anyone`, `bots` (declared bot accounts "
                       "only) or `nobody`."})
    webhook_url = fields.String(allow_none=True, validate=validate.Length(
        min=1, max=WEBHOOK_URL_MAX), metadata={
        "description": "Where `your_turn`, `challenge` and `game_finished` are POSTed, "
                       "signed (Standard Webhooks); null removes it and drops what is "
                       "waiting. An `http` or `https` URL without a user name or password "
                       "whose host is on public addresses only (else 422 "
                       "`invalid_webhook_url`). A new or changed URL gets a new secret, "
                       "shown once in the answer (`webhook_secret`).",
        "example": "https://bots.example.com/three-thirteen"})
    analyse_rated = fields.Raw(validate=check_boolean, metadata={
        "type": "boolean", "description": "Have your rated games analysed when they "
        "finish (their mistakes then listed in `GET /v1/me/mistakes`), up to "
        "`ANALYSIS_AUTO_PER_DAY` in any 24 hours; a game already analysed costs nothing."})


class WebhookSecretSchema(Schema):
    webhook_secret = fields.String(required=True, metadata={"description": _SECRET})


class ProfileSchema(Schema):
    """An account as anyone sees it."""

    handle = fields.String(required=True)
    bot = fields.Boolean(required=True)
    reference = fields.Boolean(required=True, metadata={
        "description": "One of the service's reference bots (it plays on the service)."})
    ratings = fields.Dict(
        keys=fields.String(validate=validate.OneOf(list(PRESETS))),
        values=fields.Nested(RatingSchema), required=True, metadata={
            "description": "The account's rating in each preset (one never played rated: "
                           "1500, deviation 350, provisional). A reference bot's are its "
                           "fixed anchors (docs/ratings.md)."})


class MyGameSchema(Schema):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True, allow_none=True, metadata={
        "description": "Your seat (null: a game over whose state has expired)."})
    status = fields.String(required=True,
                           validate=validate.OneOf(["open", "in_progress", "finished"]))
    my_turn = fields.Boolean(required=True, metadata={
        "description": "It is your seat's turn (and not the service's, for an away seat)."})
    deadline = fields.String(required=True, allow_none=True, metadata={
        "format": "date-time", "description": "When the turn being played times out, "
        "yours or another seat's (null: no clock running, or the game is over)."})
    round = fields.Integer(required=True, allow_none=True)
    rounds = fields.Integer(required=True, allow_none=True)
    players = fields.List(fields.String(), required=True, allow_none=True)
    version = fields.Integer(required=True, allow_none=True)
    winners = fields.List(fields.Integer(), required=True, allow_none=True, metadata={
        "description": "The winning seats of a finished game."})
    joined = fields.String(required=True, allow_none=True, metadata={
        "format": "date-time", "description": "When your account took its seat (a finished "
        "game: when it was made; null: its record is all that is left)."})
    ended = fields.String(metadata={"format": "date-time"})


class MyGamesSchema(Schema):
    games = fields.List(fields.Nested(MyGameSchema), required=True, metadata={
        "description": "Games in progress first (those on your turn first, soonest "
                       "deadline first), then finished games, newest first."})
    next_cursor = fields.String(required=True, allow_none=True, metadata={
        "description": "Pass as `cursor` for the next page of finished games (null: no "
                       "more)."})
