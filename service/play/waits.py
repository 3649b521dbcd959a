"""Waiting for a game to change: the long-polls (and streams) of the service layer.

A waiter parks on the game store's watch of its game (:meth:`GameStore.watch`), never
on a thread of its own or a Redis connection, and re-reads the game when woken. Every
read and rendering goes through the watch, so the waiters of one game that one move
wakes in a worker share one read and one rendering per distinct view, whatever their
number.

A wait only reads: the moves the service owes (a bot's, a time-out) are made by the
move workers (:mod:`.moves`), whose saves wake the waiters like any other move.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from service.engine import Event
from service.storage import GameRecord, GameStore, Stores

from .games import may_act, seat_of
from .views import game_view_bytes

__all__ = ["changed_from", "events_when", "on_turn", "view_when"]


def view_when(
    stores: Stores, game_id: str, who: str | None,
    ready: Callable[[GameRecord, int | None], bool], timeout: float,
    seen_version: int | None = None,
) -> tuple[GameRecord, int | None, bytes]:
    """The game once ``ready(game, seat)`` holds, or as it is after ``timeout`` seconds,
    with the seat of the bearer's credential ``who`` and its rendered view.

    ``seen_version`` is a version the caller has already seen (a spectator's
    ``wait_version``): then a read that another waiter made since the last move will do
    for the first look. Without it (a seat, which may just have moved itself) the first
    read is fresh, so no one is ever answered with a game older than what it knows."""
    deadline = time.monotonic() + timeout
    with stores.games.watch(game_id) as watch:
        record = watch.load(at_least=seen_version)  # after subscribing: nothing slips by
        seat = seat_of(record, who)
        while not ready(record, seat):
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not watch.wait(remaining):
                break
            record = watch.load(at_least=record.state.version)
        key = ("view", record.state.version, seat, tuple(record.open_seats))
        body = watch.shared(key, lambda: game_view_bytes(
            game_id, record.state, seat, record.open_seats))
    return record, seat, body


def on_turn(record: GameRecord, seat: int | None) -> bool:
    """``ready`` for ``wait=turn``: ``seat`` may act, or the game is over (a spectator,
    ``None``, is never on turn, so it waits for the end)."""
    return record.state.finished or may_act(record, seat)


def changed_from(version: int) -> Callable[[GameRecord, int | None], bool]:
    """``ready`` for ``wait_version``: the game is no longer at ``version``."""
    return lambda record, seat: record.state.version != version


def events_when(
    games: GameStore, game_id: str, after: int, limit: int, timeout: float,
) -> list[Event]:
    """Up to ``limit`` events after ``after``, waiting up to ``timeout`` seconds for the
    first one if there is none yet."""
    events = games.events(game_id, after, limit)
    if events or timeout <= 0:
        return events
    deadline = time.monotonic() + timeout
    with games.watch(game_id) as watch:
        events = watch.events(after, limit)
        while not events:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not watch.wait(remaining):
                break
            events = watch.events(after, limit)
    return events
