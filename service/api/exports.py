"""``GET /v1/accounts/{handle}/games``: every finished game of an account, as NDJSON records.

One record a line (the JSON of ``GET /v1/games/{id}/record``), oldest first (or newest
first), filtered by preset, rated and end time, resumable after any line by its
``game_id`` (``after=``). What is sent and in which order is the service layer's
(:func:`service.play.export_records`); this module parses the query, checks the account
and the cursor before the first byte (so a refusal is still problem+json), and streams.

Why a generator over the service layer's lazy pages, with no request context kept
(nothing in it reads the request): the response then holds one page of the index at a
time however long the history, and the worker's event loop serves other requests
between pages (each page is one Redis round trip, a gevent switch). Records are public,
so the export needs no key; each client address may begin ``EXPORT_LIMIT_PER_ADDRESS``
exports (:mod:`.limits`). See docs/accounts.md#exporting-an-accounts-games.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import orjson
from flask import Response, request
from flask.views import MethodView
from flask_smorest import Blueprint

from service import play
from service.core.rules import PRESETS
from service.wire.framing import NDJSON

from .accounts import HANDLE
from .docs import NO_BEARER, problems, query
from .instants import INSTANT, instant_ms
from .problems import ApiProblem
from .web import URL_SAFE_ID, stores

__all__ = ["blp"]

blp = Blueprint("exports", __name__, url_prefix="/v1/accounts",
                description="Exports: every finished game of an account, a record a line.")

def _refuse(name: str, what: str) -> ApiProblem:
    return ApiProblem(422, "invalid_query", f"query parameter {name!r} must be {what}",
                      errors={"query": {name: [what]}})


def _choice(name: str, choices: tuple[str, ...]) -> str | None:
    raw = request.args.get(name)
    if raw is not None and raw not in choices:
        raise _refuse(name, "one of: " + ", ".join(choices))
    return raw


def _query() -> play.ExportQuery:
    after = request.args.get("after")
    if after is not None and not URL_SAFE_ID.fullmatch(after):
        raise _refuse("after", "a game_id (1 to 64 characters of A-Z, a-z, 0-9, '_', '-')")
    rated = _choice("rated", ("true", "false"))
    return play.ExportQuery(
        newest_first=_choice("sort", ("oldest", "newest")) == "newest",
        preset=_choice("preset", tuple(PRESETS)),
        rated=None if rated is None else rated == "true",
        since=instant_ms("since"), until=instant_ms("until"), after=after)


def _acceptable() -> None:
    """NDJSON is the one form: 406 when ``Accept`` allows it not (absent allows it)."""
    accept = request.headers.get("Accept", "").strip()
    if accept and request.accept_mimetypes.best_match([NDJSON]) is None:
        raise ApiProblem(406, "not_acceptable", f"an export is sent as {NDJSON}: accept it "
                         "(or */*)", available=[NDJSON])


def _lines(records: Iterator[Mapping[str, Any]]) -> Iterator[bytes]:
    for record in records:
        yield orjson.dumps(record) + b"\n"


EXPORT_DOC = {
    200: {
        "description": "Newline-delimited JSON: one `Record` a line (as `GET "
        "/v1/games/{game_id}/record` serves it), oldest first unless `sort=newest`, until "
        "every game asked for is sent. To resume after a line, send its `game_id` as "
        "`after` (with the same other parameters). See docs/accounts.md.",
        # as the game stream's NDJSON (service/api/stream.py): `schema` the whole body read
        # as an array of records (OpenAPI 3.2), `x-oai-itemSchema` one line
        "content": {NDJSON: {
            "schema": {"type": "array", "description": "The export's lines, one `Record` "
                       "each.", "items": {"$ref": "#/components/schemas/Record"}},
            "x-oai-itemSchema": {"$ref": "#/components/schemas/Record"}}},
        "headers": {"Cache-Control": {"description": "`no-cache`",
                                      "schema": {"type": "string"}}},
    },
}


@blp.route("/<handle>/games", parameters=[HANDLE])
class Export(MethodView):
    @blp.doc(operationId="exportAccountGames", security=NO_BEARER, responses=EXPORT_DOC, parameters=[
        query("sort", "`oldest` first (default: a resumed or repeated export then brings "
              "exactly the games after its cursor, those finished since included) or "
              "`newest` first.", {"type": "string", "enum": ["oldest", "newest"]}),
        query("preset", "Only games of this preset (with options changed or not).",
              {"type": "string", "enum": list(PRESETS)}),
        query("rated", "Only rated (`true`) or unrated (`false`) games.",
              {"type": "string", "enum": ["true", "false"]}),
        query("since", "Only games that ended at or after this instant (RFC 3339).",
              INSTANT),
        query("until", "Only games that ended before this instant (RFC 3339).", INSTANT),
        query("after", "Resume: the `game_id` of the last record received; the games after "
              "it in this order are sent. Not a finished game of this account: 422 "
              "`invalid_cursor`.",
              {"type": "string", "minLength": 1, "maxLength": 64,
               "pattern": "^[A-Za-z0-9_-]+$"}),
    ])
    @problems(blp, "unknown_account", "invalid_query", "invalid_cursor", "not_acceptable")
    def get(self, handle: str) -> Response:
        """Export an account's finished games

        Every finished game of the account whose record is kept (`RECORD_TTL_SECONDS`, 90
        days by default), one record a line, each as `GET /v1/games/{game_id}/record`
        serves it (check each with `python -m service.verify`). Oldest first (or
        `sort=newest`), by end time to the millisecond, then by `game_id`; filtered by
        `preset`, `rated` and end time (`since` ≤ end < `until`). Resumable after any
        line: send its `game_id` as `after`. Anyone may read it (records are public);
        each client address may begin `EXPORT_LIMIT_PER_ADDRESS` exports (10 a minute,
        100 an hour by default). A closed or unknown account: 404 `unknown_account`.
        """
        _acceptable()
        records = play.export_records(stores(), handle, _query())
        response = Response(_lines(records), content_type=NDJSON)
        response.headers["Cache-Control"] = "no-cache"
        response.headers["X-Accel-Buffering"] = "no"  # nginx: pass each line at once
        return response
