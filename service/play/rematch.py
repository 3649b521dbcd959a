"""Rematches: after a finished game, the same players and rules again, at a fresh deal.

Why the new game keeps the old seats' tokens: the last seat to accept creates the
game, and the others are not in that request to be handed new tokens. Every player who
did not resign keeps its seat number and token (its hash is copied; a resigned player's
seat comes back open), bots accept at once, and the
new game's id is announced on the old game's log (``rematch_started``), so whoever
follows the old game's stream or long-polls it learns where to go.
"""

from __future__ import annotations

import secrets
import time

from service.engine import GameState
from service.engine.seats import ask_rematch, rematch_seats, rematch_started, seat_kind
from service.engine.state import RESIGNED
from service.storage import GameRecord, Stores

from .admission import Seat, Table, admit, agreed_to_rematch
from .commit import Change, Step, commit
from .errors import AuthError
from .games import deal, seat_of_digest
from .loads import LoadLimit

__all__ = ["ask_for_rematch"]


def _rematch_step(stores: Stores, digest: str, load: LoadLimit | None) -> Step:
    def step(record: GameRecord) -> Change:
        seat = seat_of_digest(record, digest)
        state, events = ask_rematch(record.state, seat)
        if set(rematch_seats(state)) <= set(state.rematch_asked):  # the last one: start it
            new = _new_game_like(stores, record, state, load)  # made for a lost race: it expires
            state, more = rematch_started(state, new.game_id)
            events = events + more
        return Change(state, events, seat=seat)
    return step


def ask_for_rematch(stores: Stores, game_id: str, who: str | None,
                    load: LoadLimit | None = None) -> GameRecord:
    """The bearer's seat asks for (or accepts) a rematch; the game once saved. When it
    is the last player to, the new game is created and announced in the same save (and
    reaches the lobby and the move workers only then: :func:`.commit.commit`); ``who`` is
    the bearer's credential (:mod:`.credentials`); with
    ``load`` a rematch with bot seats counts against that client's cap (:mod:`.loads`)."""
    if who is None:
        raise AuthError("a rematch needs a seat token or an account key: send "
                        "Authorization: Bearer <token>")
    saved = commit(stores, game_id, _rematch_step(stores, who, load))
    assert saved.record is not None
    return saved.record


def _new_game_like(stores: Stores, record: GameRecord, asked: GameState,
                   load: LoadLimit | None) -> GameRecord:
    """The same table at a fresh deal (admitted as a rematch: never rated); a seat whose
    player resigned comes back open. ``asked``: the old game with every ask in."""
    old = record.state
    gone = [seat_kind(old, s) == RESIGNED for s in range(old.players)]
    hashes = [None if left else h for h, left in zip(record.token_hashes, gone, strict=True)]
    handles = old.accounts or (None,) * old.players
    bots = old.bots or (None,) * old.players
    seats = []
    for s, left in enumerate(gone):
        if left:
            seats.append(Seat())
        elif bots[s] is not None:
            seats.append(Seat(bots[s], bots[s]))
        elif handles[s] is not None:
            account = stores.accounts.load(handles[s])  # type: ignore[arg-type]
            if account is None or account.closed:  # closed since: the seat comes back open
                seats.append(Seat())
                hashes[s] = None
            else:
                seats.append(Seat.of(account))
        else:
            seats.append(Seat(old.names[s]))
    table = Table(agreed_to_rematch(asked), old.rules, tuple(seats), old.turn_seconds,
                  rated=False, load=load)
    admission = admit(stores, table, secrets.token_urlsafe(12), time.time())
    new, _ = deal(stores, admission, None, token_hashes=hashes, announced=False)
    return new
