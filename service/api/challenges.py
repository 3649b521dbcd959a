"""``/v1/challenges``: an account invites others to a game (with its key).

What a challenge holds, how it is answered and when it starts is the service layer's
(:mod:`service.play.challenges`); this module parses, authenticates (every route takes
an account key) and renders. Challenges made per account are limited
(``CHALLENGE_LIMIT``, :mod:`.limits`) besides the cap on pending ones.
"""

from __future__ import annotations

from flask import Response
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play
from service.core.rules import preset_rules
from service.storage import Challenge

from .docs import ACCOUNT_KEY, json_body, problems
from .limits import bot_load
from .schemas.challenges import ChallengeListSchema, ChallengeRequestSchema, ChallengeSchema
from .web import config, json_response, load_body, my_account, stores

__all__ = ["blp"]

blp = Blueprint("challenges", __name__, url_prefix="/v1/challenges",
                description="Challenges: invite accounts (or the reference bots) to a game.")

_CHALLENGE = ChallengeRequestSchema()
PRIVATE = {"Cache-Control": "private, no-cache"}
EXAMPLE = {"challenge_id": "q0Zk3v6Xb0mQ1sP2", "status": "pending", "challenger": "ann",
           "to": ["bob"], "accepted": [], "declined_by": None,
           "rules": preset_rules("classic").to_dict(), "players": 2, "turn_seconds": 60, "rated": False,
           "created": "2026-01-01T12:00:00.000Z", "expires": "2026-01-01T13:00:00.000Z",
           "game_id": None}
CHALLENGE_ID = {"in": "path", "name": "challenge_id", "required": True,
                "description": "The challenge's id.",
                "schema": {"type": "string", "minLength": 1, "maxLength": 64}}



def _render(challenge: Challenge, status: int = 200) -> Response:
    headers = dict(PRIVATE)
    if status == 201:
        headers["Location"] = f"/v1/challenges/{challenge.challenge_id}"
    return json_response(play.challenge_json(challenge), status, headers)


@blp.route("")
class Challenges(MethodView):
    @blp.doc(**json_body("ChallengeRequest", "Whom to challenge, to what game.",
                         {"to": ["bob"], "rules": {"preset": "classic"}, "turn_seconds": 60,
                          "rated": False}),
             operationId="createChallenge", security=ACCOUNT_KEY)
    @blp.response(201, ChallengeSchema, example=EXAMPLE, headers={"Location": {
        "description": "The challenge's URL.", "schema": {"type": "string"}}})
    @problems(blp, "invalid_token", "unknown_account", "challenge_refused",
              "invalid_challenge", "invalid_rules", "too_many_challenges", "rated_pair_limited",
              "creation_limited",
              "too_many_bot_games", "body_timeout", "body_too_large", "unsupported_media_type",
              "invalid_json", "invalid_body")
    def post(self) -> Response:
        """Challenge accounts to a game

        With your account's key. Each one challenged hears a `challenge` note on its
        stream and accepts or declines it; the reference bots accept at once, so a
        challenge of bots only answers `accepted` with its `game_id`. The game starts when
        everyone accepted: you are seat 0, then those challenged in the order named.
        """
        mine = my_account()
        body = load_body(_CHALLENGE)
        challenge = play.open_challenge(
            stores(), mine, body["to"], body["rules"], body["turn_seconds"], body["rated"],
            body["expires_in"], load=bot_load(config()))
        return _render(challenge, 201)

    @blp.doc(operationId="listChallenges", security=ACCOUNT_KEY)
    @blp.response(200, ChallengeListSchema)
    @problems(blp, "invalid_token")
    def get(self) -> Response:
        """Your pending challenges

        Those you made and those made to you, soonest to expire first: what a bot reads
        when it starts, beside `GET /v1/me/games`.
        """
        found = play.my_challenges(stores(), my_account())
        return json_response({"challenges": [play.challenge_json(c) for c in found]}, 200,
                             PRIVATE)


@blp.route("/<challenge_id>", parameters=[CHALLENGE_ID])
class OneChallenge(MethodView):
    @blp.doc(operationId="getChallenge", security=ACCOUNT_KEY)
    @blp.response(200, ChallengeSchema, example=EXAMPLE)
    @problems(blp, "invalid_token", "unknown_challenge")
    def get(self, challenge_id: str) -> Response:
        """A challenge you are in

        Its challenger's and those challenged's only (404 `unknown_challenge` for anyone
        else). An answered challenge is kept a week.
        """
        return _render(play.read_challenge(stores(), my_account(), challenge_id))


@blp.route("/<challenge_id>/accept", parameters=[CHALLENGE_ID])
class Accept(MethodView):
    @blp.doc(operationId="acceptChallenge", security=ACCOUNT_KEY)
    @blp.response(200, ChallengeSchema)
    @problems(blp, "invalid_token", "unknown_challenge", "challenge_closed",
              "too_many_bot_games", "creation_limited")
    def post(self, challenge_id: str) -> Response:
        """Accept a challenge made to you

        The last acceptance starts the game (`status: accepted`, `game_id`): it is played
        with your key. Accepting twice is accepting once. 409 `challenge_closed` once it
        is no longer pending.
        """
        return _render(play.accept_challenge(stores(), my_account(), challenge_id,
                                             bot_load(config())))


@blp.route("/<challenge_id>/decline", parameters=[CHALLENGE_ID])
class Decline(MethodView):
    @blp.doc(operationId="declineChallenge", security=ACCOUNT_KEY)
    @blp.response(200, ChallengeSchema)
    @problems(blp, "invalid_token", "unknown_challenge", "challenge_closed")
    def post(self, challenge_id: str) -> Response:
        """Decline a challenge made to you

        It is over for everyone in it: the others hear `challenge_declined`.
        """
        return _render(play.decline_challenge(stores(), my_account(), challenge_id))


@blp.route("/<challenge_id>/cancel", parameters=[CHALLENGE_ID])
class Cancel(MethodView):
    @blp.doc(operationId="cancelChallenge", security=ACCOUNT_KEY)
    @blp.response(200, ChallengeSchema)
    @problems(blp, "invalid_token", "unknown_challenge", "challenge_closed")
    def post(self, challenge_id: str) -> Response:
        """Cancel a challenge you made

        Those challenged hear `challenge_canceled` (`reason: canceled`).
        """
        return _render(play.cancel_challenge(stores(), my_account(), challenge_id))
