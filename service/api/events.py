"""``GET /v1/games/{id}/events``: a game's event log, resumable by ``seq``, optionally waiting.

A seat sees the public events and its own private ones (the cards it drew from the
stock, the hands dealt to it); a spectator the public ones. ``timeout`` parks the
request on the worker's notification hub (``service/play/waits.py``) until the next
event, like the view's long-polls.
"""

from __future__ import annotations

from flask import Response, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play
from service.play import MAX_EVENTS
from service.wire.queries import check_events_after, optional_wait

from .docs import GAME_ID, SEAT_BEARER_OPTIONAL, problems, query
from .limits import nothing_new
from .schemas import EventsResponseSchema
from .web import (
    QUERY_INT_MAX,
    bearer,
    for_bearer,
    json_response,
    long_poll_max,
    parked,
    query_int,
    stores,
    valid_game_id,
)

blp = Blueprint(
    "events", __name__, url_prefix="/v1/games",
    description="A game's event log: public events and your own private ones, in order.",
)

__all__ = ["MAX_EVENTS", "blp"]


@blp.route("/<game_id>/events", parameters=[GAME_ID])
class Events(MethodView):
    @blp.doc(
        operationId="getEvents",
        security=SEAT_BEARER_OPTIONAL,
        parameters=[
            query("after", "Return events with `seq` greater than this (default 0); "
                  "beyond the newest event's `seq` it is a 422 `invalid_cursor`.",
                  {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX}),
            query("limit", f"At most this many (1–{MAX_EVENTS}, default {MAX_EVENTS}).",
                  {"type": "integer", "minimum": 1, "maximum": MAX_EVENTS}),
            query("timeout", "If there is nothing after `after`, wait up to this many seconds "
                  "for the next event (default 0).", {"type": "number", "minimum": 0}),
        ],
    )
    @blp.response(200, EventsResponseSchema)
    @problems(blp, "invalid_token", "unknown_game", "invalid_query", "invalid_cursor",
              "too_many_waits")
    def get(self, game_id: str) -> Response:
        """The event log: public events plus your own private ones, in order

        Resume with `after=next_after`. A spectator sees public fields only; a seat
        also sees the cards it drew from the stock and the hands dealt to it.
        """
        valid_game_id(game_id)
        who = bearer()
        after = query_int("after", 0, 0)
        limit = query_int("limit", MAX_EVENTS, 1, MAX_EVENTS)
        timeout = optional_wait(request.args.get("timeout"), long_poll_max())
        games = stores().games
        record = games.load(game_id)
        seat = play.seat_of(record, who)
        check_events_after(after, record.state.event_seq)
        # one more than the limit tells whether to page on
        if timeout > 0:
            with parked():
                events = play.events_when(games, game_id, after, limit + 1, timeout)
        else:
            events = games.events(game_id, after, limit + 1)
        if not events and seat is not None:
            nothing_new()
        body = play.events_page_bytes(game_id, events, after, limit, seat)
        return for_bearer(json_response(body), seat is not None)
