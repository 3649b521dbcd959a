"""``/v1/seeks``: matchmaking. Seekers of the same rules, player count and ``rated``, with
agreeing turn clocks, meet in a game.

``POST /v1/seeks?timeout=S`` adds a seeker and answers with the seek's id and its seat
token (shown only there, stored only as its hash) and, with ``timeout``, waits (parked
on the worker's hub, as a long-poll) until enough seekers of the same table have
arrived; ``GET /v1/seeks/{id}?timeout=S`` (with the token) waits the same way later,
reading only; ``DELETE`` (with the token) takes a waiting seeker off. A matched seek
carries its game id and seat; the token plays that seat. The opening request's wait
holds its seek, and so does an open account stream hold its account's: the seek ends
when that connection closes (``service/play/seek_holds.py``, the socket looked at by
:mod:`.connections`).
"""

from __future__ import annotations

from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play
from service.wire.queries import optional_wait

from .connections import client_connection
from .docs import ACCOUNT_KEY_OPTIONAL, SEAT_BEARER, json_body, problems, query
from .schemas.lobby import SeekRequestSchema
from .web import (
    account,
    bearer_token,
    json_response,
    load_body,
    long_poll_max,
    parked,
    stores,
)

blp = Blueprint("seeks", __name__, url_prefix="/v1/seeks",
                description="Matchmaking: wait for players with the same rules, get a seat.")

_SEEK = SeekRequestSchema()
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
                   "status": "matched", "name": "ann", "players": 4, "turn_seconds": 60,
                   "rated": False, "expires": None,
                   "game_id": "Zk3v6Xb0mQ1sP2aR", "seat": 2,
                   "token": "p3PEr9Q2rX0tqkNw0yJ2bH7fA4sM8cV1zL6uD5gK3eT"}


def _answer(seek: play.Seek, status: int = 200) -> Response:
    headers = {"Cache-Control": "no-store"}  # a seat token may be in it
    if status == 201:
        headers["Location"] = f"/v1/seeks/{seek.seek_id}"
    return json_response(seek.to_json(), status, headers)


def _timeout() -> float:
    return optional_wait(request.args.get("timeout"), long_poll_max())


def _waited(seek_id: str, who: str | None, token: str | None,
            seek: play.Seek | None = None, holder: str | None = None) -> play.Seek:
    """``seek`` (read now when ``None``), or with ``timeout`` the seek once matched:
    the wait reads the seek itself, after subscribing, so it is not read before, and
    with ``holder`` (the hold of the request that opened it) holds it meanwhile.
    ``who`` is the seeker's credential, ``token`` its seat token (repeated in the
    answer; none for an account's seek)."""
    timeout = _timeout()
    if timeout > 0 and (seek is None or seek.status == "waiting"):
        with parked():
            return play.wait_for_match(stores(), seek_id, who, timeout, token,
                                       client_connection(), holder)
    return seek if seek is not None else play.seek_status(stores(), seek_id, who, token)


def _bearer() -> tuple[str | None, str | None]:
    """The seeker's credential and its seat token (``None`` for an account key)."""
    token = bearer_token(required=True)
    seat_token = None if token is None or play.is_account_key(token) else token
    return play.identify(stores(), token), seat_token


@blp.route("")
class Seeks(MethodView):
    @blp.doc(**json_body("SeekRequest", "The rules, the player count, your name, and the "
                         "turn clock you ask for.",
                         {"rules": {"preset": "classic"}, "players": 4, "name": "ann",
                          "turn_seconds": 60}),
             operationId="createSeek", parameters=[TIMEOUT], security=ACCOUNT_KEY_OPTIONAL)
    @blp.response(201, "Seek", headers=SEEK_LOCATION, example=MATCHED_EXAMPLE)
    @problems(blp, "body_timeout", "body_too_large", "unsupported_media_type", "invalid_json", "invalid_body",
              "invalid_rules", "invalid_seek", "invalid_query", "too_many_waits",
              "creation_limited", "unknown_seek", "invalid_token")
    def post(self) -> Response:
        """Seek a game

        Adds you to the seekers of these rules (a rules spec, or a preset name) and
        player count. The answer carries your seat's `token`, shown only here: keep it,
        it reads and cancels this seek (`Authorization: Bearer`) and plays your seat.
        Seekers meet when their rules, player count and `rated` are the same and their
        clocks agree (the same `turn_seconds`, or none asked): one atomic step gives each
        a seat of a new game, `status: matched` with `game_id` and `seat`. Until then
        `status: waiting`; with `timeout` this request waits for the match and holds the
        seek meanwhile: if you close the connection the seek ends at once, and it is
        never matched with a seeker that came after (no game with a player who left).
        An account's open stream (`GET /v1/me/stream`) holds its seeks the same way. A
        seek expires unmatched after a few minutes (`SEEK_TTL_SECONDS`). Games from
        matchmaking are never seeded by anyone.
        """
        body = load_body(_SEEK)
        config = current_app.extensions["three_thirteen"].config
        mine = account()
        if mine is None and body.get("name") is None:
            raise play.AuthError("a seek without a name is an account's: send its key as "
                                 "Authorization: Bearer <key> (or name your player)")
        holder = play.new_holder() if _timeout() > 0 else None
        seek = play.open_seek(stores(), body["rules"], body["players"], body.get("name", ""),
                              config.seek_ttl_seconds, mine, turn_seconds=body["turn_seconds"],
                              rated=body["rated"], holder=holder)
        who = (play.account_credential(mine.handle) if mine is not None
               else play.hash_token(seek.token or ""))
        return _answer(_waited(seek.seek_id, who, seek.token, seek, holder), 201)


SEEK_ID = {"in": "path", "name": "seek_id", "description": "The seek's id.",
           "schema": {"type": "string", "minLength": 1, "maxLength": 200}}


@blp.route("/<seek_id>", parameters=[SEEK_ID])
class OneSeek(MethodView):
    @blp.doc(operationId="getSeek", parameters=[TIMEOUT], security=SEAT_BEARER)
    @blp.response(200, "Seek", example=MATCHED_EXAMPLE)
    @problems(blp, "invalid_token", "unknown_seek", "invalid_query", "too_many_waits")
    def get(self, seek_id: str) -> Response:
        """Your seek: still waiting, or matched (with your seat)

        With the token the seek was opened with. With `timeout`, waits for the match. A
        read only reads: it does not hold the seek (the request that opened it with
        `timeout`, or the account's stream, does: closing *that* connection ends it).
        `matched` once the game exists. 404 `unknown_seek` once it expired unmatched,
        was removed, or its holding connection closed.
        """
        return _answer(_waited(seek_id, *_bearer()))

    @blp.doc(operationId="deleteSeek", security=SEAT_BEARER)
    @blp.response(204)
    @problems(blp, "invalid_token", "unknown_seek", "seek_matched")
    def delete(self, seek_id: str) -> Response:
        """Stop seeking

        With the token the seek was opened with. A waiting seek is removed (nobody will
        be matched with it). A seek already matched cannot be: 409 `seek_matched` (its
        seat waits in its game).
        """
        play.cancel_seek(stores(), seek_id, _bearer()[0])
        return Response(status=204)
