"""``/v1/evaluations``: a bot account's bot measured against reference bots by duplicate
deals, on demand (docs/evaluations.md).

How an evaluation advances is the service layer's (:mod:`service.play.evaluations`: the
move workers deal and keep the results, never a request); this module parses,
authenticates and renders. Both routes take the account's key, and an account reads only
its own evaluations. Starting one counts against the creation limits
(``CREATION_LIMIT_PER_ADDRESS``, :mod:`.limits`), besides the one evaluation at a time an
account may have.
"""

from __future__ import annotations

import time

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play
from service.storage import Evaluation

from .docs import ACCOUNT_KEY, json_body, problems
from .schemas.evaluations import EvaluationRequestSchema, EvaluationSchema
from .web import json_response, load_body, my_account, stores

__all__ = ["blp"]

blp = Blueprint("evaluations", __name__, url_prefix="/v1/evaluations",
                description="Evaluations: your bot against reference bots, by duplicate "
                            "deals.")

_REQUEST = EvaluationRequestSchema()
FRESH = {"Cache-Control": "private, no-cache"}
EVALUATION_ID = {"in": "path", "name": "evaluation_id", "required": True,
                 "description": "The evaluation's id.",
                 "schema": {"type": "string", "minLength": 1, "maxLength": 64}}


def _render(evaluation: Evaluation, status: int = 200) -> Response:
    headers = dict(FRESH)
    if status == 202:
        headers["Location"] = f"/v1/evaluations/{evaluation.evaluation_id}"
    return json_response(play.evaluation_json(evaluation), status, headers)


@blp.route("")
class Evaluations(MethodView):
    @blp.doc(**json_body("EvaluationRequest", "What to measure your bot against.",
                         {"preset": "classic", "anchors": ["greedy", "strong"]}),
             operationId="startEvaluation", security=ACCOUNT_KEY)
    @blp.response(202, EvaluationSchema, headers={"Location": {
        "description": "The evaluation's URL, to follow it.", "schema": {"type": "string"}}})
    @problems(blp, "invalid_token", "evaluation_for_bots", "invalid_evaluation",
              "too_many_evaluations", "creation_limited", "body_timeout", "body_too_large",
              "unsupported_media_type", "invalid_json", "invalid_body")
    def post(self) -> Response:
        """Evaluate your bot (a bot account)

        The service deals the same deals to your bot and to each anchor, every deal
        twice (your bot in the first seat, then the anchor), as unrated games with a
        60-second turn clock that your bot plays with its key, as on the ladder: each
        starts as a `game_started` note on your account stream, and each turn is a
        `your_turn` note. Against each anchor it stops when a sequential test tells
        your bot 50 points weaker from 50 points stronger (`sprt`), or at `max_deals`
        deals; `evaluation_progress` notes bring the results as deals finish. One
        evaluation at a time: the next is refused until the last is `done`.
        """
        mine = my_account()
        body = load_body(_REQUEST)
        evaluation = play.start_evaluation(stores(), mine, body["preset"], body["anchors"],
                                           time.time(), max_deals=body["max_deals"],
                                           seed=body["seed"])
        return _render(evaluation, 202)


@blp.route("/<evaluation_id>", parameters=[EVALUATION_ID])
class OneEvaluation(MethodView):
    @blp.doc(operationId="getEvaluation", security=ACCOUNT_KEY)
    @blp.response(200, EvaluationSchema)
    @problems(blp, "invalid_token", "unknown_evaluation")
    def get(self, evaluation_id: str) -> Response:
        """One of your evaluations

        Its status (`queued`, `running`, `done`) and, per anchor, the deals finished and
        your bot's Elo difference from the anchor with its 95% interval, clustered by
        deal, and the games played.
        """
        return _render(play.read_evaluation(stores(), my_account(), evaluation_id))
