"""Ratings in Redis (why these keys and promises: :mod:`service.storage.ratings`)::

    ttt:{ratings}:queue     sorted set, the rated games to apply (score: the order queued)
    ttt:{ratings}:seq       the last order given
    ttt:{ratings}:done      sorted set, games applied within the last day (score: when, ms)
    ttt:{ratings}:computed  hash, game id -> its new ratings (JSON), until it is done
    ttt:{ratings}:wake      list, one entry a waiting rating worker to wake
    ttt:{ratings}:aside     hash, game id -> why it could not be rated (JSON), until retried
    ttt:{pair:<preset>:<a>|<b>}:rated  sorted set, the pair's rated games (score: when, ms)
    ttt:{acct:<h>}:ratings  hash, preset -> the account's rating (JSON)
    ttt:{acct:<h>}:rated    hash, game id -> preset: the games applied to the account
    ttt:{acct:<h>}:history:<preset>  list, one point (JSON) per rated game, oldest first
    ttt:{lb:<preset>:<bots|humans>}:board  sorted set, handle -> rating

The queue's keys share ``{ratings}`` (one shard: each queue step is one script there), an
account's keys its own tag (one script applies a game to it), each board its own.
"""

from __future__ import annotations

from ..documents import dumps, loads
from ..ratings import HistoryPoint, RatingResult, RatingStore, SetAside, StoredRating
from .accounts import account_key
from .connection import RedisConnection

__all__ = ["RedisRatings"]

_QUEUE, _SEQ, _DONE = "ttt:{ratings}:queue", "ttt:{ratings}:seq", "ttt:{ratings}:done"
_COMPUTED, _WAKE = "ttt:{ratings}:computed", "ttt:{ratings}:wake"
_ASIDE = "ttt:{ratings}:aside"
_DAY_MS = 86_400_000

# KEYS: queue, seq, done, wake. ARGV: game id. Queues it once: 1 queued, 0 known.
_ENQUEUE = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) or redis.call('ZSCORE', KEYS[3], ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], redis.call('INCR', KEYS[2]), ARGV[1])
redis.call('LPUSH', KEYS[4], '1')
redis.call('LTRIM', KEYS[4], 0, 0)
return 1
"""

# KEYS: computed. ARGV: game id, JSON. The stored computation (this one if none was).
_COMPUTE_ONCE = """
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
return redis.call('HGET', KEYS[1], ARGV[1])
"""

# KEYS: queue, computed, done. ARGV: game id, now (ms), a day (ms).
_DONE_SCRIPT = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))
"""

# KEYS: ratings, rated, history. ARGV: preset, game id, rating JSON, point JSON.
_APPLY = """
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('RPUSH', KEYS[3], ARGV[4])
return 1
"""


# KEYS: queue, aside. ARGV: game id, why (JSON). The computation, if any, is kept: a
# retry applies the same numbers to the accounts that have not had them.
_SET_ASIDE = """
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
"""

# KEYS: aside, queue, seq, wake. ARGV: game id. Back on the queue's end: 1, or 0 if it
# was not aside.
_RETRY = """
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1])
redis.call('LPUSH', KEYS[4], '1')
redis.call('LTRIM', KEYS[4], 0, 0)
return 1
"""

# KEYS: the pair's set. ARGV: game id, now ms, window ms, limit. nil if counted (or
# counted before), else the count it has.
_ADMIT_PAIR = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return false end
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[4]) then return n end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return false
"""


def _pair_key(pair: str) -> str:
    return f"ttt:{{pair:{pair}}}:rated"


def _board_key(preset: str, bot: bool) -> str:
    return f"ttt:{{lb:{preset}:{'bots' if bot else 'humans'}}}:board"


class RedisRatings(RatingStore):
    """The ratings, on the process's shared connection."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection
        client = connection.client
        self._enqueue = client.register_script(_ENQUEUE)
        self._compute_once = client.register_script(_COMPUTE_ONCE)
        self._done = client.register_script(_DONE_SCRIPT)
        self._apply = client.register_script(_APPLY)
        self._set_aside = client.register_script(_SET_ASIDE)
        self._retry = client.register_script(_RETRY)
        self._admit_pair = client.register_script(_ADMIT_PAIR)

    def enqueue(self, game_id: str, now: float) -> bool:
        keys = [_QUEUE, _SEQ, _DONE, _WAKE]
        return bool(self.connection.run(lambda: self._enqueue(keys=keys, args=[game_id])))

    def head(self) -> str | None:
        client = self.connection.client
        first = self.connection.run(lambda: client.zrange(_QUEUE, 0, 0))
        return first[0].decode() if first else None

    def queued(self) -> int:
        client = self.connection.client
        return int(self.connection.run(lambda: client.zcard(_QUEUE)))

    def wait(self, seconds: float) -> None:
        self.connection.block(lambda client, timeout: client.blpop([_WAKE], timeout=timeout),
                              seconds)

    def compute_once(self, game_id: str, result: RatingResult) -> RatingResult:
        stored = self.connection.run(lambda: self._compute_once(
            keys=[_COMPUTED], args=[game_id, dumps(result)]))
        return loads(RatingResult.from_json, stored)

    def computed(self, game_id: str) -> RatingResult | None:
        client = self.connection.client
        stored = self.connection.run(lambda: client.hget(_COMPUTED, game_id))
        return None if stored is None else loads(RatingResult.from_json, stored)

    def done(self, game_id: str, now: float) -> None:
        self.connection.run(lambda: self._done(keys=[_QUEUE, _COMPUTED, _DONE],
                                               args=[game_id, round(now * 1000), _DAY_MS]))

    def set_aside(self, game_id: str, why: str, now: float) -> None:
        note = dumps(SetAside(why, now))
        self.connection.run(lambda: self._set_aside(keys=[_QUEUE, _ASIDE],
                                                    args=[game_id, note]))

    def aside(self) -> dict[str, SetAside]:
        client = self.connection.client
        stored = self.connection.run(lambda: client.hgetall(_ASIDE))
        return {k.decode(): loads(SetAside.from_json, v) for k, v in stored.items()}

    def retry(self, game_id: str) -> bool:
        return bool(self.connection.run(lambda: self._retry(
            keys=[_ASIDE, _QUEUE, _SEQ, _WAKE], args=[game_id])))

    def admit_pair(self, pair: str, game_id: str, now: float, window: float,
                   limit: int) -> int | None:
        count = self.connection.run(lambda: self._admit_pair(
            keys=[_pair_key(pair)], args=[game_id, round(now * 1000), round(window * 1000),
                                          limit]))
        return None if count is None else int(count)

    def forget_pair(self, pair: str, game_id: str) -> None:
        client = self.connection.client
        self.connection.run(lambda: client.zrem(_pair_key(pair), game_id))

    def pair_count(self, pair: str, now: float, window: float) -> int:
        client = self.connection.client
        since = round((now - window) * 1000)
        return int(self.connection.run(lambda: client.zcount(_pair_key(pair), f"({since}",
                                                            "+inf")))

    def ratings(self, handle: str) -> dict[str, StoredRating]:
        client = self.connection.client
        stored = self.connection.run(lambda: client.hgetall(account_key(handle, "ratings")))
        return {preset.decode(): loads(StoredRating.from_json, value)
                for preset, value in stored.items()}

    def apply(self, handle: str, preset: str, game_id: str, rating: StoredRating,
              point: HistoryPoint) -> bool:
        keys = [account_key(handle, "ratings"), account_key(handle, "rated"),
                account_key(handle, f"history:{preset}")]
        args = [preset, game_id, dumps(rating), dumps(point)]
        return bool(self.connection.run(lambda: self._apply(keys=keys, args=args)))

    def history(self, handle: str, preset: str, start: int, count: int) -> list[HistoryPoint]:
        client, key = self.connection.client, account_key(handle, f"history:{preset}")
        points = self.connection.run(lambda: client.lrange(key, start, start + count - 1))
        return [loads(HistoryPoint.from_json, p) for p in points]

    def latest(self, handle: str, preset: str, count: int) -> list[HistoryPoint]:
        client, key = self.connection.client, account_key(handle, f"history:{preset}")
        points = self.connection.run(lambda: client.lrange(key, -count, -1))
        return [loads(HistoryPoint.from_json, p) for p in points]

    def rank(self, preset: str, bot: bool, handle: str, rating: float | None) -> None:
        client, key = self.connection.client, _board_key(preset, bot)
        if rating is None:
            self.connection.run(lambda: client.zrem(key, handle))
        else:
            self.connection.run(lambda: client.zadd(key, {handle: rating}))

    def board(self, preset: str, bot: bool, start: int, count: int) -> list[str]:
        client = self.connection.client
        handles = self.connection.run(
            lambda: client.zrevrange(_board_key(preset, bot), start, start + count - 1))
        return [h.decode() for h in handles]
