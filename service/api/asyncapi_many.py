"""The AsyncAPI document's stream of many games (``POST /v1/streams/games``, which only
the push tier serves: ``service/push/multiplex.py``): its messages, its channel and its
operation, which :mod:`.asyncapi` puts beside the other streams'.

Each message of one game is its own stream's with the game's id as ``game``
(:class:`service.wire.framing.Tagged`); the channel's ``end`` is either a game's (with
``game``: ``finished`` or ``removed``) or the stream's own.
"""

from __future__ import annotations

from typing import Any

from service.wire.framing import NDJSON, SSE

from .asyncapi_parts import COMPONENT, message, ref, sse_headers

__all__ = ["GAMES_CHANNEL", "GAMES_MESSAGES", "GAMES_OPERATION", "GAMES_STREAM"]


def _game(required: list[str], members: dict[str, Any], kind: str | None) -> dict[str, Any]:
    """A message of one game on a stream of many: ``members`` with the game's id, and the
    ``type`` on an NDJSON line (``kind``)."""
    properties: dict[str, Any] = {"game": {"type": "string", "description": "The game's id."}}
    if kind is not None:
        properties = {"type": {"type": "string", "const": kind}, **properties}
    return {"type": "object", "properties": {**properties, **members},
            "required": [*([] if kind is None else ["type"]), "game", *required],
            "additionalProperties": False}


def _game_end(kind: str | None) -> dict[str, Any]:
    return _game(["reason", "retry_ms"], {
        "reason": {"type": "string", "enum": ["finished", "removed"], "description":
                   "`finished`: the game is over (after its final view and analysis); "
                   "`removed`: a `…/remove` took it out. No more messages of it follow."},
        "retry_ms": {"type": "integer", "description": "As a game's stream's `end`."}}, kind)


def _stream_end(kind: str | None) -> dict[str, Any]:
    return ({"oneOf": [ref("StreamEndMessage"), _game_end("end")], "description":
             "With `game`: that game has left the stream, which goes on. Without: the "
             "stream ends (`max_duration`, `shutdown`, `unavailable`: open it again)."}
            if kind else
            {"oneOf": [ref("StreamEnd"), _game_end(None)], "description":
             "With `game`: that game has left the stream, which goes on. Without: the "
             "stream ends."})


_EVENT = {"$ref": COMPONENT + "StreamEventMessage/properties/event"}
_ANALYSIS = {"status": {"$ref": COMPONENT + "StreamAnalysis/properties/status"},
             "progress": {"$ref": COMPONENT + "StreamAnalysis/properties/progress"}}
_OPENED = {"id": {"type": "string", "pattern": "^[A-Za-z0-9_-]+$", "description":
                  "The stream's id: what `POST /v1/streams/games/{id}/add` and `…/remove` "
                  "name (whoever knows it may change the stream, so keep it)."},
           "games": {"type": "array", "items": {"type": "string"}, "description":
                     "The games it follows, each once, in the order named."}}
_MANY = " (on a stream of many games: with the game's id as `game`)"

GAMES_MESSAGES: dict[str, dict[str, Any]] = {
    "gamesOpenedLine": message(
        "stream", "Stream opened (NDJSON)", "The stream's first message: its id and games.",
        NDJSON, {"type": "object", "properties": {"type": {"type": "string",
                 "const": "stream"}, **_OPENED}, "required": ["type", "id", "games"],
                 "additionalProperties": False}),
    "gamesOpenedSse": message(
        "stream", "Stream opened (SSE)", "The stream's first message: its id and games.",
        SSE, {"type": "object", "properties": _OPENED, "required": ["id", "games"],
              "additionalProperties": False}, sse_headers("stream")),
    "gamesEventLine": message(
        "event", "Event (NDJSON)", "One event of a game's log" + _MANY + ".", NDJSON,
        _game(["event"], {"event": _EVENT}, "event")),
    "gamesEventSse": message(
        "event", "Event (SSE)", "One event of a game's log" + _MANY + "; no `id` field.",
        SSE, _game(["event"], {"event": _EVENT}, None), sse_headers("event")),
    "gamesViewLine": message(
        "view", "View (NDJSON)", "The bearer's view of a game" + _MANY + ".", NDJSON,
        _game(["view"], {"view": ref("GameView")}, "view")),
    "gamesViewSse": message(
        "view", "View (SSE)", "The bearer's view of a game" + _MANY + ".", SSE,
        _game(["view"], {"view": ref("GameView")}, None), sse_headers("view")),
    "gamesAnalysisLine": message(
        "analysis", "Analysis progress (NDJSON)", "A finished game's analysis" + _MANY + ".",
        NDJSON, _game(["status", "progress"], _ANALYSIS, "analysis")),
    "gamesAnalysisSse": message(
        "analysis", "Analysis progress (SSE)", "A finished game's analysis" + _MANY + ".",
        SSE, _game(["status", "progress"], _ANALYSIS, None), sse_headers("analysis")),
    "gamesEndLine": message("end", "End (NDJSON)", "A game's end, or the stream's.",
                             NDJSON, _stream_end("end")),
    "gamesEndSse": message("end", "End (SSE)", "A game's end, or the stream's (only the "
                            "stream's has a `retry` field).", SSE, _stream_end(None),
                            {"type": "object", "properties": {
                                "event": {"type": "string", "const": "end"},
                                "retry": {"type": "string", "pattern": "^[0-9]+$"}},
                             "required": ["event"], "additionalProperties": False}),
}


GAMES_STREAM = ("gamesOpenedLine", "gamesEventLine", "gamesViewLine", "gamesAnalysisLine",
                "gamesEndLine", "heartbeatLine", "gamesOpenedSse", "gamesEventSse",
                "gamesViewSse", "gamesAnalysisSse", "gamesEndSse", "heartbeatSse",
                "retrySse")

GAMES_CHANNEL: dict[str, Any] = {
    "address": "/v1/streams/games", "title": "A stream of many games",
    "description": "Follows up to 500 games on one connection: first a `stream` "
    "message with the stream's id; then, for each game, every message its own "
    "stream would send (its events after its cursor, the bearer's view, on "
    "every move the new events and view, a finished game's analysis), each "
    "with the game's id as `game`, in order per game; a game's `end` with its "
    "`game` when it is finished or removed; heartbeats for the whole stream; a "
    "last `end` without `game`. Opened with `POST /v1/streams/games` and the "
    "body `{\"games\": [ids], \"after\": {id: seq}}` (`after` optional); "
    "changed while open with `POST /v1/streams/games/{stream_id}/add` or "
    "`…/remove` and a body of the same form (answered `200` with the games it "
    "then follows, `404 unknown_stream`, `409 too_many_games` past 500). "
    "Served by the push tier only: the web workers, and so the OpenAPI "
    "document, do not have these paths. See docs/streams.md.",
    "servers": [{"$ref": "#/servers/service"}],
    "messages": {m: {"$ref": f"#/components/messages/{m}"}
                 for m in GAMES_STREAM},
}

#: The operation's title, summary, description, messages, HTTP binding and security
#: (:func:`.asyncapi._operation`'s arguments after the channel).
GAMES_OPERATION = (
    "Follow many games", "The service pushes the events and "
    "views of many games to a client that opened a stream of them.",
    "`POST /v1/streams/games` with a JSON body naming the games (1 to 500 ids, "
    "duplicates dropped), answered as Server-Sent Events or NDJSON by `Accept`. "
    "A bearer (a seat token or an account key) sees each game as its own "
    "stream shows it to that bearer (a game it holds no seat of is refused, "
    "`401`); none, as a spectator. Not an operation of the OpenAPI document: "
    "only the push tier (`python -m service.push`) serves it.",
    GAMES_STREAM, {"method": "POST"}, ["seatToken", "accountKey"])
