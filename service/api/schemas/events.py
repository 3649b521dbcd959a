"""The schemas of the event log and of the pushed streams, for the OpenAPI document.

Why one schema per event type: a client switches on ``type`` and then reads that
event's fields; with every type and field documented (and a ``oneOf`` with a
discriminator on ``type``), generated clients get typed events instead of a bag of
keys. The fields are the engine's (``service/engine/events.py``, ``actions.py``,
``rounds.py``, ``game.py``: every ``log.add``); a field marked private is present
only for the seat it belongs to (spectators and other seats never get it).

The stream's messages (``service/api/stream.py``) are documented here too: NDJSON
lines are ``StreamMessage`` objects; SSE ``data`` is the event, the view or the end.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields, validate

from ..deprecations import deprecated_field
from .cards import CARD, RANKS, Card, Cards, Described, Melds, described2properties
from .cards import ref as _ref
from .solve import LayoffSchema
from .views import LastRoundSchema

__all__ = ["EVENT_SCHEMAS", "SSE_EVENT", "STREAM_SCHEMAS", "EventsResponseSchema", "described2properties"]


def _type(name: str) -> fields.String:
    return fields.String(required=True, validate=validate.OneOf([name]),
                         metadata={"description": "The event type."})


def _private(description: str) -> str:
    return f"{description} Private: only the seat it belongs to gets this field."


class _EventBase(Schema):
    seq = fields.Integer(required=True, metadata={"description": "1, 2, 3… over the game; "
                                                  "the SSE `id` and the resume cursor."})


class RoundStartedEventSchema(_EventBase):
    """A round was dealt."""

    type = _type("round_started")
    number = fields.Integer(required=True, metadata={
        "description": "1-based round number (the name `round_ended` and the view's "
                       "`round` use)."})
    round = fields.Integer(required=True,
                           metadata=deprecated_field("RoundStartedEvent", "round"))
    hand_size = fields.Integer(required=True)
    wild_rank = fields.String(required=True, validate=validate.OneOf(RANKS))
    dealer = fields.Integer(required=True)
    current_seat = fields.Integer(required=True, metadata={"description": "Who draws first."})
    discard_top = Card(required=True, allow_none=True)
    stock_count = fields.Integer(required=True)
    hand = Cards(_private("The hand dealt to you."))


class DrawEventSchema(_EventBase):
    """A seat drew a card."""

    type = _type("draw")
    seat = fields.Integer(required=True)
    by = fields.String(required=True, validate=validate.OneOf(["player", "service"]),
                       metadata={"description": "Who made the move: the seat's player, or "
                                 "the service (a bot seat, or the stand-in for an away, "
                                 "resigned or timed-out seat)."})
    source = fields.String(required=True, validate=validate.OneOf(["stock", "discard"]))
    card = fields.String(metadata={**CARD, "description": "The card drawn: public from the "
                                   "discard pile; from the stock private (only the drawing "
                                   "seat gets it)."})


class DiscardEventSchema(_EventBase):
    """A seat discarded a card (ending its turn)."""

    type = _type("discard")
    seat = fields.Integer(required=True)
    by = fields.String(required=True, validate=validate.OneOf(["player", "service"]),
                       metadata={"description": "Who made the move: the seat's player, or "
                                 "the service (a bot seat, or the stand-in for an away, "
                                 "resigned or timed-out seat)."})
    card = Card(required=True)


class WentOutEventSchema(_EventBase):
    """A seat went out: its melds are laid, the others get their final turns."""

    type = _type("went_out")
    seat = fields.Integer(required=True)
    by = fields.String(required=True, validate=validate.OneOf(["player", "service"]),
                       metadata={"description": "Who made the move: the seat's player, or "
                                 "the service (a bot seat, or the stand-in for an away, "
                                 "resigned or timed-out seat)."})
    discard = Card(required=True)
    melds = Melds("The melds laid.", required=True)


class LaidDownEventSchema(_EventBase):
    """After its final turn a seat's best melds (and lay-offs) were laid down."""

    type = _type("laid_down")
    seat = fields.Integer(required=True)
    melds = Melds("The melds laid.", required=True)
    layoffs = fields.List(fields.Nested(LayoffSchema), required=True)


class ReshuffledEventSchema(_EventBase):
    """The stock ran out and the discard pile (but its top) became the stock."""

    type = _type("reshuffled")
    stock_count = fields.Integer(required=True)
    discard_top = Card(required=True)


class RoundEndedEventSchema(LastRoundSchema):
    """A round was scored (the fields of the view's `last_round`)."""

    seq = fields.Integer(required=True)
    type = _type("round_ended")


class GameFinishedEventSchema(_EventBase):
    """The game is over; the seed is revealed to check the deals."""

    type = _type("game_finished")
    winners = fields.List(fields.Integer(), required=True)
    totals = fields.List(fields.Integer(), required=True)
    seed = fields.String(required=True)
    seed_salt = fields.String(required=True)
    reason = fields.String(
        required=True, validate=validate.OneOf(["completed", "resigned", "aborted"]),
        metadata={"description": "`completed`: every round was played; `resigned`: every "
                  "player but the winner resigned (the round in play was not scored); "
                  "`aborted`: a seat that had not played ended it (no winners)."})


class SeatClaimedEventSchema(_EventBase):
    """An open seat was claimed."""

    type = _type("seat_claimed")
    seat = fields.Integer(required=True)
    name = fields.String(required=True)
    account = fields.String(metadata={"description": "The account that claimed it (absent: "
                                      "a seat token's claim)."})
    account_bot = fields.Boolean(metadata={"description": "That account is a declared bot "
                                           "account (present with `account`)."})


class SeatResignedEventSchema(_EventBase):
    """A seat resigned: the stand-in bot plays it to the end of the game."""

    type = _type("seat_resigned")
    seat = fields.Integer(required=True)
    played_by = fields.String(required=True, metadata={"description": "The stand-in bot.",
                                                       "example": "greedy"})


class TurnTimedOutEventSchema(_EventBase):
    """A seat's turn clock ran out: the stand-in bot plays that turn for it."""

    type = _type("turn_timed_out")
    seat = fields.Integer(required=True)
    timeouts = fields.Integer(required=True, metadata={"description": "Turns timed out in "
                                                       "a row by this seat.", "example": 1})
    away = fields.Boolean(required=True, metadata={"description": "Whether the seat is now "
                                                   "`away` (played by the stand-in until "
                                                   "its owner sends `back`)."})
    played_by = fields.String(required=True, metadata={"description": "The stand-in bot.",
                                                       "example": "greedy"})


class SeatBackEventSchema(_EventBase):
    """The owner of an away seat is back and plays its turns again."""

    type = _type("seat_back")
    seat = fields.Integer(required=True)


class GameAbortedEventSchema(_EventBase):
    """A seat that had not played its first turn aborted the game (`game_finished`
    follows, with no winners)."""

    type = _type("game_aborted")
    seat = fields.Integer(required=True)


class VictoryClaimedEventSchema(_EventBase):
    """A player claimed victory against an away seat, which has resigned: the stand-in
    plays it to the end (with one player left the game ends: `game_finished` follows)."""

    type = _type("victory_claimed")
    seat = fields.Integer(required=True, metadata={"description": "Who claimed."})
    against = fields.Integer(required=True, metadata={"description": "The away seat, now "
                                                      "resigned."})
    played_by = fields.String(required=True, metadata={"description": "The stand-in bot.",
                                                       "example": "greedy"})


class RematchAskedEventSchema(_EventBase):
    """After the end, a seat asked for (or accepted) a rematch."""

    type = _type("rematch_asked")
    seat = fields.Integer(required=True)
    waiting_for = fields.List(fields.Integer(), required=True, metadata={
        "description": "The human seats still to accept (bots accept at once).",
        "example": [2]})


class RematchStartedEventSchema(_EventBase):
    """Every player who did not resign accepted: the rematch is this game; each of their
    tokens plays the same seat there (a resigned player's seat is open in it)."""

    type = _type("rematch_started")
    game_id = fields.String(required=True, metadata={"description": "The new game.",
                                                     "example": "k3J9xQ2mVb7T"})


#: The component name of each event's schema, by event type.
EVENT_TYPES = {
    "round_started": ("RoundStartedEvent", RoundStartedEventSchema),
    "draw": ("DrawEvent", DrawEventSchema),
    "discard": ("DiscardEvent", DiscardEventSchema),
    "went_out": ("WentOutEvent", WentOutEventSchema),
    "laid_down": ("LaidDownEvent", LaidDownEventSchema),
    "reshuffled": ("ReshuffledEvent", ReshuffledEventSchema),
    "round_ended": ("RoundEndedEvent", RoundEndedEventSchema),
    "game_finished": ("GameFinishedEvent", GameFinishedEventSchema),
    "seat_claimed": ("SeatClaimedEvent", SeatClaimedEventSchema),
    "seat_resigned": ("SeatResignedEvent", SeatResignedEventSchema),
    "turn_timed_out": ("TurnTimedOutEvent", TurnTimedOutEventSchema),
    "seat_back": ("SeatBackEvent", SeatBackEventSchema),
    "game_aborted": ("GameAbortedEvent", GameAbortedEventSchema),
    "victory_claimed": ("VictoryClaimedEvent", VictoryClaimedEventSchema),
    "rematch_asked": ("RematchAskedEvent", RematchAskedEventSchema),
    "rematch_started": ("RematchStartedEvent", RematchStartedEventSchema),
}
EVENT_SCHEMAS: dict[str, type[Schema]] = dict(EVENT_TYPES.values())

#: Any one event: its ``type`` says which schema.
ANY_EVENT: dict[str, Any] = {
    "oneOf": [_ref(name) for name, _ in EVENT_TYPES.values()],
    "discriminator": {"propertyName": "type",
                      "mapping": {t: f"#/components/schemas/{name}"
                                  for t, (name, _) in EVENT_TYPES.items()}},
}


class EventsResponseSchema(Schema):
    game_id = fields.String(required=True)
    events = fields.List(Described(ANY_EVENT), required=True, metadata={
        "description": "Public events plus your own private fields, in order."})
    next_after = fields.Integer(
        required=True, metadata={"description": "Pass as `after` to continue."}
    )
    more = fields.Boolean(
        required=True, metadata={"description": "Whether more events are already available."}
    )


class StreamEventMessageSchema(Schema):
    """One event (SSE: `event: event`, `id: <seq>`, this message's `event` as `data`)."""

    type = fields.String(required=True, validate=validate.OneOf(["event"]))
    event = Described(ANY_EVENT, required=True)


class StreamViewMessageSchema(Schema):
    """Your whole view after the events of a move (SSE: `event: view`, the view as `data`)."""

    type = fields.String(required=True, validate=validate.OneOf(["view"]))
    view = Described(_ref("GameView"), required=True)


class StreamEndSchema(Schema):
    """The stream's last message (SSE: `event: end`, with `retry:`)."""

    reason = fields.String(
        required=True, validate=validate.OneOf(["finished", "max_duration", "shutdown", "unavailable"]),
        metadata={"description": "`finished`: the game is over, do not reconnect; "
                  "`max_duration`, `shutdown`, `unavailable` (the store failed): reconnect "
                  "after `retry_ms` from your last event id."})
    retry_ms = fields.Integer(required=True, metadata={"description": "Reconnect delay."})


class StreamEndMessageSchema(StreamEndSchema):
    type = fields.String(required=True, validate=validate.OneOf(["end"]))


class StreamAnalysisSchema(Schema):
    """Where the finished game's analysis stands (SSE: `event: analysis`)."""

    status = fields.String(required=True, validate=validate.OneOf(["queued", "running", "done"]),
                           metadata={"description": "As `GET …/analysis` says; once `done`, "
                                                    "`GET …/analysis` serves it and the "
                                                    "stream ends."})
    progress = fields.Float(required=True, metadata={"description": "0.0–1.0."})


class StreamAnalysisMessageSchema(StreamAnalysisSchema):
    type = fields.String(required=True, validate=validate.OneOf(["analysis"]))


class StreamTicketSchema(Schema):
    ticket = fields.String(required=True, metadata={
        "description": "Pass as `GET …/stream?ticket=`; good for one stream."})
    expires_in = fields.Integer(required=True, metadata={"description": "Seconds."})


STREAM_SCHEMAS: dict[str, type[Schema]] = {
    "StreamEventMessage": StreamEventMessageSchema,
    "StreamViewMessage": StreamViewMessageSchema,
    "StreamEnd": StreamEndSchema,
    "StreamEndMessage": StreamEndMessageSchema,
    "StreamAnalysis": StreamAnalysisSchema,
    "StreamAnalysisMessage": StreamAnalysisMessageSchema,
    "StreamTicket": StreamTicketSchema,
}

#: One NDJSON line of a stream (a heartbeat is an empty line).
STREAM_MESSAGE: dict[str, Any] = {
    "description": "One message of a stream; a heartbeat is an empty line (NDJSON) or a "
    "`: ping` comment (SSE).",
    "oneOf": [_ref("StreamEventMessage"), _ref("StreamViewMessage"),
              _ref("StreamAnalysisMessage"), _ref("StreamEndMessage")],
    "discriminator": {"propertyName": "type", "mapping": {
        "event": "#/components/schemas/StreamEventMessage",
        "view": "#/components/schemas/StreamViewMessage",
        "analysis": "#/components/schemas/StreamAnalysisMessage",
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
                   "description": "The last event's `seq` (`Last-Event-ID` on reconnect)."},
            **more,
        },
    }


#: One Server-Sent Event of a stream, as OpenAPI 3.1 tools read a ``text/event-stream``
#: schema (each event's fields; OpenAPI 3.2 names the same thing ``itemSchema``): ``data``
#: is JSON, whose schema is ``contentSchema``. Heartbeats are comments, not events.
SSE_EVENT: dict[str, Any] = {
    "description": "One Server-Sent Event of a stream (`: ping` heartbeats are comments).",
    "oneOf": [
        _sse("event", ANY_EVENT, "An event; `id` is its `seq`."),
        _sse("view", _ref("GameView"), "Your whole view after the events of a move."),
        _sse("analysis", _ref("StreamAnalysis"), "A finished game's analysis moved on "
             "(queued, running with its progress, done)."),
        _sse("end", _ref("StreamEnd"), "The last event; `retry` is the reconnect delay.",
             retry={"type": ["integer", "string"], "description": "Milliseconds."}),
    ],
}
