"""Challenges in Redis (why these keys and promises: :mod:`service.storage.challenges`)::

    ttt:{ch:<id>}:challenge    the challenge as JSON, with its own TTL
    ttt:{acct:<h>}:challenges  sorted set: the challenges account <h> is in (score: when
                               each expires, ms)

A change is a compare-and-set on the challenge's one key (a script that writes only if
the key still holds what was read, keeping its TTL; retried from a fresh read when
another client changed it meanwhile), which Redis Cluster runs on the key's own shard.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import orjson

from ..challenges import Challenge, ChallengeStore
from .accounts import account_key
from .connection import RedisConnection

__all__ = ["RedisChallenges"]


def _key(challenge_id: str) -> str:
    return f"ttt:{{ch:{challenge_id}}}:challenge"


# KEYS: the challenge. ARGV: what was read, what to write. 1: written; 0: it changed.
_SWAP = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
"""


class RedisChallenges(ChallengeStore):
    """The challenges, on the process's shared connection (and the base of other JSON
    documents kept the same way: :class:`~.tournaments.RedisTournaments`)."""

    #: the document's id field, and the name of the accounts' index of them
    ID = "challenge_id"
    INDEX = "challenges"

    def key(self, document_id: str) -> str:
        return _key(document_id)

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection
        self._swap = connection.client.register_script(_SWAP)

    def create(self, challenge: Challenge, ttl_seconds: int) -> None:
        client, key = self.connection.client, self.key(challenge[self.ID])
        self.connection.run(lambda: client.set(key, orjson.dumps(challenge), ex=ttl_seconds))

    def load(self, challenge_id: str) -> Challenge | None:
        client, key = self.connection.client, self.key(challenge_id)
        raw = self.connection.run(lambda: client.get(key))
        return None if raw is None else orjson.loads(raw)

    def change(self, challenge_id: str,
               step: Callable[[Challenge], Challenge | None]) -> Challenge | None:
        client, key = self.connection.client, self.key(challenge_id)
        while True:
            raw = self.connection.run(lambda: client.get(key))
            if raw is None:
                return None
            changed = step(orjson.loads(raw))
            if changed is None:  # as stored, whatever the step did to its copy
                return orjson.loads(raw)  # type: ignore[no-any-return]
            written = orjson.dumps(changed)
            swap = partial(self._swap, keys=[key], args=[raw, written])
            if self.connection.run(swap):
                return orjson.loads(written)  # type: ignore[no-any-return]  # as stored
            # changed by another meanwhile: read it again and step from there

    def index(self, handle: str, challenge_id: str, expires: float) -> None:
        client = self.connection.client
        self.connection.run(lambda: client.zadd(account_key(handle, self.INDEX),
                                                {challenge_id: round(expires * 1000)}))

    def unindex(self, handle: str, challenge_id: str) -> None:
        client = self.connection.client
        self.connection.run(lambda: client.zrem(account_key(handle, self.INDEX), challenge_id))

    def indexed(self, handle: str, now: float) -> list[str]:
        def read() -> Any:
            pipe = self.connection.client.pipeline(transaction=True)  # one slot
            pipe.zremrangebyscore(account_key(handle, self.INDEX), "-inf", round(now * 1000))
            pipe.zrange(account_key(handle, self.INDEX), 0, -1)
            return pipe.execute()[1]
        return [c.decode() for c in self.connection.run(read)]
