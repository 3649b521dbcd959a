"""The bot ladder in Redis (why: :mod:`service.storage.ladder`). Keys of one preset share
the hash tag ``{ladder:<preset>}``::

    ttt:{ladder:<p>}:members  hash, handle -> its entry (JSON)
    ttt:{ladder:<p>}:playing  hash, game id -> the handles seated (JSON)
    ttt:{ladder:<p>}:recent   hash, handle -> its latest tables, newest first (JSON)
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from ..documents import dumps, loads
from ..ladder import RECENT_TABLES, LadderEntry, LadderStore
from .connection import RedisConnection

__all__ = ["RedisLadder"]


def _key(preset: str, what: str) -> str:
    return f"ttt:{{ladder:{preset}}}:{what}"


class RedisLadder(LadderStore):
    """The ladders, on the process's shared connection."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection

    def join(self, preset: str, handle: str, entry: LadderEntry) -> None:
        client = self.connection.client
        self.connection.run(lambda: client.hset(_key(preset, "members"), handle,
                                                dumps(entry)))

    def leave(self, preset: str, handle: str) -> bool:
        client = self.connection.client
        return bool(self.connection.run(lambda: client.hdel(_key(preset, "members"), handle)))

    def members(self, preset: str) -> dict[str, LadderEntry]:
        client = self.connection.client
        stored = self.connection.run(lambda: client.hgetall(_key(preset, "members")))
        return {k.decode(): loads(LadderEntry.from_json, v) for k, v in stored.items()}

    def playing(self, preset: str) -> dict[str, list[str]]:
        client = self.connection.client
        stored = self.connection.run(lambda: client.hgetall(_key(preset, "playing")))
        return {k.decode(): orjson.loads(v) for k, v in stored.items()}

    def recent(self, preset: str) -> dict[str, list[list[str]]]:
        client = self.connection.client
        stored = self.connection.run(lambda: client.hgetall(_key(preset, "recent")))
        return {k.decode(): orjson.loads(v) for k, v in stored.items()}

    def seat(self, preset: str, game_id: str, handles: Sequence[str]) -> None:
        recent = self.recent(preset)  # the lease holder is the only writer of these
        client = self.connection.client

        def write() -> None:
            pipe = client.pipeline(transaction=True)  # one slot
            pipe.hset(_key(preset, "playing"), game_id, orjson.dumps(list(handles)))
            for handle in handles:
                others = [h for h in handles if h != handle]
                tables = [others, *recent.get(handle, [])][:RECENT_TABLES]
                pipe.hset(_key(preset, "recent"), handle, orjson.dumps(tables))
            pipe.execute()

        self.connection.run(write)

    def ended(self, preset: str, game_ids: Sequence[str]) -> None:
        if game_ids:
            client = self.connection.client
            self.connection.run(lambda: client.hdel(_key(preset, "playing"), *game_ids))
