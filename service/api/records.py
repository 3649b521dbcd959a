"""``GET /v1/games/{id}/record``: a finished game's record, as JSON or a text score sheet.

The record is kept ``RECORD_TTL_SECONDS`` (90 days by default), long after the live
game's keys expired; before the end it is a 409 ``game_not_finished`` (it reveals the
seed, hence every hidden card). The view of a finished game at any past version is
``GET /v1/games/{id}?version=N`` (``service/api/games.py``), replayed from this record.
"""

from __future__ import annotations

from flask import Response, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play
from service.verify import score_sheet

from .docs import NO_BEARER, problems, query
from .problems import ApiProblem
from .web import QUERY_INT_MAX, json_response, stores, valid_game_id

blp = Blueprint(
    "records", __name__, url_prefix="/v1/games",
    description="Records of finished games: JSON to keep and verify, or a text score sheet.",
)

#: ``?version=N`` of ``GET /v1/games/{id}`` (served there, replayed from the record).
VERSION_QUERY = query(
    "version", "A finished game only: the view at this past version (0 to the record's "
    "`versions`), replayed from its record; the clock's deadline is null. Before the end: "
    "409 `game_not_finished`; beyond the record: 422 `version_not_recorded`. The long-poll "
    "parameters are then ignored.", {"type": "integer", "minimum": 0, "maximum": QUERY_INT_MAX})

JSON = "application/json"
TEXT = "text/plain"
#: Kept by caches for a day: a record never changes once written.
CACHE = "public, max-age=86400"

SHEET_EXAMPLE = """Three-Thirteen: game k3J9xQ2mVb7T
Rules: classic, 11 rounds, 1 deck(s), 0 joker(s)
...
Round 1: 3 cards, 3s wild, dealer bob; ann went out
  ann  score   0  total    0  melds [3S 4S 5S]  deadwood -
  bob  score  17  total   17  melds -  deadwood 7H QC
...
"""


def _media_type() -> str:
    """JSON unless ``Accept`` prefers ``text/plain``; 406 when it allows neither."""
    if not request.headers.get("Accept", "").strip():
        return JSON
    best = request.accept_mimetypes.best_match([JSON, TEXT])
    if best is None:
        raise ApiProblem(406, "not_acceptable",
                         f"a record is sent as {JSON} or {TEXT}: accept one of them (or */*)",
                         available=[JSON, TEXT])
    return best


RECORD_DOC = {
    200: {"description": "The record (`application/json`), or its score sheet "
          "(`text/plain`: round by round, who went out, each player's melds and deadwood, "
          "the running totals).",
          "content": {
              JSON: {"schema": {"$ref": "#/components/schemas/Record"}},
              TEXT: {"schema": {"type": "string"}, "example": SHEET_EXAMPLE},
          }},
}


@blp.route("/<game_id>/record")
class Record(MethodView):
    @blp.doc(operationId="getRecord", responses=RECORD_DOC, security=NO_BEARER)
    @problems(blp, "unknown_game", "game_not_finished", "not_acceptable")
    def get(self, game_id: str) -> Response:
        """A finished game's record

        Everything needed to replay and check the game without this service: the rules,
        the players, the seed and salt, every action in order, each round's final
        arrangements and scores, the winners and the timestamps. Check it with
        `python -m service.verify record.json`. Before the end: 409 `game_not_finished`.
        Kept for `RECORD_TTL_SECONDS` (90 days by default) after the game's end, long after
        the game itself expired.
        """
        valid_game_id(game_id)
        media = _media_type()
        record = play.game_record(stores(), game_id).body
        headers = {"Cache-Control": CACHE, "Vary": "Accept"}
        if media == TEXT:
            return Response(score_sheet(record), 200, headers=headers,
                            content_type="text/plain; charset=utf-8")
        return json_response(record, 200, headers)
