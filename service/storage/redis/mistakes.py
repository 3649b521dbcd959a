"""The accounts' mistakes in Redis (why an index per account:
:mod:`service.storage.mistakes`)::

    ttt:{acct:<h>}:mistakes   sorted set: entry name (``<game>:<version, 8 digits>``) ->
                              when its game ended (ms)
    ttt:{acct:<h>}:mistake    hash: entry name -> its body (JSON)

Both share the account's hash tag, so one script files a game's entries, replacing the
game's earlier ones and dropping the oldest past the bound, in one step. A page walks
the sorted set from the newest in chunks, reading the bodies of each chunk in one round
trip and keeping those of enough regret, until it has its count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from ..mistakes import MISTAKES_KEPT, FiledMistake, MistakeStore, mistake_member
from .accounts import account_key
from .connection import RedisConnection

__all__ = ["RedisMistakes"]

#: Entries read per round trip while a page is filled.
CHUNK = 100

# KEYS: index, bodies. ARGV: kept, ended ms, game prefix ("<game>:"), then name/body
# pairs. The game's earlier entries (same end, same prefix) go first.
_FILE = """
local earlier = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[2], ARGV[2])
for _, name in ipairs(earlier) do
  if string.sub(name, 1, #ARGV[3]) == ARGV[3] then
    redis.call('ZREM', KEYS[1], name)
    redis.call('HDEL', KEYS[2], name)
  end
end
for i = 4, #ARGV, 2 do
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[i])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
end
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[1])
if over > 0 then
  local gone = redis.call('ZRANGE', KEYS[1], 0, over - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, over - 1)
  redis.call('HDEL', KEYS[2], unpack(gone))
end
return 1
"""


class RedisMistakes(MistakeStore):
    """The accounts' mistakes, on the process's shared connection."""

    def __init__(self, connection: RedisConnection, kept: int = MISTAKES_KEPT) -> None:
        self.connection = connection
        self.kept = kept
        self._file = connection.client.register_script(_FILE)

    def file(self, handle: str, game_id: str, ended_ms: int,
             bodies: Sequence[Mapping[str, Any]]) -> None:
        args: list[Any] = [self.kept, ended_ms, f"{game_id}:"]
        for body in bodies:
            args += [mistake_member(game_id, body["version"]), orjson.dumps(dict(body))]
        self.connection.run(lambda: self._file(
            keys=[account_key(handle, "mistakes"), account_key(handle, "mistake")], args=args))

    def page(self, handle: str, since_ms: int | None, min_regret: float,
             after: tuple[int, str] | None, limit: int) -> list[FiledMistake]:
        index, bodies = account_key(handle, "mistakes"), account_key(handle, "mistake")
        top: float | str = "+inf" if after is None else after[0]
        bottom: float | str = "-inf" if since_ms is None else since_ms
        out: list[FiledMistake] = []
        offset = 0
        while len(out) < limit:
            chunk = self._newest(index, top, bottom, offset)
            offset += len(chunk)
            named = [(m.decode(), int(s)) for m, s in chunk]
            named = [(m, s) for m, s in named if after is None or (s, m) < after]
            raw = self._bodies(bodies, [m for m, _ in named]) if named else []
            for (member, ended), blob in zip(named, raw, strict=True):
                if blob is None:
                    continue
                body = orjson.loads(blob)
                if body["regret"] >= min_regret:
                    out.append(FiledMistake(ended, member, body))
                    if len(out) == limit:
                        break
            if len(chunk) < CHUNK:  # the index's end: no round trip to find it empty
                break
        return out

    def _newest(self, index: str, top: float | str, bottom: float | str, offset: int,
                ) -> list[tuple[bytes, float]]:
        """A chunk of the index, newest first, from ``offset`` on."""
        client = self.connection.client
        chunk: list[tuple[bytes, float]] = self.connection.run(lambda: client.zrevrangebyscore(
            index, top, bottom, start=offset, num=CHUNK, withscores=True))
        return chunk

    def _bodies(self, key: str, names: list[str]) -> list[bytes | None]:
        client = self.connection.client
        raw: list[bytes | None] = self.connection.run(lambda: client.hmget(key, names))
        return raw

    def one(self, handle: str, game_id: str, version: int) -> FiledMistake | None:
        member = mistake_member(game_id, version)
        index, bodies = account_key(handle, "mistakes"), account_key(handle, "mistake")

        def read() -> list[Any]:
            pipe = self.connection.client.pipeline(transaction=False)  # one slot, one trip
            pipe.zscore(index, member)
            pipe.hget(bodies, member)
            replies: list[Any] = pipe.execute()
            return replies

        ended, blob = self.connection.run(read)
        if ended is None or blob is None:
            return None
        return FiledMistake(int(ended), member, orjson.loads(blob))
