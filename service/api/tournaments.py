"""``/v1/tournaments``: Swiss and round-robin tournaments of accounts (docs/tournaments.md).

What a tournament holds and how it advances is the service layer's
(:mod:`service.play.tournaments`: the move workers pair every round, never a request);
this module parses, authenticates and renders. Anyone may read a tournament or the
lists; creating, joining, leaving and starting take an account key. Creating counts
against the creation limits (``CREATION_LIMIT_PER_ADDRESS``, :mod:`.limits`), besides
the cap on an account's open or running tournaments.
"""

from __future__ import annotations

import re

from flask import Response, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play
from service.storage import Tournament

from .docs import ACCOUNT_KEY, NO_BEARER, json_body, problems, query
from .problems import ApiProblem
from .schemas.tournaments import (
    TournamentListSchema,
    TournamentRequestSchema,
    TournamentSchema,
)
from .web import json_response, load_body, my_account, stores

__all__ = ["blp"]

blp = Blueprint("tournaments", __name__, url_prefix="/v1/tournaments",
                description="Tournaments: Swiss or round robin, at tables of 2 to 8.")

_REQUEST = TournamentRequestSchema()
FRESH = {"Cache-Control": "no-cache"}
PAGE = 20
#: A page's cursor: the listing time (Unix seconds) of the last tournament of the page.
CURSOR = re.compile(r"^[0-9]{1,15}(\.[0-9]{1,6})?$")
TOURNAMENT_ID = {"in": "path", "name": "tournament_id", "required": True,
                 "description": "The tournament's id.",
                 "schema": {"type": "string", "minLength": 1, "maxLength": 64}}



def _render(t: Tournament, status: int = 200) -> Response:
    headers = dict(FRESH)
    if status == 201:
        headers["Location"] = f"/v1/tournaments/{t.tournament_id}"
    return json_response(play.tournament_json(t), status, headers)


@blp.route("")
class Tournaments(MethodView):
    @blp.doc(**json_body("TournamentRequest", "The tournament to create.",
                         {"name": "Friday 4s", "system": "swiss", "seats": 4, "rounds": 4,
                          "rules": {"preset": "classic"}, "turn_seconds": 60,
                          "rated": False, "entrants": None, "starts_at": None}),
             operationId="createTournament", security=ACCOUNT_KEY)
    @blp.response(201, TournamentSchema, headers={"Location": {
        "description": "The tournament's URL.", "schema": {"type": "string"}}})
    @problems(blp, "invalid_token", "unknown_account", "challenge_refused",
              "invalid_tournament", "invalid_rules",
              "too_many_tournaments", "creation_limited", "body_timeout", "body_too_large",
              "unsupported_media_type", "invalid_json", "invalid_body")
    def post(self) -> Response:
        """Create a tournament

        With your account's key: the accounts named in `entrants` are invited (each hears
        `tournament_invited` and plays once it accepts with `join`; an account that takes
        no invitations from you is refused, 403 `challenge_refused`), or, with no names,
        it is open to any account that joins; until it starts (at `starts_at`, within a
        year, or when you start it). Its rounds are paired by the service's workers; each
        entrant hears `tournament_started`, `round_started` and `tournament_finished` on
        its stream.
        """
        mine = my_account()
        body = load_body(_REQUEST)
        if body["system"] == "swiss" and body["rounds"] is None:
            raise ApiProblem(422, "invalid_tournament", "a Swiss tournament says its rounds")
        return _render(play.create_tournament(stores(), mine, body), 201)

    @blp.doc(operationId="listTournaments", security=NO_BEARER, parameters=[
        query("status", "Which: `open` (default), `running` or `finished`.",
              {"type": "string", "enum": ["open", "running", "finished"]}),
        query("cursor", "The `next_cursor` of the previous page.",
              {"type": "string", "maxLength": 24, "pattern": CURSOR.pattern})])
    @blp.response(200, TournamentListSchema)
    @problems(blp, "invalid_query")
    def get(self) -> Response:
        """Tournaments by status

        Newest first, a page at a time (`next_cursor`).
        """
        status = request.args.get("status", "open")
        if status not in ("open", "running", "finished"):
            raise ApiProblem(422, "invalid_query", "status is open, running or finished")
        cursor = request.args.get("cursor")
        if cursor is not None and not (len(cursor) <= 24 and CURSOR.fullmatch(cursor)):
            raise ApiProblem(422, "invalid_query", "a cursor is a next_cursor")
        before = None if cursor is None else float(cursor)
        found, after = play.tournaments_page(stores(), status, before, PAGE)
        return json_response({"tournaments": found,
                              "next_cursor": None if after is None else f"{after:.3f}"},
                             200, FRESH)


@blp.route("/<tournament_id>", parameters=[TOURNAMENT_ID])
class OneTournament(MethodView):
    @blp.doc(operationId="getTournament", security=NO_BEARER)
    @blp.response(200, TournamentSchema)
    @problems(blp, "unknown_tournament")
    def get(self, tournament_id: str) -> Response:
        """A tournament

        Its entrants, its rounds with their games (each a link to watch), and the
        standings as they are now: rebuilt from its finished games' records.
        """
        return _render(play.read_tournament(stores(), tournament_id))


VERB_PROBLEMS = ("invalid_token", "unknown_tournament", "tournament_closed",
                 "invalid_tournament")


@blp.route("/<tournament_id>/join", parameters=[TOURNAMENT_ID])
class Join(MethodView):
    @blp.doc(operationId="joinTournament", security=ACCOUNT_KEY)
    @blp.response(200, TournamentSchema)
    @problems(blp, *VERB_PROBLEMS)
    def post(self, tournament_id: str) -> Response:
        """Join an open tournament, or accept an invitation, before it starts"""
        return _render(play.join_tournament(stores(), my_account(), tournament_id))


@blp.route("/<tournament_id>/leave", parameters=[TOURNAMENT_ID])
class Leave(MethodView):
    @blp.doc(operationId="leaveTournament", security=ACCOUNT_KEY)
    @blp.response(200, TournamentSchema)
    @problems(blp, *VERB_PROBLEMS)
    def post(self, tournament_id: str) -> Response:
        """Leave a tournament, or decline an invitation, before it starts"""
        return _render(play.leave_tournament(stores(), my_account(), tournament_id))


@blp.route("/<tournament_id>/start", parameters=[TOURNAMENT_ID])
class Start(MethodView):
    @blp.doc(operationId="startTournament", security=ACCOUNT_KEY)
    @blp.response(200, TournamentSchema)
    @problems(blp, *VERB_PROBLEMS)
    def post(self, tournament_id: str) -> Response:
        """Start your tournament now

        Its first round is paired by the service's workers, at once.
        """
        return _render(play.start_tournament(stores(), my_account(), tournament_id))
