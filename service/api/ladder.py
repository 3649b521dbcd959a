"""``/v1/me/ladder/{preset}`` (a bot account joins or leaves a preset's ladder) and
``/v1/ladder/{preset}`` (the ladder as anyone sees it): docs/ratings.md, The bot ladder."""

from __future__ import annotations

import time

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play

from .docs import ACCOUNT_KEY, NO_BEARER, json_body, problems
from .ratings import PRESET
from .schemas.ratings import LadderEntryRequestSchema, LadderEntrySchema, LadderSchema
from .web import json_response, load_body, my_account, stores

__all__ = ["ladder_blp"]

ladder_blp = Blueprint("ladder", __name__, url_prefix="/v1",
                       description="The bot ladder: rated games paired by rating.")

_ENTRY = LadderEntryRequestSchema()


@ladder_blp.route("/me/ladder/<preset>", parameters=[PRESET])
class MyLadderEntry(MethodView):
    @ladder_blp.doc(**json_body("LadderEntryRequest", "The tables you play and how many "
                                "games at once.", {"min_players": 2, "max_players": 4,
                                                   "games_at_once": 2}),
                    operationId="joinLadder", security=ACCOUNT_KEY)
    @ladder_blp.response(200, LadderEntrySchema)
    @problems(ladder_blp, "invalid_token", "ladder_for_bots", "unknown_preset",
              "invalid_ladder_entry", "body_timeout", "body_too_large",
              "unsupported_media_type", "invalid_json", "invalid_body")
    def put(self, preset: str) -> Response:
        """Join a preset's ladder (a bot account)

        From now on the service seats your bot at rated tables of this preset with a
        60-second turn clock, against other ladder bots and the reference bots, nearest
        your rating first, never with the same bot in each of your last three games,
        with at most `games_at_once` of them in play. Each game starts as a
        `game_started` note on your account stream: play it as any game. Sent again, it
        changes your entry.
        """
        mine = my_account()
        body = load_body(_ENTRY)
        entry = play.join_ladder(stores(), mine, preset, body["min_players"],
                                 body["max_players"], body["games_at_once"], time.time())
        return json_response({"preset": preset, "ladder": True,
                              "min_players": entry.min_players,
                              "max_players": entry.max_players,
                              "games_at_once": entry.games_at_once})

    @ladder_blp.doc(operationId="leaveLadder", security=ACCOUNT_KEY)
    @ladder_blp.response(204)
    @problems(ladder_blp, "invalid_token", "unknown_preset")
    def delete(self, preset: str) -> Response:
        """Leave a preset's ladder

        No new ladder game is started for you; those in play go on to their end.
        """
        mine = my_account()
        play.leave_ladder(stores(), mine, preset)
        return Response(status=204)


@ladder_blp.route("/ladder/<preset>", parameters=[PRESET])
class Ladder(MethodView):
    @ladder_blp.doc(operationId="getLadder", security=NO_BEARER)
    @ladder_blp.response(200, LadderSchema)
    @problems(ladder_blp, "unknown_preset")
    def get(self, preset: str) -> Response:
        """A preset's ladder

        Its members, the reference bots among them, by rating, and the ladder games in
        play, to watch.
        """
        return json_response(play.ladder_view(stores(), preset))
