"""``GET /v1/games/{id}`` on the push tier: the long-polls (``?wait_version=N``,
``?wait=turn``), and the same route's answers at once, as Flask's ``games.Game.get``.

Every step is the Flask view's, in its order (so the same request meets the same problem
first), with its parsers (:mod:`service.wire.queries`) and the service layer's functions
(:func:`service.play.seat_of`, :func:`service.play.on_turn`, :func:`service.play.view_at`,
:func:`service.play.game_view_bytes`). What differs is only how it waits: on the game's
:class:`~.feed.GameFeed`, whose one read per version and one rendering per audience serve
every waiter of this process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from service import play
from service.storage import GameRecord
from service.wire.bearer import identity
from service.wire.queries import query_integer, valid_game_id, wait_seconds, wait_turn

from .answers import Answer, for_bearer
from .context import Push
from .feeds import Feeds
from .http import Request

__all__ = ["game", "view_when"]


def _view(body: bytes, version: int, seat: int | None) -> Answer:
    return Answer(200, [("Content-Type", "application/json"), ("ETag", play.etag(version)),
                        *for_bearer(seat is not None)], body)


async def game(push: Push, request: Request, game_id: str) -> Answer:
    """The view, at once or when it is ready (see the module)."""
    query = request.query
    address = push.address(request)
    bearer: str | None = None  # (counted only for a wait, as Flask's hook counts)
    if "wait" in query or "wait_version" in query:  # Flask's early refusal: before anything
        bearer = identity(request.headers.get("authorization"))
        push.slots.check(address, bearer)
    valid_game_id(game_id)
    who = await push.credential(request)
    wait_version = query_integer("wait_version", query.get("wait_version"), None, 0)
    turn = wait_turn(query.get("wait"))
    timeout = wait_seconds("timeout", query.get("timeout"), push.config.long_poll_max_seconds)
    if (version := query_integer("version", query.get("version"), None, 0)) is not None:
        body, seat = await asyncio.to_thread(play.view_at, push.stores, game_id, who, version)
        return _view(body, version, seat)
    if timeout > 0 and (turn or wait_version is not None):
        ready = (play.changed_from(wait_version) if wait_version is not None and not turn
                 else play.on_turn)
        seen = wait_version if who is None and not turn else None
        with push.slots.hold(address, bearer):
            record, seat, body = await view_when(push.feeds, game_id, who, ready, timeout,
                                                 seen)
        return _view(body, record.state.version, seat)
    record = await asyncio.to_thread(push.stores.games.load, game_id)
    seat = play.seat_of(record, who)
    body = play.game_view_bytes(game_id, record.state, seat, record.open_seats)
    return _view(body, record.state.version, seat)


async def view_when(
    feeds: Feeds, game_id: str, who: str | None,
    ready: Callable[[GameRecord, int | None], bool], timeout: float,
    seen_version: int | None,
) -> tuple[GameRecord, int | None, bytes]:
    """:func:`service.play.view_when` on a feed: the game once ``ready(game, seat)``
    holds, or as it is after ``timeout`` seconds, with the bearer's seat and its view.

    ``seen_version`` (a spectator's ``wait_version``): the feed's record will do for the
    first look if it is at least that new; without it (a seat, which may just have moved
    itself) the first look is a read started after the request arrived."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    async with feeds.watch(game_id) as feed:
        record = await feed.load(seen_version)
        seat = play.seat_of(record, who)
        while True:
            generation = feed.generation
            newest = feed.record
            if newest is not None and newest.state.version > record.state.version:
                record = newest
            if ready(record, seat):
                break
            if not await feed.wait(generation, deadline - loop.time()):
                break
        state, open_seats = record.state, record.open_seats
        body = feed.shared(("view", state.version, seat, tuple(open_seats)),
                           lambda: play.game_view_bytes(game_id, state, seat, open_seats))
    return record, seat, body
