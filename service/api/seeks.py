"""``/v1/seeks``: matchmaking. Seekers of the same rules and player count meet in a game.

``POST /v1/seeks?timeout=S`` adds a seeker and answers with the seek's id and its seat
token (shown only there, stored only as its hash) and, with ``timeout``, waits (parked
on the worker's hub, as a long-poll) until enough seekers of the same table have
arrived; ``GET /v1/seeks/{id}?timeout=S`` (with the token) waits the same way later;
``DELETE`` (with the token) takes a waiting seeker off. A matched seek carries its game
id and seat; the token plays that seat.
"""

from __future__ import annotations

from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play

from .docs import json_body, problems, query
from .schemas.lobby import SeekRequestSchema
from .web import account, bearer_token, json_response, load_body, parked, query_seconds, stores

blp = Blueprint("seeks", __name__, url_prefix="/v1/seeks",
                description="Matchmaking: wait for players with the same rules, get a seat.")

_SEEK = SeekRequestSchema()
SEEK_TOKEN: list[dict[str, list[str]]] = [{"seatToken": []}]
TIMEOUT = query("timeout", "Wait up to this many seconds for the match (capped by the "
                "server, 30 by default; 0: answer at once).", {"type": "number", "minimum": 0})
#: Where the 201 points: the seek itself, not its game (which may not exist yet).
SEEK_LOCATION = {"Location": {
    "description": "This seek's URL, `/v1/seeks/{seek_id}`: read it (and wait on it) with "
                   "`GET` and the seek's `token` as `Authorization: Bearer`, or cancel it "
                   "with `DELETE`. Not the game's: a matched seek's game is "
                   "`/v1/games/{game_id}` of the body.",
    "schema": {"type": "string", "format": "uri-reference"}}}
MATCHED_EXAMPLE = {"seek_id": "0f3a9c2b7d1e4a65.4.q0Zk3v6Xb0mQ1sP2aRt5uW8yB9cD1eF4",
                   "status": "matched", "name": "ann", "players": 4, "expires": None,
                   "game_id": "Zk3v6Xb0mQ1sP2aR", "seat": 2,
                   "token": "p3PEr9Q2rX0tqkNw0yJ2bH7fA4sM8cV1zL6uD5gK3eT"}


def _answer(seek: play.Seek, status: int = 200) -> Response:
    headers = {"Cache-Control": "no-store"}  # a seat token may be in it
    if status == 201:
        headers["Location"] = f"/v1/seeks/{seek.seek_id}"
    return json_response(seek.to_json(), status, headers)


def _waited(seek_id: str, who: str | None, token: str | None,
            seek: play.Seek | None = None) -> play.Seek:
    """``seek`` (read now when ``None``), or with ``timeout`` the seek once matched:
    the wait reads the seek itself, after subscribing, so it is not read before. ``who``
    is the seeker's credential, ``token`` its seat token (repeated in the answer; none
    for an account's seek)."""
    timeout = query_seconds("timeout") if "timeout" in request.args else 0.0
    if timeout > 0 and (seek is None or seek.status == "waiting"):
        with parked():
            return play.wait_for_match(stores(), seek_id, who, timeout, token)
    return seek if seek is not None else play.seek_status(stores(), seek_id, who, token)


def _bearer() -> tuple[str | None, str | None]:
    """The seeker's credential and its seat token (``None`` for an account key)."""
    token = bearer_token(required=True)
    return play.identify(stores(), token), None if token is None or "." in token else token


@blp.route("")
class Seeks(MethodView):
    @blp.doc(**json_body("SeekRequest", "The rules, the player count and your name.",
                         {"rules": {"preset": "classic"}, "players": 4, "name": "ann"}),
             operationId="createSeek", parameters=[TIMEOUT])
    @blp.response(201, "Seek", headers=SEEK_LOCATION, example=MATCHED_EXAMPLE)
    @problems(blp, "body_timeout", "body_too_large", "unsupported_media_type", "invalid_json", "invalid_body",
              "invalid_rules", "invalid_query", "too_many_waits", "creation_limited",
              "unknown_seek", "invalid_token")
    def post(self) -> Response:
        """Seek a game

        Adds you to the seekers of these rules (a rules spec, or a preset name) and
        player count. The answer carries your seat's `token`, shown only here: keep it,
        it reads and cancels this seek (`Authorization: Bearer`) and plays your seat.
        When enough have arrived, one atomic step gives each a seat of a new game:
        `status: matched` with `game_id` and `seat`. Until then `status: waiting`;
        with `timeout` this request waits for the match. A seek expires unmatched
        after a few minutes (`SEEK_TTL_SECONDS`). Games from matchmaking are never
        seeded by anyone.
        """
        body = load_body(_SEEK)
        config = current_app.extensions["three_thirteen"].config
        mine = account()
        if mine is None and body.get("name") is None:
            raise play.AuthError("a seek without a name is an account's: send its key as "
                                 "Authorization: Bearer <key> (or name your player)")
        seek = play.open_seek(stores(), body["rules"], body["players"], body.get("name", ""),
                              config.seek_ttl_seconds, mine)
        who = (play.account_credential(mine.handle) if mine is not None
               else play.hash_token(seek.token or ""))
        return _answer(_waited(seek.seek_id, who, seek.token, seek), 201)


SEEK_ID = {"in": "path", "name": "seek_id", "description": "The seek's id.",
           "schema": {"type": "string", "minLength": 1, "maxLength": 200}}


@blp.route("/<seek_id>", parameters=[SEEK_ID])
class OneSeek(MethodView):
    @blp.doc(operationId="getSeek", parameters=[TIMEOUT], security=SEEK_TOKEN)
    @blp.response(200, "Seek", example=MATCHED_EXAMPLE)
    @problems(blp, "invalid_token", "unknown_seek", "invalid_query", "too_many_waits")
    def get(self, seek_id: str) -> Response:
        """Your seek: still waiting, or matched (with your seat)

        With the token the seek was opened with. With `timeout`, waits for the match.
        404 `unknown_seek` once it expired unmatched or was removed.
        """
        return _answer(_waited(seek_id, *_bearer()))

    @blp.doc(operationId="deleteSeek", security=SEEK_TOKEN)
    @blp.response(204)
    @problems(blp, "invalid_token", "unknown_seek", "seek_matched")
    def delete(self, seek_id: str) -> Response:
        """Stop seeking

        With the token the seek was opened with. A waiting seek is removed (nobody will
        be matched with it). A seek already matched cannot be: 409 `seek_matched` (its
        seat waits in its game).
        """
        play.cancel_seek(stores().seeks, seek_id, _bearer()[0])
        return Response(status=204)
