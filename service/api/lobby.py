"""``GET /v1/games``: the lobby's query, its documentation and its answer (the route itself
is the games blueprint's, beside creation)."""

from __future__ import annotations

from flask import Response, request

from service import play
from service.core.rules import PRESETS, preset_rules
from service.storage import LISTINGS

from .docs import query
from .problems import ApiProblem
from .web import json_response, query_int, stores

__all__ = ["LOBBY_EXAMPLE", "LOBBY_PARAMETERS", "lobby_response"]

LOBBY_PARAMETERS = [
    query("status", "`open`: games with open seats to claim (default); `in_progress`: "
          "games being played, to watch.", {"type": "string", "enum": ["open", "in_progress"]}),
    query("preset", "Only games of this preset.", {"type": "string", "enum": list(PRESETS)}),
    query("players", "Only games of this many players.",
          {"type": "integer", "minimum": 2, "maximum": 8}),
    query("cursor", "The `next_cursor` of the previous page.",
          {"type": "string", "minLength": 1, "maxLength": 200}),
    query("limit", "At most this many games (1-100, default 20).",
          {"type": "integer", "minimum": 1, "maximum": 100}),
]

LOBBY_EXAMPLE = {"games": [{
    "game_id": "Zk3v6Xb0mQ1sP2aR", "status": "open", "preset": "classic",
    "rules": preset_rules("classic").to_dict(), "players": 2,
    "seats": [{"seat": 0, "name": "ann", "open": False, "kind": "human", "bot": None},
              {"seat": 1, "name": None, "open": True, "kind": "human", "bot": None}],
    "seats_taken": 1, "seats_open": 1, "round": 1, "seeded_by_creator": False,
    "created": "2026-01-01T12:00:00.000Z"}], "next_cursor": None}


def lobby_response() -> Response:
    """``GET /v1/games``: a page of the lobby (the query checked here, 422 otherwise)."""
    status = request.args.get("status", "open")
    if status not in LISTINGS:
        raise ApiProblem(422, "invalid_query", "query parameter 'status' must be 'open' or "
                         "'in_progress'", errors={"query": {"status": ["one of: open, "
                                                                       "in_progress"]}})
    preset = request.args.get("preset")
    if preset is not None and preset not in PRESETS:
        raise ApiProblem(422, "invalid_query", f"query parameter 'preset' must be one of "
                         f"{', '.join(PRESETS)}",
                         errors={"query": {"preset": [f"one of: {', '.join(PRESETS)}"]}})
    page = play.lobby_page(stores(), status, preset=preset,
                           players=query_int("players", None, 2, 8),
                           cursor=request.args.get("cursor"),
                           limit=query_int("limit", 20, 1, play.MAX_PAGE))
    return json_response({"games": page.games, "next_cursor": page.next_cursor})
