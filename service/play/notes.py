"""What a game's change tells the accounts that hold its seats: their games index and their
stream's notes (``game_started``, ``your_turn``, ``game_finished``).

Run after every saved change of a game with account seats (:func:`.commit.commit`, and
:func:`.commit.create` for a game dealt with them), from the change itself: an account
that took a seat gets the game in its index; when the last seat is taken every account
seat hears ``game_started``; when a turn of an account's own seat begins, that account
hears ``your_turn`` (with the turn's deadline), unless the service plays the seat then
(away, resigned, a turn that timed out); when the game ends, every account seat hears
``game_finished`` and the game moves to its finished games.

A note's id is the game, the version and the kind, so a note written twice (a retried
effect) is kept once by the store (:meth:`~service.storage.AccountStore.append`).
Like every index across games these are written after the game's own save: the account's
games and the game itself are what a client trusts (``GET /v1/me/games``), the notes
what wakes it.
"""

from __future__ import annotations

from typing import Any

from service.core.instants import instant
from service.engine import winners
from service.engine.seats import played_by_service
from service.storage import GameRecord, Stores

from .webhooks import queue_webhooks

__all__ = ["account_effects", "tell"]


def tell(stores: Stores, handle: str, notes: list[tuple[str, dict[str, Any]]]) -> None:
    """Append ``(note id, body)`` notes to ``handle``'s stream, each once, and queue those
    its webhook is sent (:func:`.webhooks.queue_webhooks`): the one way an account is
    told anything (games' changes here, challenges in :mod:`.challenges`)."""
    if notes:
        stores.accounts.append(handle, notes)
        queue_webhooks(stores, handle, notes)


def _note(record: GameRecord, kind: str, seat: int, **fields: Any) -> tuple[str, dict[str, Any]]:
    state = record.state
    body = {"type": kind, "game_id": record.game_id, "seat": seat, "version": state.version,
            **fields}
    return f"{record.game_id}:{state.version}:{kind}", body


def _turn_began(before: GameRecord | None, after: GameRecord, started: bool) -> bool:
    if started or before is None:
        return True
    old, new = before.state, after.state
    service_before = (old.current_seat is not None
                      and played_by_service(old, old.current_seat))
    return (new.current_seat != old.current_seat or new.round_index != old.round_index
            or service_before)  # back from away on its own turn: its player moves again


def account_effects(stores: Stores, before: GameRecord | None, after: GameRecord,
                    now: float) -> None:
    """Index and notify the accounts of ``after``'s seats for the change from ``before``
    (``None``: the game was just created)."""
    state = after.state
    if not state.accounts:
        return
    started = not after.open_seats and (before is None or bool(before.open_seats))
    finished = state.finished and (before is None or not before.state.finished)
    earlier = before.state.accounts if before is not None else ()
    seat = state.current_seat
    on_turn = (seat is not None and not state.finished and not after.open_seats
               and state.accounts[seat] is not None and not played_by_service(state, seat)
               and _turn_began(before, after, started))
    for s, handle in enumerate(state.accounts):
        if handle is None:
            continue
        if not earlier or earlier[s] != handle:
            stores.accounts.add_game(handle, after.game_id, now)
        notes: list[tuple[str, dict[str, Any]]] = []
        if started:
            notes.append(_note(after, "game_started", s, players=list(state.names)))
        if on_turn and s == seat:
            notes.append(_note(after, "your_turn", s, round=state.round_index + 1,
                               phase=state.phase, deadline=instant(state.turn_deadline)))
        if finished:
            notes.append(_note(after, "game_finished", s, winners=list(winners(state)),
                               totals=list(state.totals()), reason=state.finish_reason))
            stores.accounts.finish_game(handle, after.game_id, now)
        tell(stores, handle, notes)
