"""``/v1/bots``: the reference bots a seat may be given (``{"bot": name}`` at creation)."""

from __future__ import annotations

import orjson
from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint
from marshmallow import Schema, fields

from service.bots import BOTS

from .docs import NO_BEARER
from .web import json_response

blp = Blueprint("bots", __name__, url_prefix="/v1/bots",
                description="Server-side bots for seats.")

#: One line on each reference bot (docs/bots.md has the figures).
ABOUT = {
    "random": "Uniform over the legal actions: the floor any bot must beat.",
    "simple": "Neller's SimpleGinRummyPlayer ported, the baseline of the EAAI-2021 gin rummy "
              "challenge: takes the discard only when it joins a meld, discards its highest "
              "deadwood card, goes out at once.",
    "greedy": "The exact solver one decision at a time: draws the discard when it lowers its "
              "penalty, discards to minimise it, goes out whenever it can. Also the stand-in "
              "for away, resigned and timed-out seats.",
    "strong": "Greedy plus card counting and a one-draw look-ahead; beats greedy. Within "
              "16,000 solver work units per decision (16 ms of CPU median, 45 ms at worst "
              "measured).",
    "expert": "Strong's one-draw look-ahead over every unseen card, not a sample; beats "
              "strong by a small margin. Within 150,000 solver work units per decision "
              "(20 ms of CPU median on classic, 0.3 s at worst measured).",
}
assert set(ABOUT) == set(BOTS), "every reference bot has its line"


class BotSchema(Schema):
    name = fields.String(required=True, metadata={"description": 'Use as `{"bot": name}`.'})
    description = fields.String(required=True)


class BotsSchema(Schema):
    bots = fields.List(fields.Nested(BotSchema), required=True)


_BOTS = orjson.dumps({"bots": [{"name": n, "description": ABOUT[n]} for n in BOTS]})


@blp.route("")
class Bots(MethodView):
    @blp.doc(operationId="listBots", security=NO_BEARER)
    @blp.response(200, BotsSchema, example={"bots": [
        {"name": "greedy", "description": ABOUT["greedy"]}]})
    def get(self) -> Response:
        """The reference bots a seat may be

        Create a game with `{"players": [{"name": "ann"}, {"bot": "strong"}]}`: a bot
        seat needs no token and plays as soon as it is on turn, seeing only its own seat.
        """
        return json_response(_BOTS)
