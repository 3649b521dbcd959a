"""The account stream's notes (``GET /v1/me/stream``) and its messages, and the bodies
POSTed to an account's webhook, documented.

A note is what an account is told: a challenge to it and what became of one, a game of
its starting, its turn, a game of its over, a tournament's news, an evaluation's
progress. Each carries ``seq`` (the stream's cursor) and ``type`` (the discriminator),
and the ``game_id``, ``challenge_id``, ``tournament_id`` or ``evaluation_id`` it is
about.

A webhook's body is Standard Webhooks' envelope (``type``, ``timestamp``, ``data``) around
the note as the stream carries it, without ``seq`` (the stream's cursor means nothing
there) and with ``account``. Its schemas are made from the notes' own, one per type of
:data:`service.play.WEBHOOK_TYPES` (what the service sends), so they cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from service.play import WEBHOOK_TYPES
from service.storage import EVALUATION_STATUSES

from .cards import Described, ref
from .evaluations import EvaluationResultSchema
from .views import TURN_PHASES

__all__ = ["ACCOUNT_SSE_EVENT", "ACCOUNT_STREAM_MESSAGE", "ANY_NOTE", "NOTE_SCHEMAS",
           "WEBHOOK_SCHEMAS", "WEBHOOK_TYPES_DOCUMENTED"]


def _type(name: str) -> fields.String:
    return fields.String(required=True, validate=validate.OneOf([name]),
                         metadata={"description": "The note's type."})


class _Note(Schema):
    seq = fields.Integer(required=True, metadata={
        "description": "1, 2, 3… over the account; the SSE `id` and the resume cursor."})


class _GameNote(_Note):
    game_id = fields.String(required=True)
    seat = fields.Integer(required=True, metadata={"description": "Your seat in it."})
    version = fields.Integer(required=True, metadata={
        "description": "The game's version the note was written at."})


class GameStartedNoteSchema(_GameNote):
    """A game of yours started: every seat is taken (from a challenge, a seek, a claim)."""

    type = _type("game_started")
    players = fields.List(fields.String(), required=True)


class YourTurnNoteSchema(_GameNote):
    """It is your turn in a game (not sent while the service plays your seat)."""

    type = _type("your_turn")
    round = fields.Integer(required=True)
    phase = fields.String(required=True, validate=validate.OneOf(TURN_PHASES))
    deadline = fields.String(required=True, allow_none=True, metadata={
        "format": "date-time", "description": "When the turn's clock runs out (null: none)."})


class GameFinishedNoteSchema(_GameNote):
    """A game of yours is over."""

    type = _type("game_finished")
    winners = fields.List(fields.Integer(), required=True)
    totals = fields.List(fields.Integer(), required=True)
    reason = fields.String(required=True, allow_none=True, metadata={
        "description": "How it ended: the view's `finish_reason`."})


class AnalysisSkippedNoteSchema(_GameNote):
    """A rated game of yours was not analysed by itself, though you asked for your rated
    games to be (`analyse_rated`): you had your `per_day` automatic analyses in the last
    24 hours (`quota`), or the analysis queue was full (`busy`). Ask for it with `POST
    /v1/games/{game_id}/analysis`."""

    type = _type("analysis_skipped")
    reason = fields.String(required=True, validate=validate.OneOf(["quota", "busy"]))
    per_day = fields.Integer(required=True, metadata={
        "description": "The automatic analyses an account has in any 24 hours "
                       "(`ANALYSIS_AUTO_PER_DAY`)."})


class _ChallengeNote(_Note):
    challenge_id = fields.String(required=True)


class ChallengeNoteSchema(_ChallengeNote):
    """You were challenged: accept or decline it (`POST /v1/challenges/{id}/accept`)."""

    type = _type("challenge")
    challenge = Described(ref("Challenge"), required=True)


class ChallengeDeclinedNoteSchema(_ChallengeNote):
    """A challenge you made or received was declined by one of those challenged."""

    type = _type("challenge_declined")
    by = fields.String(required=True, metadata={"description": "Who declined it."})


class ChallengeCanceledNoteSchema(_ChallengeNote):
    """A challenge you made or received is off: its challenger canceled it, or it
    expired unanswered."""

    type = _type("challenge_canceled")
    reason = fields.String(required=True, validate=validate.OneOf(["canceled", "expired"]))


class _TournamentNote(_Note):
    tournament_id = fields.String(required=True)
    name = fields.String(required=True, metadata={"description": "The tournament's name."})


class TournamentInvitedNoteSchema(_TournamentNote):
    """You are invited to a tournament: accept with `POST /v1/tournaments/{id}/join`
    (you play only once you do), decline with `…/leave`."""

    type = _type("tournament_invited")
    creator = fields.String(required=True)
    system = fields.String(required=True, validate=validate.OneOf(["swiss", "round_robin"]))
    seats = fields.Integer(required=True)
    rated = fields.Boolean(required=True)
    starts_at = fields.String(required=True, allow_none=True, metadata={"format": "date-time"})


class TournamentStartedNoteSchema(_TournamentNote):
    """A tournament you entered started: its first round is being paired."""

    type = _type("tournament_started")
    rounds = fields.Integer(required=True)
    entrants = fields.List(fields.String(), required=True)


class RoundStartedNoteSchema(_TournamentNote):
    """A round of your tournament started: your game and seat, or your bye."""

    type = _type("round_started")
    round = fields.Integer(required=True)
    game_id = fields.String(required=True, allow_none=True, metadata={
        "description": "Your game of the round (null: a bye)."})
    seat = fields.Integer(required=True, allow_none=True)
    bye = fields.Boolean(required=True)


class TournamentFinishedNoteSchema(_TournamentNote):
    """A tournament you entered is over: your place, and the final standings."""

    type = _type("tournament_finished")
    place = fields.Integer(required=True)
    points = fields.Float(required=True)
    standings = fields.List(Described(ref("Standing")), required=True)


class EvaluationProgressNoteSchema(_Note):
    """Deals of your evaluation finished: its status and the results so far (the last
    note of an evaluation says `done`)."""

    type = _type("evaluation_progress")
    evaluation_id = fields.String(required=True)
    status = fields.String(required=True, validate=validate.OneOf(EVALUATION_STATUSES))
    results = fields.List(fields.Nested(EvaluationResultSchema), required=True, metadata={
        "description": "Per anchor, as `GET /v1/evaluations/{id}` has them, without the "
                       "games."})


NOTE_TYPES: dict[str, tuple[str, type[Schema]]] = {
    "challenge": ("ChallengeNote", ChallengeNoteSchema),
    "challenge_declined": ("ChallengeDeclinedNote", ChallengeDeclinedNoteSchema),
    "challenge_canceled": ("ChallengeCanceledNote", ChallengeCanceledNoteSchema),
    "game_started": ("GameStartedNote", GameStartedNoteSchema),
    "your_turn": ("YourTurnNote", YourTurnNoteSchema),
    "game_finished": ("GameFinishedNote", GameFinishedNoteSchema),
    "analysis_skipped": ("AnalysisSkippedNote", AnalysisSkippedNoteSchema),
    "tournament_invited": ("TournamentInvitedNote", TournamentInvitedNoteSchema),
    "tournament_started": ("TournamentStartedNote", TournamentStartedNoteSchema),
    "round_started": ("RoundStartedNote", RoundStartedNoteSchema),
    "tournament_finished": ("TournamentFinishedNote", TournamentFinishedNoteSchema),
    "evaluation_progress": ("EvaluationProgressNote", EvaluationProgressNoteSchema),
}
NOTE_SCHEMAS: dict[str, type[Schema]] = dict(NOTE_TYPES.values())

ANY_NOTE: dict[str, Any] = {
    "oneOf": [ref(name) for name, _ in NOTE_TYPES.values()],
    "discriminator": {"propertyName": "type", "mapping": {
        t: f"#/components/schemas/{name}" for t, (name, _) in NOTE_TYPES.items()}},
}


class AccountStreamNoteMessageSchema(Schema):
    """One note (SSE: `event: event`, `id: <seq>`, the note as `data`)."""

    type = fields.String(required=True, validate=validate.OneOf(["event"]))
    event = Described(ref("AccountNote"), required=True)


#: One NDJSON line of an account stream (a heartbeat is an empty line).
ACCOUNT_STREAM_MESSAGE: dict[str, Any] = {
    "description": "One message of an account stream; a heartbeat is an empty line "
                   "(NDJSON) or a `: ping` comment (SSE).",
    "oneOf": [ref("AccountStreamNoteMessage"), ref("StreamEndMessage")],
    "discriminator": {"propertyName": "type", "mapping": {
        "event": "#/components/schemas/AccountStreamNoteMessage",
        "end": "#/components/schemas/StreamEndMessage"}},
}


def _sse(event: str, data: dict[str, Any], description: str, **more: Any) -> dict[str, Any]:
    return {
        "type": "object", "description": description, "required": ["event", "data"],
        "properties": {
            "event": {"const": event},
            "data": {"type": "string", "contentMediaType": "application/json",
                     "contentSchema": data},
            "id": {"type": "string", "pattern": "^[0-9]+$",
                   "description": "The last note's `seq` (`Last-Event-ID` on reconnect)."},
            **more,
        },
    }


#: One Server-Sent Event of an account stream.
ACCOUNT_SSE_EVENT: dict[str, Any] = {
    "description": "One Server-Sent Event of an account stream (`: ping` heartbeats are "
                   "comments).",
    "oneOf": [
        _sse("event", ref("AccountNote"), "A note; `id` is its `seq`."),
        _sse("end", ref("StreamEnd"), "The last event; `retry` is the reconnect delay.",
             retry={"type": ["integer", "string"], "description": "Milliseconds."}),
    ],
}


class _WebhookData(Schema):
    account = fields.String(required=True, metadata={
        "description": "The account told: its handle."})


class _Webhook(Schema):
    timestamp = fields.String(required=True, metadata={
        "format": "date-time", "description": "When the event was queued (UTC, to the "
        "millisecond): the same at every attempt, unlike the `webhook-timestamp` header, "
        "which is when the attempt was signed."})


def _webhook(note_type: str) -> tuple[tuple[str, type[Schema]], tuple[str, type[Schema]]]:
    """The schemas of the body POSTed for a ``note_type`` note (named, as components):
    its ``data`` (the note without ``seq``, with ``account``), and the envelope."""
    name, note = NOTE_TYPES[note_type]
    base = name.removesuffix("Note") + "Webhook"
    data: type[Schema] = type(f"{base}DataSchema", (note, _WebhookData), {
        "Meta": type("Meta", (), {"exclude": ("seq",)}),
        "__doc__": f"A `{note_type}` note as a webhook carries it."})
    envelope: type[Schema] = type(f"{base}Schema", (_Webhook,), {
        "type": _type(note_type),
        "data": fields.Nested(data, required=True, metadata={
            "description": "The note, as the account stream carries it but `seq`, with "
                           "`account`."}),
        "__doc__": f"The body POSTed to an account's webhook for a `{note_type}` note."})
    return (f"{base}Data", data), (base, envelope)


#: The component names of the webhook bodies' schemas (the data first: the envelope
#: nests it), by note type.
WEBHOOK_TYPES_DOCUMENTED: dict[str, tuple[tuple[str, type[Schema]], tuple[str, type[Schema]]]] = {
    note_type: _webhook(note_type) for note_type in sorted(WEBHOOK_TYPES)}
WEBHOOK_SCHEMAS: dict[str, type[Schema]] = {
    name: schema for pair in WEBHOOK_TYPES_DOCUMENTED.values() for name, schema in pair}
