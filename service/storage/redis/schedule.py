"""The move workers' schedule in Redis, and the webhook deliveries' (the same kind).

``ttt:{moves}:due``, one sorted set (member: a game id; score: its next visit, Unix ms,
integers, so a lease compares exactly), and ``ttt:{moves}:wake``, a list a plan pushes
to and idle workers block on (``BLPOP``), so a move made due is taken at once rather
than at a worker's next poll. Both share the hash tag ``{moves}``: on a Redis Cluster
they live on one shard, and each operation below is one script there. One index across
games is what "which game is due now" needs; at about 130 bytes per game with a clock
or a bot seat, one shard holds millions.

The webhook deliveries' schedule is another of these, ``ttt:{hooks}:due`` and
``ttt:{hooks}:wake`` (member: an account with a delivery waiting, its handle folded):
its own shard, its own workers' wake-ups.
"""

from __future__ import annotations

from typing import Any

from ..schedule import Lease, Schedule
from .connection import RedisConnection

__all__ = ["DUE_KEY", "WAKE_KEY", "RedisSchedule", "schedule_keys"]


def schedule_keys(tag: str) -> tuple[str, str]:
    """The sorted set and the wake-up list of the schedule named ``tag`` (its hash tag)."""
    return f"ttt:{{{tag}}}:due", f"ttt:{{{tag}}}:wake"


DUE_KEY, WAKE_KEY = schedule_keys("moves")
#: Wake-ups kept waiting for a worker (more would wake workers with nothing to take).
WAKES_KEPT = 64

# KEYS: due, wake. ARGV: game id, at ms, wakes kept. Makes the visit sooner (ZADD LT
# adds a new member too) and, if it did, pushes one wake-up. Returns 1 if changed.
PLAN = """
local changed = redis.call('ZADD', KEYS[1], 'LT', 'CH', ARGV[2], ARGV[1])
if changed == 1 then
  redis.call('LPUSH', KEYS[2], '1')
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
end
return changed
"""

# KEYS: due. ARGV: now ms, the lease's end ms. The earliest due game, leased, and when
# it was due ([id, ms]); or nil.
TAKE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, 1)
if #due == 0 then return false end
redis.call('ZADD', KEYS[1], ARGV[2], due[1])
return due
"""

# KEYS: due, wake. ARGV: game id, the lease's end ms, the next visit ms ('' for none),
# '1' to push a wake-up with a next visit, wakes kept. Only while the entry still holds
# the lease: a plan made meanwhile stands. Returns 1 if done.
RELEASE = """
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('ZREM', KEYS[1], ARGV[1])
else
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[1])
  if ARGV[4] == '1' then
    redis.call('LPUSH', KEYS[2], '1')
    redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[5]) - 1)
  end
end
return 1
"""


def _ms(at: float) -> int:
    return round(at * 1000)


class RedisSchedule(Schedule):
    """The schedule named ``tag`` (``moves``: the move workers'; ``hooks``: the webhook
    deliveries'), on the process's shared connection (and, for blocking, a client of its
    own: :meth:`RedisConnection.block`)."""

    def __init__(self, connection: RedisConnection, tag: str = "moves") -> None:
        self.connection = connection
        self.due_key, self.wake_key = schedule_keys(tag)
        client = connection.client
        self._plan = client.register_script(PLAN)
        self._take = client.register_script(TAKE)
        self._release = client.register_script(RELEASE)

    def plan(self, key: str, at: float) -> bool:
        return bool(self.connection.run(lambda: self._plan(
            keys=[self.due_key, self.wake_key], args=[key, _ms(at), WAKES_KEPT])))

    def take(self, now: float, lease_seconds: float) -> Lease | None:
        until = _ms(now + lease_seconds)
        taken = self.connection.run(lambda: self._take(keys=[self.due_key],
                                                       args=[_ms(now), until]))
        if taken is None:
            return None
        key, due = taken
        return Lease(key.decode(), until / 1000, float(due) / 1000)

    def release(self, lease: Lease, at: float | None, wake: bool = False) -> bool:
        return bool(self.connection.run(lambda: self._release(
            keys=[self.due_key, self.wake_key],
            args=[lease.key, _ms(lease.until), "" if at is None else _ms(at),
                  "1" if wake else "0", WAKES_KEPT])))

    def wait(self, timeout: float) -> bool:
        return self.connection.block(
            lambda client, seconds: client.blpop([self.wake_key], timeout=seconds),
            timeout) is not None

    def visits_due(self, now: float) -> tuple[int, float | None]:
        client = self.connection.client

        def read() -> list[Any]:
            pipe = client.pipeline(transaction=False)  # one key: one shard, one trip
            pipe.zcount(self.due_key, "-inf", _ms(now))
            pipe.zrange(self.due_key, 0, 0, withscores=True)
            replies: list[Any] = pipe.execute()  # a reply per command, in order
            return replies

        due, first = self.connection.run(read)
        return int(due), first[0][1] / 1000 if first else None
