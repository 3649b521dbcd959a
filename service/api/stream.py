"""``GET /v1/games/{id}/stream`` and its tickets: a game pushed to browsers and bots.

What is sent, in which order and when it ends is the service layer's
(:func:`service.play.stream_messages`); this module negotiates the format, checks the
bearer before the first byte (so errors are still problem+json), and frames each
message as Server-Sent Events (``text/event-stream``, for ``EventSource``) or as
newline-delimited JSON (``application/x-ndjson``, as the Lichess bot API streams).
The response is a Flask ``Response`` over a generator, the documented way to stream
from Flask; flask-smorest passes it through unchanged.

Every open stream counts as one parked request of its client for its whole duration
(:func:`.web.parked`, 429 ``too_many_waits``). See ``docs/streams.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from itertools import chain

from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play
from service.wire.framing import (
    NDJSON,
    SSE,
    ndjson_message,
    ndjson_view,
    negotiate,
    sse_message,
    sse_preamble,
    sse_view,
)
from service.wire.queries import event_cursor, ticket_of

from .docs import GAME_ID, SEAT_BEARER, SEAT_BEARER_OPTIONAL, header, problems, query
from .web import (
    QUERY_INT_MAX,
    bearer,
    for_bearer,
    json_response,
    parked,
    stores,
    valid_game_id,
)

blp = Blueprint(
    "streams", __name__, url_prefix="/v1/games",
    description="Pushed streams of a game (Server-Sent Events or NDJSON), and stream tickets.",
)

def media_type() -> str:
    """The stream's format by ``Accept`` (:func:`service.wire.framing.negotiate`)."""
    return negotiate(request.headers.get("Accept"))


def stream_cursor() -> int:
    """``Last-Event-ID`` (what ``EventSource`` sends when it reconnects) or ``?after=``."""
    return event_cursor(request.args.get("after"), request.headers.get("Last-Event-ID"))


STREAM_DOC = {
    200: {
        "description": "The stream: the events after the cursor, then your view; on every "
        "move the new events, then the new view; heartbeats while idle; on a finished game "
        "whose analysis is queued or running, its progress until it is done; a last `end` "
        "message. See docs/streams.md.",
        # Why both forms: OpenAPI 3.2 gives a sequential media type's items `itemSchema`,
        # and `schema` the whole stream read as an array of them; the tools this document
        # is read with (openapi-typescript, Swagger UI) know 3.1 only, so the item schema
        # is 3.2's under its registered pre-3.2 name, `x-oai-itemSchema`. What each tool
        # reads: an NDJSON stream's `schema` is 3.2's (an array of `StreamMessage`, so
        # generators type each line); an SSE stream's `schema` is one event, as 3.1 tools
        # (schemathesis, Swagger UI) read `text/event-stream`.
        "content": {
            SSE: {"schema": {"$ref": "#/components/schemas/StreamSseEvent"},
                  "x-oai-itemSchema": {"$ref": "#/components/schemas/StreamSseEvent"}},
            NDJSON: {"schema": {"type": "array", "description": "The stream's lines, one "
                                "`StreamMessage` each; a heartbeat is an empty line.",
                                "items": {"$ref": "#/components/schemas/StreamMessage"}},
                     "x-oai-itemSchema": {"$ref": "#/components/schemas/StreamMessage"}},
        },
        "headers": {"Cache-Control": {"description": "`no-cache` (`private, no-cache` for a "
                                      "seat)", "schema": {"type": "string"}}},
    },
}


@blp.route("/<game_id>/stream", parameters=[GAME_ID])
class Stream(MethodView):
    @blp.doc(
        operationId="streamGame",
        security=SEAT_BEARER_OPTIONAL,
        parameters=[
            query("after", "Send the events with `seq` greater than this (default 0); "
                  "`Last-Event-ID` wins over it. Beyond the newest event: 422 `invalid_cursor`.",
                  {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX}),
            query("ticket", "A stream ticket from `POST …/stream-tickets` (single use, 30 s), "
                  "for clients that cannot send `Authorization` (EventSource). With a ticket "
                  "the `Authorization` header is ignored.",
                  {"type": "string", "minLength": 1, "maxLength": 64,
                   "pattern": "^[A-Za-z0-9_-]+$"}),
            header("Last-Event-ID", "Resume after this event `seq` (what EventSource sends "
                   "when it reconnects).", {"type": "string", "pattern": "^[0-9]{1,15}$"}),
        ],
        responses=STREAM_DOC,
    )
    @problems(blp, "invalid_token", "unknown_game", "invalid_query", "invalid_cursor",
              "not_acceptable", "too_many_waits")
    def get(self, game_id: str) -> Response:
        """Follow a game as a stream

        Server-Sent Events for `Accept: text/event-stream` (or a wildcard type, or no
        `Accept`), newline-delimited JSON for `Accept: application/x-ndjson`. Spectators need no
        token; a seat sends its token, or a stream ticket as `?ticket=`, and also gets
        its private events and its own view. The stream ends after the finished game's
        final view (`finished`), after the server's maximum duration (`max_duration`),
        when the server shuts down (`shutdown`) or its store fails (`unavailable`): then
        resume from the last event id. Each open stream counts as one of its client's
        parked requests (`429 too_many_waits` beyond the limit).
        """
        valid_game_id(game_id)
        kind = media_type()
        after = stream_cursor()
        all_stores = stores()
        ticket = request.args.get("ticket")
        seat: int | None
        if ticket is not None:
            record, seat = play.redeem_ticket(all_stores, game_id, ticket_of(ticket))
        else:
            who = bearer()
            record = all_stores.games.load(game_id)
            seat = play.seat_of(record, who)
        play.check_cursor(record, after)
        services = current_app.extensions["three_thirteen"]

        def messages(frame_view: Callable[[bytes], bytes]) -> Iterator[play.Message]:
            return play.stream_messages(
                all_stores, game_id, seat, after,
                max_seconds=services.config.stream_max_seconds,
                heartbeat_seconds=services.config.stream_heartbeat_seconds,
                stopping=services.stopping.is_set, known_version=record.state.version,
                frame_view=frame_view)

        return for_bearer(stream_response(messages, kind), seat is not None)


def stream_response(messages: Callable[[Callable[[bytes], bytes]], Iterator[play.Message]],
                    kind: str) -> Response:
    """The response pushing ``messages(frame_view)`` as ``kind`` (SSE or NDJSON), which
    holds one of its client's parked requests until it closes."""
    hold = parked()  # one of the client's parked requests until the response closes
    hold.__enter__()
    frame, frame_view = ((sse_message, sse_view) if kind == SSE
                         else (ndjson_message, ndjson_view))
    try:
        # Why map() and no generator of our own, no request context kept for the
        # stream's life (no stream_with_context), no ExitStack: a parked stream is a
        # sleeping greenlet, and each Python generator between the server's loop and
        # the one that waits is one more interpreter frame on the C stack gevent saves
        # for it, each context object a few hundred bytes more (docs/performance.md).
        body: Iterator[bytes] = map(frame, messages(frame_view))
        if kind == SSE:
            body = chain((sse_preamble(play.END_RETRY_MS),), body)
        response = Response(body, content_type=kind)
    except BaseException:
        hold.__exit__(None, None, None)
        raise
    response.call_on_close(partial(hold.__exit__, None, None, None))
    response.headers["X-Accel-Buffering"] = "no"  # nginx: pass each message at once
    return response


@blp.route("/<game_id>/stream-tickets", parameters=[GAME_ID])
class StreamTickets(MethodView):
    @blp.doc(
        operationId="createStreamTicket",
        security=SEAT_BEARER,
        responses={201: {
            "description": "A single-use ticket for `GET …/stream?ticket=`, valid 30 seconds.",
            "content": {"application/json": {"schema": {
                "$ref": "#/components/schemas/StreamTicket"}}},
        }},
    )
    @problems(blp, "invalid_token", "unknown_game")
    def post(self, game_id: str) -> Response:
        """Get a stream ticket

        A browser's `EventSource` cannot send `Authorization`, and a token in a URL ends
        up in logs and histories. Trade the seat token for a ticket that opens one stream
        as your seat within `expires_in` seconds: `GET …/stream?ticket=<ticket>`.
        """
        valid_game_id(game_id)
        ticket = play.issue_ticket(stores(), game_id, bearer(required=True))
        body = {"ticket": ticket, "expires_in": play.TICKET_TTL_SECONDS}
        return json_response(body, 201, {"Cache-Control": "no-store"})
