"""What the Redis challenge and tournament stores share, written once
(:class:`IndexedDocuments`, which each store is): a JSON document on its own key (with
its own TTL) changed by compare-and-set, and the accounts' indexes of them.

A change is a compare-and-set on the document's one key (a script that writes only if
the key still holds what was read, keeping its TTL; retried from a fresh read when
another client changed it meanwhile), which Redis Cluster runs on the key's own shard.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, Generic

from ..documents import D, Parse, change_by_swap, dumps, loads
from .accounts import account_key
from .connection import RedisConnection

__all__ = ["IndexedDocuments"]

# KEYS: the document. ARGV: what was read, what to write. 1: written; 0: it changed.
_SWAP = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
"""


class IndexedDocuments(Generic[D]):
    """Documents of one kind, each (``id_of`` a document) at ``key(id)``, read back with
    ``parse``, and each account's index of them: the sorted set ``ttt:{acct:<h>}:<name>``
    (score: when each expires, ms). The challenge and tournament stores' methods of the
    same names, for both."""

    def __init__(self, connection: RedisConnection, key: Callable[[str], str],
                 parse: Parse[D], id_of: Callable[[D], str], name: str) -> None:
        self.connection = connection
        self.key = key
        self.name = name
        self._parse = parse
        self._id_of = id_of
        self._swap = connection.client.register_script(_SWAP)

    def create(self, document: D, ttl_seconds: int) -> None:
        client, key, blob = self.connection.client, self.key(self._id_of(document)), dumps(document)
        self.connection.run(lambda: client.set(key, blob, ex=ttl_seconds))

    def load(self, document_id: str) -> D | None:
        client, key = self.connection.client, self.key(document_id)
        raw = self.connection.run(lambda: client.get(key))
        return None if raw is None else loads(self._parse, raw)

    def change(self, document_id: str, step: Callable[[D], D | None]) -> D | None:
        client, key = self.connection.client, self.key(document_id)

        def read() -> bytes | None:
            raw: bytes | None = self.connection.run(lambda: client.get(key))
            return raw

        def swap(read: bytes, written: bytes) -> bool:
            return bool(self.connection.run(partial(self._swap, keys=[key],
                                                    args=[read, written])))

        return change_by_swap(self._parse, read, swap, step)

    def index(self, handle: str, document_id: str, expires: float) -> None:
        client = self.connection.client
        self.connection.run(lambda: client.zadd(account_key(handle, self.name),
                                                {document_id: round(expires * 1000)}))

    def unindex(self, handle: str, document_id: str) -> None:
        client = self.connection.client
        self.connection.run(lambda: client.zrem(account_key(handle, self.name), document_id))

    def indexed(self, handle: str, now: float) -> list[str]:
        def read() -> Any:
            pipe = self.connection.client.pipeline(transaction=True)  # one slot
            pipe.zremrangebyscore(account_key(handle, self.name), "-inf", round(now * 1000))
            pipe.zrange(account_key(handle, self.name), 0, -1)
            return pipe.execute()[1]
        return [c.decode() for c in self.connection.run(read)]
