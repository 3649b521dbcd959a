"""What the push tier's handlers share: the configuration, the stores, the feeds, the wait
slots, whether the process is stopping, and the resting streams' alarms."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from service import play
from service.config import Config
from service.storage import Account, Stores
from service.wire.bearer import parse_bearer, required_account_key, required_bearer
from service.wire.waiting import WaitSlots, parse_limit

from .alarms import Alarms
from .answers import Cors, client_address
from .feeds import Feeds
from .http import Request

__all__ = ["Push"]


@dataclass(slots=True)
class Push:
    """One push process's state (one per process: built by :func:`.server.serve`)."""

    config: Config
    stores: Stores
    feeds: Feeds
    slots: WaitSlots
    cors: Cors
    #: set when the process begins to stop: streams end (``shutdown``) at their next look
    stopping: bool = False
    #: called when the process begins to stop (what waits on no feed: a stream of many
    #: games, which may follow none for a while)
    on_stop: set[Callable[[], None]] = field(default_factory=set)
    #: the resting streams' heartbeat and deadline timers, one per tick (:mod:`.alarms`)
    alarms: Alarms = field(default_factory=Alarms)

    @classmethod
    def of(cls, config: Config, stores: Stores) -> Push:
        slots = WaitSlots(parse_limit(config.max_waits_per_address, "MAX_WAITS_PER_ADDRESS"),
                          parse_limit(config.max_waits_per_token, "MAX_WAITS_PER_TOKEN"))
        return cls(config, stores, Feeds(stores, config.redis_url), slots, Cors.of(config))

    def stop(self) -> None:
        """Begin to stop: every waiter is woken to end (see :mod:`.server`)."""
        self.stopping = True
        self.feeds.poke_all()
        for wake in list(self.on_stop):
            wake()

    def stopped(self) -> bool:
        """Whether the process is stopping (a call: read afresh after every wait)."""
        return self.stopping

    def address(self, request: Request) -> str | None:
        return client_address(request, self.config.proxy_hops)

    async def credential(self, request: Request) -> str | None:
        """What ``service.api.web.bearer`` gives: the seat token's hash, or an account's
        credential once its key is checked (read in a thread); ``None`` without a bearer,
        401 for a header that is not ``Bearer <token>`` or a key that is not valid."""
        token = parse_bearer(request.headers.get("authorization"))
        if token is None:
            return None
        if play.is_account_key(token):
            account = await asyncio.to_thread(play.authenticate, self.stores, token)
            return play.account_credential(account.handle)
        return play.hash_token(token)

    async def seeker(self, request: Request) -> tuple[str, str | None]:
        """What ``service.api.seeks._bearer`` gives: the credential of a seek's bearer
        (required: 401 without) and its seat token (``None`` for an account key)."""
        token = required_bearer(request.headers.get("authorization"))
        who = await asyncio.to_thread(play.identify, self.stores, token)
        assert who is not None
        return who, None if play.is_account_key(token) else token

    async def account(self, request: Request) -> Account:
        """What ``service.api.web.my_account`` gives: the open account of the bearer's key
        (checked in a thread), 401 without one, for a seat token, or a key not valid."""
        key = required_account_key(request.headers.get("authorization"))
        return await asyncio.to_thread(play.authenticate, self.stores, key)
