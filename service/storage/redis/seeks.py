"""The seek board in Redis: each pool's seekers, added, held and matched in Lua scripts (why
one step, and which group: :mod:`service.storage.seeks`).

Keys of one *pool* (the seekers of one resolved rule set, player count and ``rated``)
share the hash tag ``{<pool>}``, so on a Redis Cluster a pool lives on one shard and its
scripts may touch all of them::

    ttt:{<pool>}:queue   sorted set, waiting seekers (member: seek key, score: expiry ms)
    ttt:{<pool>}:seeks   hash, seek key -> JSON {name, th (sha256 of its seat token or the
                         account's credential), t (turn clock or null), r (rated), ag (its
                         arrival), h (holds: holder -> [until ms, seen])[, game, seat]};
                         "m:<game id>" -> JSON {rules, names, ths, turn_seconds, rated}: the
                         match record, enough for any of its seekers to create the game;
                         "rules" -> the pool's rules; "arrivals" -> seekers arrived so far
    ttt:{<pool>}:done    sorted set, the matched fields of ``seeks`` (score: when to drop)
    ttt:{<pool>}:moved   pub/sub channel: a match, or a group waiting for its holds, is
                         published on it (the hub's channel of the "game" ``<pool>``, so
                         waiters park on the worker's hub)

and an account's seeks, for its streams to hold: ``ttt:{acct:<handle>}:seeking``, a
sorted set of seek ids (score: expiry ms). Each run of a script drops expired seekers,
seekers whose holds lapsed, and old results, and every key has a TTL, so an idle pool
vanishes. A seeker's seat token is never stored: only its hash.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..accounts import folded
from ..documents import dumps, loads
from ..seeks import Hold, Matching, MatchRecord, SeekBoard, SeekEntry, SeekRecord, Waiter
from .connection import RedisConnection

__all__ = ["RedisSeekBoard"]

# What every script shares. KEYS: queue, seeks, done. ARGV: now ms, seek key, players, game
# id if matched, results kept ms, keys' TTL s, publish command, channel, then each
# script's own. ``match(arrived)`` returns the keys matched (seat order) and the handles of
# the streams a waiting group needs (``arrived``: publish that the group waits).
_MATCH = """
local now = tonumber(ARGV[1])
local function dated()
  for _, z in ipairs({KEYS[1], KEYS[3]}) do
    for _, m in ipairs(redis.call('ZRANGEBYSCORE', z, '-inf', now)) do
      redis.call('HDEL', KEYS[2], m)
    end
    redis.call('ZREMRANGEBYSCORE', z, '-inf', now)
  end
end
local function is_null(v) return v == nil or v == cjson.null end
local function match(arrived)
  local n = tonumber(ARGV[3])
  local groups, order, nulls, seeks = {}, {}, {}, {}
  local found, clock = nil, nil
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    local s = cjson.decode(redis.call('HGET', KEYS[2], m))
    local lapsed = false
    if type(s['h']) == 'table' then
      for _, h in pairs(s['h']) do if h[1] <= now then lapsed = true end end
    end
    if lapsed then
      redis.call('ZREM', KEYS[1], m)
      redis.call('HDEL', KEYS[2], m)
    elseif not found then
      seeks[m] = s
      if is_null(s['t']) then
        nulls[#nulls + 1] = m
        if not groups['none'] then groups['none'] = {}; order[#order + 1] = 'none' end
        for _, k in ipairs(order) do table.insert(groups[k], m) end
      else
        local k = tostring(s['t'])
        if not groups[k] then
          local g = {}
          for i, x in ipairs(nulls) do g[i] = x end
          groups[k] = g
          order[#order + 1] = k
        end
        table.insert(groups[k], m)
      end
      for _, k in ipairs(order) do
        if #groups[k] >= n then found, clock = groups[k], k; break end
      end
    end
  end
  if not found then return {}, {} end
  local newest = 0
  for _, m in ipairs(found) do
    if seeks[m]['ag'] > newest then newest = seeks[m]['ag'] end
  end
  local wake, stale = {}, false
  for _, m in ipairs(found) do
    if type(seeks[m]['h']) == 'table' then
      for id, h in pairs(seeks[m]['h']) do
        if h[2] < newest then
          stale = true
          local handle = string.match(id, '^s%.(.+)%.[^.]+$')
          if handle then wake[#wake + 1] = handle end
        end
      end
    end
  end
  if stale then
    if arrived then redis.call(ARGV[7], ARGV[8], 'wait') end
    return {}, wake
  end
  redis.call('ZREM', KEYS[1], unpack(found))
  local keep = now + tonumber(ARGV[5])
  local names, ths = {}, {}
  for i, m in ipairs(found) do
    local s = seeks[m]
    names[i], ths[i] = s['name'], s['th']
    s['game'], s['seat'] = ARGV[4], i - 1
    redis.call('HSET', KEYS[2], m, cjson.encode(s))
    redis.call('ZADD', KEYS[3], keep, m)
  end
  local rated = 'false'
  if seeks[found[1]]['r'] == true then rated = 'true' end
  local turn = 'null'
  if clock ~= 'none' then turn = clock end
  local record = '{"rules":' .. redis.call('HGET', KEYS[2], 'rules') .. ',"names":' ..
    cjson.encode(names) .. ',"ths":' .. cjson.encode(ths) .. ',"turn_seconds":' .. turn ..
    ',"rated":' .. rated .. '}'
  redis.call('HSET', KEYS[2], 'm:' .. ARGV[4], record)
  redis.call('ZADD', KEYS[3], keep, 'm:' .. ARGV[4])
  redis.call(ARGV[7], ARGV[8], ARGV[4])
  return found, {}
end
local function finish(matched, wake, extra)
  for _, k in ipairs(KEYS) do redis.call('EXPIRE', k, ARGV[6]) end
  return {matched, wake, extra}
end
"""

# ARGV 9..: seek JSON, its expiry ms, rules JSON, holder ('' none), the hold's until ms.
# The first write must be one Redis refuses when full (OOM): Redis checks memory only at
# a script's first write, so a script that starts by deleting would then add anyway.
_ADD = _MATCH + """
local arrivals = redis.call('HINCRBY', KEYS[2], 'arrivals', 1)
local seek = cjson.decode(ARGV[9])
seek['ag'] = arrivals
if ARGV[12] ~= '' then seek['h'] = {[ARGV[12]] = {tonumber(ARGV[13]), arrivals}} end
redis.call('HSET', KEYS[2], ARGV[2], cjson.encode(seek), 'rules', ARGV[11])
dated()
redis.call('ZADD', KEYS[1], ARGV[10], ARGV[2])
local matched, wake = match(true)
return finish(matched, wake, arrivals)
"""

# ARGV 9..: holder, until ms, seen (-1: keep what it saw). Returns extra 0: not waiting.
_HOLD = _MATCH + """
local score = redis.call('ZSCORE', KEYS[1], ARGV[2])
local raw = redis.call('HGET', KEYS[2], ARGV[2])
if not score or tonumber(score) <= now or not raw then return {{}, {}, 0} end
local s = cjson.decode(raw)
if type(s['h']) ~= 'table' then s['h'] = {} end
local seen = tonumber(ARGV[11])
if seen < 0 then
  seen = 0
  if s['h'][ARGV[9]] then seen = s['h'][ARGV[9]][2] end
end
s['h'][ARGV[9]] = {tonumber(ARGV[10]), seen}
redis.call('HSET', KEYS[2], ARGV[2], cjson.encode(s))
dated()
local matched, wake = match(false)
return finish(matched, wake, 1)
"""

# ARGV 9: holder. Ends that hold of a waiting seek.
_RELEASE = _MATCH + """
local raw = redis.call('HGET', KEYS[2], ARGV[2])
if raw and redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  local s = cjson.decode(raw)
  if type(s['h']) == 'table' then s['h'][ARGV[9]] = nil end
  redis.call('HSET', KEYS[2], ARGV[2], cjson.encode(s))
end
dated()
local matched, wake = match(false)
return finish(matched, wake, 1)
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


def _seeking(handle: str) -> str:
    return f"ttt:{{acct:{folded(handle)}}}:seeking"


def _matching(reply: list[Any]) -> Matching:
    matched, wake = reply[0], reply[1]
    return Matching([m.decode() for m in matched], [h.decode() for h in wake])


class RedisSeekBoard(SeekBoard):
    """The seekers of every pool, in the games' Redis (through the shared connection: its
    error mapping and its notification hub)."""

    #: How long an account's index of seeks outlives its newest seek (seconds).
    INDEX_TTL_SECONDS = 3600

    def __init__(self, connection: RedisConnection, *, results_kept_seconds: int) -> None:
        self.connection = connection
        self.results_kept = int(results_kept_seconds)
        client = connection.client
        self._add = client.register_script(_ADD)
        self._hold = client.register_script(_HOLD)
        self._release = client.register_script(_RELEASE)
        self._cancel = client.register_script(_CANCEL)

    def _run(self, script: Any, pool: str, key: str, game_id: str, now: float,
             ttl: int, extra: list[Any]) -> list[Any]:
        args = [round(now * 1000), key, int(pool.rsplit(".", 1)[1]), game_id,
                self.results_kept * 1000, ttl, *self.connection.publish_command(pool), *extra]
        reply: list[Any] = self.connection.run(lambda: script(keys=_keys(pool), args=args))
        return reply

    def add(self, pool: str, key: str, seek: SeekRecord, expires: float, players: int,
            game_id: str, rules_json: bytes, now: float, hold: Hold | None = None) -> Matching:
        assert players == int(pool.rsplit(".", 1)[1]), "a pool's name ends with its players"
        ttl = max(1, int(expires - now) + self.results_kept)
        extra = [dumps(seek), round(expires * 1000), rules_json,
                 "" if hold is None else hold.holder,
                 0 if hold is None else round(hold.until * 1000)]
        return _matching(self._run(self._add, pool, key, game_id, now, ttl, extra))

    def hold(self, pool: str, key: str, hold: Hold, game_id: str, now: float) -> Matching | None:
        seen = -1 if hold.seen is None else hold.seen
        reply = self._run(self._hold, pool, key, game_id, now, self._ttl(hold.until, now),
                          [hold.holder, round(hold.until * 1000), seen])
        return _matching(reply) if reply[2] else None

    def release(self, pool: str, key: str, holder: str, game_id: str, now: float) -> Matching:
        return _matching(self._run(self._release, pool, key, game_id, now, self._ttl(now, now),
                                   [holder]))

    def _ttl(self, until: float, now: float) -> int:
        """A held or released pool's keys outlive any seek of it (the longest a seek waits
        is far less than the results kept)."""
        return max(1, int(until - now) + self.results_kept)

    def get(self, pool: str, key: str) -> SeekEntry:
        queue, seeks, _ = _keys(pool)
        client = self.connection.client

        def read() -> list[Any]:
            pipe = client.pipeline(transaction=False)  # one slot
            pipe.hget(seeks, key)
            pipe.zscore(queue, key)
            pipe.hget(seeks, "arrivals")
            replies: list[Any] = pipe.execute()  # a reply per command, in order
            return replies

        blob, expires, arrivals = self.connection.run(read)
        return SeekEntry(None if blob is None else loads(SeekRecord.from_json, blob),
                         None if expires is None else expires / 1000,
                         int(arrivals or 0))

    def match_record(self, pool: str, game_id: str) -> MatchRecord | None:
        client = self.connection.client
        blob = self.connection.run(lambda: client.hget(_keys(pool)[1], f"m:{game_id}"))
        return None if blob is None else loads(MatchRecord.from_json, blob)

    def cancel(self, pool: str, key: str) -> int:
        return int(self.connection.run(lambda: self._cancel(keys=_keys(pool)[:2], args=[key])))

    @contextmanager
    def watch(self, pool: str) -> Iterator[Waiter]:
        """On the worker's hub: the pool is a "game" there, its matches published on its
        channel by the scripts."""
        with self.connection.hub.watch(pool) as watch:
            yield watch

    def index(self, handle: str, seek_id: str, expires: float) -> None:
        client, key = self.connection.client, _seeking(handle)

        def write() -> None:
            pipe = client.pipeline(transaction=False)  # one slot
            pipe.zadd(key, {seek_id: round(expires * 1000)})
            pipe.expire(key, self.INDEX_TTL_SECONDS)
            pipe.execute()

        self.connection.run(write)

    def indexed(self, handle: str, now: float) -> list[str]:
        # a read only (a stream reads it at every wake): what expired is skipped here and
        # dropped by its reader's unindex, or with the key's TTL
        client, key = self.connection.client, _seeking(handle)
        found = self.connection.run(
            lambda: client.zrangebyscore(key, f"({round(now * 1000)}", "+inf"))
        return [s.decode() for s in found]

    def unindex(self, handle: str, seek_id: str) -> None:
        client = self.connection.client
        self.connection.run(lambda: client.zrem(_seeking(handle), seek_id))
