"""``GET /v1/games/{id}/events`` on the push tier: a page of a game's event log, waiting
(``?timeout=``) while nothing is after the cursor, as Flask's ``events.Events.get``.

Every step is the Flask view's, in its order (so the same request meets the same problem
first), with its parsers (:mod:`service.wire.queries`) and the service layer's functions
(:func:`service.play.seat_of`, :func:`service.play.events_page_bytes`). What differs is
only how it waits: on the game's :class:`~.feed.GameFeed`, where a move is read once,
and the events after a cursor once per move, for every waiter of this process.
"""

from __future__ import annotations

import asyncio
from functools import partial

from service import play
from service.engine import Event
from service.wire.bearer import identity
from service.wire.deprecations import concerning, headers_of
from service.wire.queries import check_events_after, optional_wait, query_integer, valid_game_id
from service.wire.waiting import asks_to_wait

from .answers import Answer, for_bearer
from .context import Push
from .feeds import Feeds
from .http import Request

__all__ = ["events", "events_when"]

_DEPRECATION = list(headers_of(concerning("GET", "/v1/games/{game_id}/events")).items())


async def events(push: Push, request: Request, game_id: str) -> Answer:
    """The page, at once or once there is an event after the cursor (see the module)."""
    query = request.query
    address = push.address(request)
    bearer = identity(request.headers.get("authorization"))
    if asks_to_wait(query.get("timeout")):  # Flask's early refusal: before anything
        push.slots.check(address, bearer)
    valid_game_id(game_id)
    who = await push.credential(request)
    after = query_integer("after", query.get("after"), 0, 0)
    limit = query_integer("limit", query.get("limit"), play.MAX_EVENTS, 1, play.MAX_EVENTS)
    timeout = optional_wait(query.get("timeout"), push.config.long_poll_max_seconds)
    games = push.stores.games
    record = await asyncio.to_thread(games.load, game_id)
    seat = play.seat_of(record, who)
    check_events_after(after, record.state.event_seq)
    # one more than the limit tells whether to page on
    if timeout > 0:
        with push.slots.hold(address, bearer):
            found = await events_when(push.feeds, game_id, after, limit + 1, timeout)
    else:
        found = await asyncio.to_thread(games.events, game_id, after, limit + 1)
    body = play.events_page_bytes(game_id, found, after, limit, seat)
    return Answer(200, [("Content-Type", "application/json"), *for_bearer(seat is not None),
                        *_DEPRECATION], body)


async def events_when(feeds: Feeds, game_id: str, after: int, limit: int,
                      timeout: float) -> list[Event]:
    """:func:`service.play.events_when` on a feed: up to ``limit`` events after ``after``,
    read at once, or if there are none yet, once there is one (or none after ``timeout``
    seconds). Each look after the subscription is the feed's read of that cursor for its
    generation (the first one too: it began while the feed was subscribed, so a move it
    does not see is published after it, and wakes this wait)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    games = feeds.stores.games
    found: list[Event] = await asyncio.to_thread(games.events, game_id, after, limit)
    if found:
        return found
    async with feeds.watch(game_id) as feed:
        while True:
            generation = feed.generation
            found = await feed.shared_read(
                ("page", after, limit), partial(games.events, game_id, after, limit))
            if found:
                return found
            if not await feed.wait(generation, deadline - loop.time()):
                return []
