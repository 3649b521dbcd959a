"""An account's finished games as records, one after another: ``GET /v1/accounts/{handle}/games``.

What a bot author pulls to keep (or rate, or study) a whole history: every finished game
of the account whose record is still kept, each the record ``GET /v1/games/{id}/record``
serves (:func:`.records.kept_records`), in the order of the account's finished index
(:meth:`~service.storage.AccountStore.finished_page`): by end time to the millisecond,
then by game id, oldest first unless asked newest first.

Why oldest first by default: a client that resumes with the last game it got
(``after``) gets exactly the rest, and the same request made later gets exactly the games
finished since; newest first, games finishing meanwhile come before the cursor and a
later pull needs ``since`` instead.

Why a game id as the cursor: each record carries its ``game_id``, so the last complete
line of a broken-off export is a cursor, and its place in the index (its end time there,
then its id) is one position however many games ended in the same millisecond, so a
resumed export repeats and skips nothing.

Constant memory: the index is read a page of :data:`BATCH` ids at a time, their records in
one round trip, each decompressed only as it is sent; the pages are asked for as the
client reads, so a slow reader holds one page, never the history. Reads only: nothing is
written; the index is trimmed when a game of the account finishes, and the records that
expired since are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from service.storage import Stores

from .accounts import profile
from .errors import InvalidCursorError
from .records import FinishedRecord, kept_records

__all__ = ["BATCH", "ExportQuery", "export_records"]

#: Games read from the index (and records from the store) at a time.
BATCH = 100


@dataclass(frozen=True, slots=True)
class ExportQuery:
    """Which finished games an export sends, and from where."""

    newest_first: bool = False
    #: only games of this preset (the rules' base preset, options changed or not)
    preset: str | None = None
    #: only rated (``True``) or unrated (``False``) games
    rated: bool | None = None
    #: only games that ended at or after this instant (Unix ms)
    since: int | None = None
    #: only games that ended before this instant (Unix ms)
    until: int | None = None
    #: the game id of the last record received: send the games after it
    after: str | None = None


def _wanted(record: FinishedRecord, query: ExportQuery) -> bool:
    if query.preset is not None and record.preset != query.preset:
        return False
    return query.rated is None or record.rated == query.rated


def export_records(stores: Stores, handle: str, query: ExportQuery,
                   batch: int | None = None) -> Iterator[Mapping[str, Any]]:
    """The records of ``handle``'s finished games that ``query`` asks for, lazily.

    Checked now, before the first record is asked for (so a refusal is still a problem
    response): an account that is not open is :class:`UnknownAccountError` (a reference
    bot is known, and its games are no account's: none), a cursor that is not one of the
    account's finished games :class:`InvalidCursorError`. ``batch``: ids a page (by
    default :data:`BATCH`)."""
    profile(stores, handle)
    position = None
    if query.after is not None:
        ended = stores.accounts.finished_time(handle, query.after)
        if ended is None:
            raise InvalidCursorError(
                f"'after' must be the game_id of a finished game of {handle!r}: the last "
                "record received")
        position = (ended, query.after)
    return _pages(stores, handle, query, position, batch or BATCH)


def _pages(stores: Stores, handle: str, query: ExportQuery,
           position: tuple[int, str] | None, batch: int) -> Iterator[Mapping[str, Any]]:
    high = None if query.until is None else query.until - 1
    while True:
        page = stores.accounts.finished_page(handle, position, batch,
                                             newest_first=query.newest_first,
                                             low=query.since, high=high)
        for record in kept_records(stores, [game_id for game_id, _ in page]):
            if record is not None and _wanted(record, query):
                yield record.body
        if len(page) < batch:
            return
        game_id, ended = page[-1]
        position = (ended, game_id)
