"""``GET /v1/seeks/{id}`` on the push tier: a seek as its seeker sees it, waiting
(``?timeout=``) for its match, as Flask's ``seeks.OneSeek.get``.

A read only reads, here as on a web worker: it holds no seek (the request that opened it
does, or its account's stream), so it needs nothing but the seek board's reads
(:func:`service.play.look_at_seek`) and the pool's channel, on which a match is
published. Why ``POST /v1/seeks?timeout=`` stays on the web workers: it opens the seek (a
write, with the game a match makes) and then holds it while it waits (docs/design.md,
"The push tier").

Every step is the Flask view's, in its order (the early refusal, the bearer, the query,
the wait slot), with its parsers (:mod:`service.wire`); the wait is that of
:func:`service.play.wait_for_match` without a holder, look for look, on the pool's
:class:`~.feed.Feed`.
"""

from __future__ import annotations

import asyncio

import orjson

from service import play
from service.wire.bearer import identity
from service.wire.queries import optional_wait
from service.wire.waiting import asks_to_wait

from .answers import Answer
from .context import Push
from .feeds import Feeds
from .http import Request

__all__ = ["seek", "seek_when_matched"]


async def seek(push: Push, request: Request, seek_id: str) -> Answer:
    """The seek, at once or once matched (see the module)."""
    query = request.query
    address = push.address(request)
    bearer = identity(request.headers.get("authorization"))
    if asks_to_wait(query.get("timeout")):  # Flask's early refusal: before anything
        push.slots.check(address, bearer)
    who, token = await push.seeker(request)
    timeout = optional_wait(query.get("timeout"), push.config.long_poll_max_seconds)
    if timeout > 0:
        with push.slots.hold(address, bearer):
            found = await seek_when_matched(push.feeds, seek_id, who, token, timeout)
    else:
        found = await asyncio.to_thread(play.seek_status, push.stores, seek_id, who, token)
    # a seat token may be in it
    return Answer(200, [("Content-Type", "application/json"), ("Cache-Control", "no-store")],
                  orjson.dumps(found.to_json()))


async def seek_when_matched(feeds: Feeds, seek_id: str, who: str, token: str | None,
                            timeout: float) -> play.Seek:
    """The seek once matched (its game made), or as it is after ``timeout`` seconds: a
    look after the subscription to its pool, then one after each publication on it (and,
    for a match whose game is not made yet, after :data:`~service.play.MADE_LOOK_SECONDS`)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    stores = feeds.stores
    pool = play.seek_pool(seek_id)  # (a malformed id is unknown before anything is asked)
    look = play.MADE_LOOK_SECONDS[0]
    async with feeds.watch_topic(pool) as feed:
        while True:
            generation = feed.generation
            found, making = await asyncio.to_thread(play.look_at_seek, stores, seek_id, who,
                                                    token)
            remaining = deadline - loop.time()
            if found.status != "waiting" or remaining <= 0:
                return found
            if making:
                await asyncio.sleep(min(remaining, look))
                look = min(2 * look, play.MADE_LOOK_SECONDS[1])
            else:
                await feed.wait(generation, remaining)
