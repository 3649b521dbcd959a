"""The seek board in Redis: each pool's seekers, added and matched in one Lua script (why
one step: :mod:`service.storage.seeks`).

Keys of one *pool* (the seekers of one resolved rule set and player count) share the
hash tag ``{<pool>}``, so on a Redis Cluster a pool lives on one shard and its script
may touch all of them::

    ttt:{<pool>}:queue   sorted set, waiting seekers (member: seek key, score: expiry ms)
    ttt:{<pool>}:seeks   hash, seek key -> JSON {name, th (sha256 of its seat token)[, game,
                         seat]}; and "m:<game id>" -> JSON {rules, names, ths}: the match
                         record, enough for any of its seekers to create the game
    ttt:{<pool>}:done    sorted set, the matched fields of ``seeks`` (score: when to drop)
    ttt:{<pool>}:moved   pub/sub channel: a match is published on it (the hub's channel of
                         the "game" ``<pool>``, so waiters park on the worker's hub)

Each run of the script drops expired seekers and old results, and every key has
a TTL, so an idle pool vanishes. A seeker's seat token is never stored: only its hash
(the token is a random secret made when the seek is opened, shown only to its seeker).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson

from ..seeks import SeekBoard, Waiter
from .connection import RedisConnection

__all__ = ["RedisSeekBoard"]

# KEYS: queue, seeks, done
# ARGV: now ms, seek key, seek JSON, its expiry ms, players, game id if matched, rules JSON,
#       results kept ms, keys' TTL s, publish command, channel
# Returns the seek keys matched, in seat order (empty: the seeker waits).
_SEEK = """
local now = tonumber(ARGV[1])
-- the first write must be one Redis refuses when full (OOM): Redis checks memory only
-- at a script's first write, so a script that starts by deleting would then add anyway
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
for _, z in ipairs({KEYS[1], KEYS[3]}) do
  for _, m in ipairs(redis.call('ZRANGEBYSCORE', z, '-inf', now)) do
    redis.call('HDEL', KEYS[2], m)
  end
  redis.call('ZREMRANGEBYSCORE', z, '-inf', now)
end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[2])
local n = tonumber(ARGV[5])
local members = {}
if redis.call('ZCARD', KEYS[1]) >= n then
  members = redis.call('ZRANGE', KEYS[1], 0, n - 1)
  redis.call('ZREM', KEYS[1], unpack(members))
  local keep = now + tonumber(ARGV[8])
  local names, ths = {}, {}
  for i, m in ipairs(members) do
    local seek = cjson.decode(redis.call('HGET', KEYS[2], m))
    names[i], ths[i] = seek['name'], seek['th']
    seek['game'], seek['seat'] = ARGV[6], i - 1
    redis.call('HSET', KEYS[2], m, cjson.encode(seek))
    redis.call('ZADD', KEYS[3], keep, m)
  end
  local record = '{"rules":' .. ARGV[7] .. ',"names":' .. cjson.encode(names) ..
    ',"ths":' .. cjson.encode(ths) .. '}'
  redis.call('HSET', KEYS[2], 'm:' .. ARGV[6], record)
  redis.call('ZADD', KEYS[3], keep, 'm:' .. ARGV[6])
  redis.call(ARGV[10], ARGV[11], ARGV[6])
end
for _, k in ipairs(KEYS) do redis.call('EXPIRE', k, ARGV[9]) end
return members
"""

# KEYS: queue, seeks. ARGV: seek key. Returns 1 removed, 2 already matched, 0 no such seek.
_CANCEL = """
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 1
end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 2 end
return 0
"""


def _keys(pool: str) -> list[str]:
    return [f"ttt:{{{pool}}}:queue", f"ttt:{{{pool}}}:seeks", f"ttt:{{{pool}}}:done"]


class RedisSeekBoard(SeekBoard):
    """The seekers of every pool, in the games' Redis (through the shared connection: its
    error mapping and its notification hub)."""

    def __init__(self, connection: RedisConnection, *, results_kept_seconds: int) -> None:
        self.connection = connection
        self.results_kept = int(results_kept_seconds)
        self._seek = connection.client.register_script(_SEEK)
        self._cancel = connection.client.register_script(_CANCEL)

    def add(self, pool: str, key: str, seek: dict[str, Any], expires: float, players: int,
            game_id: str, rules_json: bytes, now: float) -> list[str]:
        ttl = max(1, int(expires - now) + self.results_kept)
        args = [round(now * 1000), key, orjson.dumps(seek), round(expires * 1000), players,
                game_id, rules_json, self.results_kept * 1000, ttl,
                *self.connection.publish_command(pool)]
        members = self.connection.run(lambda: self._seek(keys=_keys(pool), args=args))
        return [m.decode() for m in members]

    def get(self, pool: str, key: str) -> tuple[dict[str, Any] | None, float | None]:
        queue, seeks, _ = _keys(pool)
        client = self.connection.client

        def read() -> list[Any]:
            pipe = client.pipeline(transaction=False)  # one slot
            pipe.hget(seeks, key)
            pipe.zscore(queue, key)
            replies: list[Any] = pipe.execute()  # a reply per command, in order
            return replies

        blob, expires = self.connection.run(read)
        return (None if blob is None else orjson.loads(blob),
                None if expires is None else expires / 1000)

    def match_record(self, pool: str, game_id: str) -> dict[str, Any] | None:
        client = self.connection.client
        blob = self.connection.run(lambda: client.hget(_keys(pool)[1], f"m:{game_id}"))
        return None if blob is None else orjson.loads(blob)

    def cancel(self, pool: str, key: str) -> int:
        return int(self.connection.run(lambda: self._cancel(keys=_keys(pool)[:2], args=[key])))

    @contextmanager
    def watch(self, pool: str) -> Iterator[Waiter]:
        """On the worker's hub: the pool is a "game" there, its matches published on its
        channel by the add script."""
        with self.connection.hub.watch(pool) as watch:
            yield watch
