"""``POST`` and ``GET /v1/games/{id}/analysis``: a finished game's decision analysis
(docs/analysis.md), asked for here, computed by the analysis workers, read back here.

A request only queues: the minute of CPU an analysis costs is spent by an analysis worker
process (``python -m service.workers --analysis``), never by a web worker.
"""

from __future__ import annotations

import time

from flask import Response, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play

from .docs import NO_BEARER, problems
from .schemas.analysis import AnalysisSchema
from .web import config, json_response, stores, valid_game_id

__all__ = ["blp"]

blp = Blueprint("analyses", __name__, url_prefix="/v1/games",
                description="Decision analysis of finished games: every draw, discard and "
                            "go-out judged from what its seat could see.")

#: A finished game's analysis, once done, never changes; before, it is polled.
CACHE_DONE, CACHE_PENDING = "public, max-age=86400", "no-store"


@blp.route("/<game_id>/analysis")
class Analysis(MethodView):
    @blp.doc(operationId="requestAnalysis", security=NO_BEARER, responses={
        202: {"description": "Queued (or queued already, or running): poll the `Location`.",
              "headers": {"Location": {"schema": {"type": "string"},
                                       "description": "`/v1/games/{id}/analysis`"}},
              "content": {"application/json": {
                  "schema": {"$ref": "#/components/schemas/Analysis"}}}}})
    @blp.response(200, AnalysisSchema, description="Done already: the analysis.")
    @problems(blp, "unknown_game", "game_not_finished", "game_aborted", "analysis_busy")
    def post(self, game_id: str) -> Response:
        """Ask for a finished game's analysis

        Every draw, discard and go-out of every seat is judged from what that seat could
        see at that moment and nothing more (docs/analysis.md). Anyone may ask, once the
        game is over; the analysis is kept as long as the game's record. A game already
        analysed is answered 200 with its analysis and costs nothing; otherwise 202 and
        an analysis worker takes it (about a minute for a 4-seat game). The queue serves
        client addresses in turn: a request waits behind at most one of each other
        address's. Limited per client address and per token or key (`ANALYSIS_LIMIT`);
        at most `ANALYSIS_QUEUE_MAX` wait at once (503 `analysis_busy` with
        `Retry-After`).
        """
        valid_game_id(game_id)
        body, _ = play.request_analysis(
            stores(), game_id, time.time(), config().analysis_queue_max,
            requester=play.requester_of(request.remote_addr or "unknown"))
        location = {"Location": f"/v1/games/{game_id}/analysis"}
        if body["status"] == "done":
            return json_response(body, 200, {**location, "Cache-Control": CACHE_DONE})
        return json_response(body, 202, {**location, "Cache-Control": CACHE_PENDING})

    @blp.doc(operationId="getAnalysis", security=NO_BEARER)
    @blp.response(200, AnalysisSchema)
    @problems(blp, "unknown_game", "analysis_not_requested")
    def get(self, game_id: str) -> Response:
        """A finished game's analysis

        `status` says where it stands (`queued`, `running` with its `progress`, `done`);
        once done, each seat's accuracy, expected loss and counts of inaccuracies,
        mistakes and blunders, and every decision with the best candidate, the regret and
        the judgement. 404 `analysis_not_requested` until someone asks for it (POST), and
        `unknown_game` for an id no game could have.
        """
        valid_game_id(game_id)
        body = play.analysis_of(stores(), game_id)
        cache = CACHE_DONE if body["status"] == "done" else CACHE_PENDING
        return json_response(body, 200, {"Cache-Control": cache})
