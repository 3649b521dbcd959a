"""``/v1/accounts/{handle}/ratings/{preset}`` (a rating and its history) and
``/v1/leaderboards/{preset}``: reads of what the rating workers wrote (docs/ratings.md)."""

from __future__ import annotations

import time

from flask import Response, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play
from service.core.rules import PRESETS

from .docs import NO_BEARER, problems, query
from .problems import ApiProblem
from .schemas.ratings import LeaderboardSchema, RatingHistorySchema
from .web import json_response, query_int, stores

__all__ = ["ratings_blp"]

ratings_blp = Blueprint("ratings", __name__, url_prefix="/v1",
                        description="Ratings, their history and the leaderboards.")

#: The most history points or leaderboard entries a page holds, and the deepest start.
MAX_POINTS, MAX_ENTRIES, MAX_START = 500, 100, 10_000

PRESET = {"in": "path", "name": "preset", "required": True, "description": "The preset.",
          "schema": {"type": "string", "enum": list(PRESETS)}}
HANDLE = {"in": "path", "name": "handle", "required": True, "description": "The handle.",
          "schema": {"type": "string", "minLength": 1, "maxLength": 64}}


def _bot_query() -> bool:
    raw = request.args.get("bot", "false")
    if raw not in ("true", "false"):
        raise ApiProblem(422, "invalid_query", "query parameter 'bot' must be true or false",
                         errors={"query": {"bot": ["true or false"]}})
    return raw == "true"


@ratings_blp.route("/accounts/<handle>/ratings/<preset>", parameters=[HANDLE, PRESET])
class RatingHistory(MethodView):
    @ratings_blp.doc(operationId="getRatingHistory", security=NO_BEARER, parameters=[
        query("start", "The first point (from 0, oldest first; default 0).",
              {"type": "integer", "minimum": 0, "maximum": MAX_START}),
        query("limit", f"At most this many points (1-{MAX_POINTS}, default 100).",
              {"type": "integer", "minimum": 1, "maximum": MAX_POINTS})])
    @ratings_blp.response(200, RatingHistorySchema)
    @problems(ratings_blp, "unknown_account", "unknown_preset", "invalid_query")
    def get(self, handle: str, preset: str) -> Response:
        """An account's rating in a preset, and its history

        One point per rated game, oldest first: the rating and deviation after it, the
        place and the number of players. Anyone may read it.
        """
        start = query_int("start", 0, 0, MAX_START)
        limit = query_int("limit", 100, 1, MAX_POINTS)
        points = play.history(stores(), handle, preset, start, limit + 1)
        profile = play.profile(stores(), handle)
        return json_response({
            "handle": profile.handle, "preset": preset,
            "rating": profile.ratings[preset].to_json(),
            "history": [p.to_json() for p in points[:limit]],
            "next_start": start + limit if len(points) > limit else None})


@ratings_blp.route("/leaderboards/<preset>", parameters=[PRESET])
class Leaderboard(MethodView):
    @ratings_blp.doc(operationId="getLeaderboard", security=NO_BEARER, parameters=[
        query("bot", "`true`: the bots' board (the reference bots, the anchors, on it); "
              "`false`: the humans' (default).", {"type": "string", "enum": ["true", "false"]}),
        query("start", "The first entry (from 0; default 0).",
              {"type": "integer", "minimum": 0, "maximum": MAX_START}),
        query("limit", f"At most this many entries (1-{MAX_ENTRIES}, default 50).",
              {"type": "integer", "minimum": 1, "maximum": MAX_ENTRIES})])
    @ratings_blp.response(200, LeaderboardSchema)
    @problems(ratings_blp, "unknown_preset", "invalid_query")
    def get(self, preset: str) -> Response:
        """A preset's leaderboard

        Established ratings only: a deviation of 75 or less and a rated game in the last
        30 days, highest rating first. Humans and bots are on separate boards
        (`bot=true`).
        """
        bot = _bot_query()
        start = query_int("start", 0, 0, MAX_START)
        limit = query_int("limit", 50, 1, MAX_ENTRIES)
        entries = play.board(stores(), preset, bot, start, limit + 1, time.time())
        return json_response({"preset": preset, "bot": bot,
                              "entries": [e.to_json() for e in entries[:limit]],
                              "next_start": start + limit if len(entries) > limit else None})
