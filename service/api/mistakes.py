"""``/v1/me/mistakes``: an account's own analysed decisions that cost points, as puzzles,
and the answer to one (docs/analysis.md#your-mistakes; the service layer:
:mod:`service.play.mistakes`). Routes of the ``/v1/me`` blueprint, so on its rate limits
(per key, per client address) like every account route."""

from __future__ import annotations

import re

from flask import Response, request
from flask.views import MethodView

from service import play

from .accounts import me_blp
from .docs import ACCOUNT_KEY, json_body, problems, query
from .instants import INSTANT, instant_ms
from .problems import ApiProblem
from .schemas.actions import ActionSchemas
from .schemas.mistakes import ANSWER_KINDS, MistakeAnswerResultSchema, MistakesSchema
from .web import URL_SAFE_ID, json_response, load_body, my_account, query_int, read_json, stores

__all__ = ["MAX_REGRET", "me_blp"]

#: The largest ``min_regret`` taken (points: far past any round's penalty).
MAX_REGRET = 1000
_DECIMAL = re.compile(r"\d{1,4}(?:\.\d{1,3})?")
#: The answers a puzzle takes (those the document gives), each loaded (strictly) by its
#: action's schema.
_ANSWERS = {kind: ActionSchemas[name]() for kind, name in ANSWER_KINDS.items()}


def _min_regret() -> float:
    raw = request.args.get("min_regret")
    if raw is None:
        return play.MISTAKE_FLOOR
    if not _DECIMAL.fullmatch(raw) or float(raw) > MAX_REGRET:
        raise ApiProblem(422, "invalid_query", "query parameter 'min_regret' must be a "
                         f"number of points from 0 to {MAX_REGRET}",
                         errors={"query": {"min_regret": [f"a decimal from 0 to {MAX_REGRET}"]}})
    return float(raw)


def _puzzle_answer() -> dict[str, object]:
    body = read_json()
    kind = body.get("type") if isinstance(body, dict) else None
    schema = _ANSWERS.get(kind) if isinstance(kind, str) else None
    if schema is None:
        raise ApiProblem(422, "invalid_body", "the body does not match the schema",
                         errors={"type": ["one of: draw, discard, go_out"]})
    return load_body(schema)


@me_blp.route("/mistakes")
class MyMistakes(MethodView):
    @me_blp.doc(operationId="listMyMistakes", security=ACCOUNT_KEY, parameters=[
        query("since", "Only games that ended at or after this instant (RFC 3339).", INSTANT),
        query("min_regret", f"Only decisions that cost at least this many points (default "
              f"{play.MISTAKE_FLOOR:g}; none below {play.MISTAKE_FLOOR:g} is kept).",
              {"type": "number", "minimum": 0, "maximum": MAX_REGRET}),
        query("cursor", "The `next_cursor` of the previous page.",
              {"type": "string", "minLength": 1, "maxLength": 200}),
        query("limit", "At most this many (1-100, default 20).",
              {"type": "integer", "minimum": 1, "maximum": 100}),
    ])
    @me_blp.response(200, MistakesSchema)
    @problems(me_blp, "invalid_token", "invalid_query", "invalid_cursor")
    def get(self) -> Response:
        """Your mistakes, as puzzles

        Your own decisions in your analysed games that cost at least `min_regret` points
        (regret, in expected round penalty), newest game first, a page at a time. Each
        comes with the position as your seat saw it (round, wild rank, your hand, the
        discard pile's top), the move you made, the best one and the points it saves: show
        the position, let the player find the move, and check it with `POST` on
        `/v1/me/mistakes/{game_id}/{version}`. Only games you played, only your own moves
        (not those the service made for your seat), only analysed games (`POST
        /v1/games/{id}/analysis`); your newest 500 are kept.
        """
        mine = my_account()
        limit = query_int("limit", 20, 1, 100)
        mistakes, cursor = play.my_mistakes(stores(), mine, instant_ms("since"),
                                            _min_regret(), request.args.get("cursor"), limit)
        return json_response({"mistakes": mistakes, "next_cursor": cursor}, 200,
                             {"Cache-Control": "private, no-cache"})


_VERSION = re.compile(r"[0-9]{1,9}")
MISTAKE_PARAMETERS = [
    {"in": "path", "name": "game_id", "required": True, "description": "The game's id.",
     "schema": {"type": "string", "minLength": 1, "maxLength": 64}},
    {"in": "path", "name": "version", "required": True,
     "description": "The game's version before the decision (the mistake's `version`).",
     "schema": {"type": "integer", "minimum": 0, "maximum": 999_999_999}},
]


# Both are matched as any path segment (no int converter), so that a decision no list
# could have answers 404 unknown_mistake as problem+json, not the router's plain 404.
@me_blp.route("/mistakes/<game_id>/<version>", parameters=MISTAKE_PARAMETERS)
class MyMistake(MethodView):
    @me_blp.doc(**json_body("MistakeAnswer", "Your answer: the move you would make "
                            "in the position.", {"type": "discard", "card": "7H"}),
                operationId="answerMyMistake", security=ACCOUNT_KEY)
    @me_blp.response(200, MistakeAnswerResultSchema)
    @problems(me_blp, "invalid_token", "unknown_mistake", "illegal_action",
              "body_timeout", "body_too_large", "unsupported_media_type", "invalid_json",
              "invalid_body")
    def post(self, game_id: str, version: str) -> Response:
        """Answer one of your mistakes

        Send the move you would make in the position (a draw, a discard or going out, as
        `POST …/actions` takes it): `correct` says whether it is the best move (or one the
        analysis valued as well), `saves` the points it saves against the move you made
        in the game. 409 `illegal_action` for a move the position does not allow (a
        discard in a draw phase, a card not in the hand); 404 `unknown_mistake` for a
        decision that is not among your mistakes.
        """
        mine = my_account()
        if not URL_SAFE_ID.fullmatch(game_id) or not _VERSION.fullmatch(version):
            raise play.UnknownMistakeError(
                f"no mistake of yours at version {version!r} of game {game_id!r}")
        result = play.answer_mistake(stores(), mine, game_id, int(version), _puzzle_answer())
        return json_response(result, 200, {"Cache-Control": "no-store"})
