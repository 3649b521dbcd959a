"""The Lua scripts of the game store (:mod:`.games`): what one atomic step on Redis does;
and the game's keys they write, and the reading of the state hash back.

Why Lua: Redis runs a script atomically, so "check the version, write state, tokens and
events, renew the TTLs, remember the idempotent reply, keep the record of a game that
just finished, announce the move" happens in one round trip with no other client in
between, which WATCH/MULTI would need two or three round trips and retries for.
"""

from __future__ import annotations

from typing import Any

import orjson

from service.engine import from_dict

from ..games import GameRecord

__all__ = ["CREATE", "GAME_FIELDS", "HANDLED", "SAVE", "game_keys", "record_of"]

#: The state hash's fields a load reads: the state, the seats' token hashes, created, and
#: the effects' cursor (the last event whose effects have run: ``service/play/effects.py``).
GAME_FIELDS = ["s", "t", "c", "x"]


def game_keys(game_id: str) -> tuple[str, str]:
    """The state hash and event stream keys of a game (one hash tag)."""
    return f"ttt:{{{game_id}}}:game", f"ttt:{{{game_id}}}:events"


def record_of(game_id: str, row: list[Any]) -> GameRecord | None:
    """The game from its state hash's :data:`GAME_FIELDS` (``None``: no such game)."""
    blob, tokens, created, handled = row
    if blob is None:
        return None
    return GameRecord(game_id, from_dict(orjson.loads(blob)), tuple(orjson.loads(tokens)),
                      None if created is None else float(created),
                      None if handled is None else int(handled))

# KEYS: game hash. ARGV: the last event handled. The effects' cursor, only forward, only
# on a game that exists (no key without a TTL).
HANDLED = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local x = tonumber(redis.call('HGET', KEYS[1], 'x') or '-1')
if tonumber(ARGV[1]) > x then redis.call('HSET', KEYS[1], 'x', ARGV[1]) end
return 1
"""

# KEYS: game hash, event stream
# ARGV: version, state, tokens, ttl, created (Unix seconds), the effects' cursor, then
# (event id, event) pairs.
CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 's', ARGV[2], 't', ARGV[3], 'c', ARGV[5], 'x', ARGV[6])
for i = 7, #ARGV, 2 do redis.call('XADD', KEYS[2], ARGV[i], 'e', ARGV[i + 1]) end
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
"""

# KEYS: game hash, event stream, record[, reply slot key]
# ARGV: expected version, new version, state, tokens ('' = keep), ttl ('' = keep), reply,
#       reply ttl,
#       the publish command (PUBLISH or SPUBLISH), the game's channel, the reply key id,
#       how many superseded key ids to keep, the record ('' = none), the record's ttl,
#       the effects' cursor ('' = keep), then (event id, event) pairs.
# Returns {0, new version} | {1, current version} | {2, earlier reply} | {3, ''} (no game)
#       | {4, ''} (the key id was superseded in its slot).
# The record is written only if there is none (NX): the move that finished the game
# writes it once, and a record is never replaced.
SAVE = """
local ids = ''
if #KEYS >= 4 then
  local prior = redis.call('GET', KEYS[4])
  if prior then
    local n = #ARGV[10]
    local sep = string.find(prior, '\\n', 1, true)
    local kept = string.sub(prior, 1, sep - 1)
    if string.sub(kept, 1, n) == ARGV[10] then return {2, string.sub(prior, sep + 1)} end
    for i = n + 1, #kept, n do
      if string.sub(kept, i, i + n - 1) == ARGV[10] then return {4, ''} end
    end
    ids = string.sub(kept, 1, n * tonumber(ARGV[11]))
  end
end
local cur = redis.call('HGET', KEYS[1], 'v')
if not cur then return {3, ''} end
if cur ~= ARGV[1] then return {1, cur} end
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], 't', ARGV[4])
else
  redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3])
end
if ARGV[14] ~= '' then redis.call('HSET', KEYS[1], 'x', ARGV[14]) end
for i = 15, #ARGV, 2 do redis.call('XADD', KEYS[2], ARGV[i], 'e', ARGV[i + 1]) end
if ARGV[5] ~= '' then
  redis.call('EXPIRE', KEYS[1], ARGV[5])
  redis.call('EXPIRE', KEYS[2], ARGV[5])
end
if #KEYS >= 4 then
  redis.call('SET', KEYS[4], ARGV[10] .. ids .. '\\n' .. ARGV[6], 'EX', ARGV[7])
end
if ARGV[12] ~= '' then
  redis.call('SET', KEYS[3], ARGV[12], 'EX', ARGV[13], 'NX')
end
redis.call(ARGV[8], ARGV[9], ARGV[2])
return {0, ARGV[2]}
"""
