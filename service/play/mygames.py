"""An account's games: those it plays, the ones where it must act first, and those over.

``GET /v1/me/games`` is what a bot reads when it starts (or restarts) with only its key:
every game it holds a seat in, whether it is its turn there and until when. The index is
the account's (:mod:`service.storage.accounts`); every entry is checked against the game
itself, so a game that ended or expired is shown as it is, not as the index last heard.

Games in progress come all at once (an account holds a bounded number at a time),
ordered by what to do first: the account's turn first, soonest deadline first; games
over come a page at a time, newest first, by cursor.
"""

from __future__ import annotations

import time
from typing import Any

from service.core.instants import instant
from service.engine import winners
from service.engine.seats import played_by_service
from service.storage import Account, GameRecord, Stores

from .credentials import account_credential
from .cursors import decode_cursor, encode_cursor

__all__ = ["ACTIVE_SHOWN", "my_games"]

#: The most games in progress shown (far more than one player, or one bot, plays at once).
ACTIVE_SHOWN = 500


def _entry(record: GameRecord, seat: int, joined: float | None) -> dict[str, Any]:
    """A game as the list shows it: ``deadline`` is the running turn's, whoever's it is
    (a bot waiting for its opponent sees when that turn times out too)."""
    state = record.state
    my_turn = (not state.finished and not record.open_seats and state.current_seat == seat
               and not played_by_service(state, seat))
    return {
        "game_id": record.game_id, "seat": seat,
        "status": "finished" if state.finished else "open" if record.open_seats
        else "in_progress",
        "my_turn": my_turn,
        "deadline": None if state.finished else instant(state.turn_deadline),
        "round": state.round_index + 1, "rounds": state.rules.rounds,
        "players": list(state.names), "version": state.version,
        "winners": None, "joined": instant(joined),
    }


def _seat(record: GameRecord, credential: str) -> int | None:
    return record.token_hashes.index(credential) if credential in record.token_hashes else None


def my_games(stores: Stores, account: Account, status: str | None, cursor: str | None,
             limit: int) -> tuple[list[dict[str, Any]], str | None]:
    """The account's games of ``status`` (``in_progress``, ``finished``, or ``None``: both,
    games in progress first), and the cursor of the next page of finished games."""
    credential = account_credential(account.handle)
    out: list[dict[str, Any]] = []
    # over, but not yet moved to the finished index (written after the game's own save):
    # listed first among the finished, so a game is never missing in between
    just_ended: list[tuple[GameRecord, int]] = []
    if cursor is None:
        active = stores.accounts.games(account.handle, "active", None, ACTIVE_SHOWN)
        for (_game_id, joined), record in zip(
                active, stores.games.load_many([g for g, _ in active]), strict=True):
            seat = None if record is None else _seat(record, credential)
            if record is None or seat is None:
                continue  # gone
            if record.state.finished:
                just_ended.append((record, seat))
            elif status != "finished":
                out.append(_entry(record, seat, joined))
        out.sort(key=lambda e: (not e["my_turn"], e["deadline"] or "~", e["joined"]))
    if status == "in_progress":
        return out, None
    before = None if cursor is None else decode_cursor(cursor, float)
    room = max(0, limit - len(out)) if status is None else limit
    finished = stores.accounts.games(account.handle, "finished", before, room)
    indexed = {game_id for game_id, _ in finished}
    now = time.time()
    for record, seat in just_ended:
        if record.game_id not in indexed and len(out) < limit:
            entry = _entry(record, seat, record.created_at)
            entry.update(winners=list(winners(record.state)), ended=instant(now))
            out.append(entry)
    for (game_id, ended), record in zip(
            finished, stores.games.load_many([g for g, _ in finished]), strict=True):
        seat = None if record is None else _seat(record, credential)
        if record is None or seat is None:  # expired: the record outlives it
            out.append({"game_id": game_id, "seat": None, "status": "finished",
                        "my_turn": False, "deadline": None, "round": None, "rounds": None,
                        "players": None, "version": None, "winners": None,
                        "joined": None, "ended": instant(ended)})
            continue
        # the active index's join time is gone with the game's end: the game's creation
        # is when a seat made with it was taken (a claim came later)
        entry = _entry(record, seat, record.created_at)
        entry.update(winners=list(winners(record.state)), ended=instant(ended))
        out.append(entry)
    more = len(finished) == room and room > 0
    return out, encode_cursor(*finished[-1][::-1]) if more and finished else None
