"""The lobby: games with open seats to join, and games being played to watch.

The lobby's listings (:mod:`service.storage.lobby`) are hints ordered by creation time;
this module turns them into pages a client can trust. Every candidate is loaded and
checked (it exists, it is in the state its listing says, it fits the filters), so a
listing entry that a failed second write or an expiry left behind never reaches a
client. An entry shows only public facts (names, rules, seats open): never a hand, the
stock or the seed.

Why reads never correct the listings: a GET must not write (it may be retried, cached,
served by a replica, and costs a read only), so a stale entry is skipped by every page
that meets it until a move worker's :func:`prune_listing` moves it where its game now
belongs or removes it (``service/workers/moves.py`` says how often).
"""

from __future__ import annotations

import base64
import binascii
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from service.core.instants import instant
from service.engine.seats import player_of, seat_kind
from service.storage import LISTINGS, GameRecord, LobbyStore, StorageUnavailableError, Stores

from .errors import InvalidCursorError

__all__ = [
    "MAX_PAGE",
    "PRUNE_GRACE_SECONDS",
    "LobbyPage",
    "best_effort",
    "listing_entry",
    "lobby_page",
    "off_the_lobby",
    "prune_listing",
]

log = logging.getLogger("three_thirteen.lobby")

#: The largest page a client may ask for.
MAX_PAGE = 100
#: A page reads at most this many listing entries (filters that match nothing cost a
#: bounded read; the page then ends early with a cursor to go on from).
SCAN_LIMIT = 500
#: A listed game that does not exist may be one being created (a game is listed first):
#: the prune removes such an entry only once it was listed this long ago.
PRUNE_GRACE_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class LobbyPage:
    """One page of a listing: its entries and the cursor of the next page (``None``: last)."""

    games: list[dict[str, Any]]
    next_cursor: str | None


def best_effort(what: str, write: Callable[[], None]) -> None:
    """A write to an index across games (a lobby listing, the move workers' schedule) after
    the game's own write: if Redis refuses it, the game is already saved and the index
    is a hint its readers check (a listing is corrected by a move worker's prune; the
    schedule was planned before the save too), so the request goes on."""
    try:
        write()
    except StorageUnavailableError as exc:
        log.warning("index not updated (%s): %s", what, exc)


def off_the_lobby(lobby: LobbyStore, game_id: str) -> None:
    """After the save that finished ``game_id`` (a human's move, a bot's or a time-out's):
    off the lobby's games being played, best effort."""
    best_effort("finish", lambda: lobby.relist_game(game_id, "in_progress", None))


def _encode(created: float, game_id: str) -> str:
    return base64.urlsafe_b64encode(orjson.dumps([created, game_id])).decode().rstrip("=")


def _decode(cursor: str) -> tuple[float, str]:
    try:
        created, game_id = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(game_id, str) or not isinstance(created, int | float):
            raise ValueError
    except (ValueError, TypeError, binascii.Error, orjson.JSONDecodeError):
        raise InvalidCursorError("this cursor was not given by the lobby") from None
    return float(created), game_id


def listing_entry(record: GameRecord, created: float) -> dict[str, Any]:
    """What the lobby shows of a game: public facts only."""
    state = record.state
    names = state.names
    seats = [{"seat": s, "name": names[s], "open": h is None,
              "kind": seat_kind(state, s), "bot": player_of(state, s)}
             for s, h in enumerate(record.token_hashes)]
    opened = len(record.open_seats)
    return {
        "game_id": record.game_id,
        "status": "open" if opened else "in_progress",
        "preset": state.rules.preset,
        "rules": {**state.rules.to_dict(), "decks": state.rules.decks_for(len(names))},
        "players": len(names),
        "seats": seats,
        "seats_taken": len(names) - opened,
        "seats_open": opened,
        "round": state.round_index + 1,
        "seeded_by_creator": state.seeded_by_creator,
        "created": instant(created),
    }


def _where(record: GameRecord | None) -> str | None:
    """The listing a game belongs on now (``None``: none, it is gone or finished)."""
    if record is None or record.state.finished:
        return None
    return "open" if record.open_seats else "in_progress"


def lobby_page(stores: Stores, status: str, *, preset: str | None = None,
               players: int | None = None, cursor: str | None = None,
               limit: int = 20) -> LobbyPage:
    """Up to ``limit`` games of listing ``status``, newest first, after ``cursor``; stale
    entries are skipped, never written (:func:`prune_listing` removes them)."""
    assert status in LISTINGS and 1 <= limit <= MAX_PAGE
    before = None if cursor is None else _decode(cursor)
    games: list[dict[str, Any]] = []
    scanned = 0
    while len(games) < limit and scanned < SCAN_LIMIT:
        batch = stores.lobby.listed(status, before, min(limit * 2, SCAN_LIMIT - scanned))
        if not batch:
            return LobbyPage(games, None)
        records = stores.games.load_many([game_id for game_id, _ in batch])
        scanned += len(batch)
        for (game_id, created), record in zip(batch, records, strict=True):
            before = (created, game_id)
            if _where(record) != status:  # stale: skipped, left to a move worker's prune
                continue
            assert record is not None
            if preset is not None and record.state.rules.preset != preset:
                continue
            if players is not None and len(record.state.names) != players:
                continue
            games.append(listing_entry(record, created))
            if len(games) == limit:
                break
    assert before is not None
    return LobbyPage(games, _encode(*before))


def prune_listing(stores: Stores, listing: str, before: tuple[float, str] | None,
                  count: int, now: float | None = None) -> tuple[int, tuple[float, str] | None]:
    """Read up to ``count`` entries of ``listing`` after the cursor ``before`` (newest
    first) and move each stale one to the listing its game belongs on now, or off the
    lobby (gone or finished); the entries moved and the cursor of the next page
    (``None``: the listing's end). An entry of a game that does not exist is left alone
    for :data:`PRUNE_GRACE_SECONDS` after it was listed (it may be being created).

    Why racing writes do no harm: each move is the lobby's atomic relist, which does
    nothing once another move took the entry off ``listing``; an entry moved on a state
    that changed meanwhile is only stale again, skipped by reads until a later prune."""
    now = time.time() if now is None else now
    batch = stores.lobby.listed(listing, before, count)
    records = stores.games.load_many([game_id for game_id, _ in batch])
    moved = 0
    for (game_id, created), record in zip(batch, records, strict=True):
        where = _where(record)
        if where == listing or (record is None and created > now - PRUNE_GRACE_SECONDS):
            continue
        stores.lobby.relist_game(game_id, listing, where)
        moved += 1
    end = len(batch) < count
    return moved, None if end else (batch[-1][1], batch[-1][0])
