"""Rematches: after a finished game, the same players and rules again, at a fresh deal.

Why the new game keeps the old seats' tokens: the last seat to accept creates the
game, and the others are not in that request to be handed new tokens. Every human
keeps its seat number and token (its hash is copied), bots accept at once, and the
new game's id is announced on the old game's log (``rematch_started``), so whoever
follows the old game's stream or long-polls it learns where to go.
"""

from __future__ import annotations

import time
from functools import partial

from service.engine import new_game
from service.engine.seats import ask_rematch, rematch_seats, rematch_started, seat_kind
from service.engine.state import RESIGNED
from service.storage import GameRecord, Stores, VersionConflictError

from .errors import AuthError, GameBusyError
from .games import MAX_ATTEMPTS, hash_token, seat_of_digest, store_new_game
from .lobby import best_effort

__all__ = ["ask_for_rematch"]


def ask_for_rematch(stores: Stores, game_id: str, token: str | None) -> GameRecord:
    """The bearer's seat asks for (or accepts) a rematch; the game once saved. When it
    is the last human to, the new game is created and announced in the same save."""
    if token is None:
        raise AuthError("a rematch needs a seat token: send Authorization: Bearer <token>")
    digest = hash_token(token)
    for _ in range(MAX_ATTEMPTS):
        record = stores.games.load(game_id)
        seat = seat_of_digest(record, digest)
        state, events = ask_rematch(record.state, seat)
        new = None
        if set(rematch_seats(state)) <= set(state.rematch_asked):
            old = state
            new = _new_game_like(stores, record)
            state, more = rematch_started(old, new.game_id)
            events = events + more
        try:
            stores.games.save(game_id, record.state.version, state, events)
        except VersionConflictError:
            continue  # a game made for a lost race is never announced nor listed: it expires
        if new is not None:  # on the lobby only once announced (open while a seat is)
            listing = "open" if new.open_seats else "in_progress"
            best_effort("rematch", partial(stores.lobby.list_game, new.game_id, listing,
                                           time.time()))
        return GameRecord(game_id, state, record.token_hashes)
    raise GameBusyError("the game kept changing; try again")


def _new_game_like(stores: Stores, record: GameRecord) -> GameRecord:
    """The same table at a fresh deal; a seat whose player resigned comes back open."""
    old = record.state
    gone = [seat_kind(old, s) == RESIGNED for s in range(old.players)]
    names = [None if left else name for name, left in zip(old.names, gone, strict=True)]
    hashes = [None if left else h for h, left in zip(record.token_hashes, gone, strict=True)]
    state = new_game(old.rules, names, None, bots=old.bots or None,
                     turn_seconds=old.turn_seconds)
    return store_new_game(stores, state, hashes, None, unlisted=True)
