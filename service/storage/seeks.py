"""Matchmaking's storage: the seekers waiting for the same game, matched in one Lua script.

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

Why one script does add-and-match: with the seeker added, the oldest ``players`` seekers
taken off the queue and each given its game and seat, all in one atomic step, two
racing seekers can never both take a third, and no seeker is taken without being told:
no seeker is placed twice and none is lost. The script only writes the match record;
the game is created by the request that matched, or by any seeker that finds it
missing (so a worker dying between the two loses no game).

Each run of the script drops expired seekers and old results, and every key has
a TTL, so an idle pool vanishes. A seeker's seat token is never stored: only its hash
(the token is derived from the seek's secret id, which only the seeker holds).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson

from .base import GameWatch
from .redis_store import RedisGameStore

__all__ = ["SeekBoard"]

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


class SeekBoard:
    """The seekers of every pool, in the games' Redis (through ``store``'s client, its
    error mapping and its notification hub)."""

    def __init__(self, store: RedisGameStore, *, results_kept_seconds: int) -> None:
        self.store = store
        self.results_kept = int(results_kept_seconds)
        self._seek = store.client.register_script(_SEEK)
        self._cancel = store.client.register_script(_CANCEL)

    def add(self, pool: str, key: str, seek: dict[str, Any], expires: float, players: int,
            game_id: str, rules_json: bytes, now: float) -> list[str]:
        """Add a seeker and match if the pool now holds ``players``: the matched seek keys
        in seat order, all given ``game_id`` (empty: nobody was matched)."""
        ttl = max(1, int(expires - now) + self.results_kept)
        args = [round(now * 1000), key, orjson.dumps(seek), round(expires * 1000), players,
                game_id, rules_json, self.results_kept * 1000, ttl,
                *self.store.publish_command(pool)]
        members = self.store.run(lambda: self._seek(keys=_keys(pool), args=args))
        return [m.decode() for m in members]

    def get(self, pool: str, key: str) -> tuple[dict[str, Any] | None, float | None]:
        """A seek's record and, while it waits, its expiry (Unix seconds)."""
        queue, seeks, _ = _keys(pool)

        def read() -> list[Any]:
            pipe = self.store.client.pipeline(transaction=False)  # one slot
            pipe.hget(seeks, key)
            pipe.zscore(queue, key)
            return pipe.execute()  # type: ignore[no-any-return]

        blob, expires = self.store.run(read)
        return (None if blob is None else orjson.loads(blob),
                None if expires is None else expires / 1000)

    def match_record(self, pool: str, game_id: str) -> dict[str, Any] | None:
        """What the game ``game_id`` of this pool is made of (``None``: dropped)."""
        blob = self.store.run(lambda: self.store.client.hget(_keys(pool)[1], f"m:{game_id}"))
        return None if blob is None else orjson.loads(blob)

    def cancel(self, pool: str, key: str) -> int:
        """Take a waiting seeker off its pool: 1 removed, 2 already matched, 0 unknown."""
        return int(self.store.run(lambda: self._cancel(keys=_keys(pool)[:2], args=[key])))

    @contextmanager
    def watch(self, pool: str) -> Iterator[GameWatch]:
        """Wake on this pool's next match (the pool is a "game" of the worker's hub)."""
        with self.store.watch(pool) as watch:
            yield watch
