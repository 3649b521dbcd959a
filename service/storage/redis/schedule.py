"""The move workers' schedule in Redis, and the webhook deliveries' (the same kind).

``ttt:{moves}:due``, one sorted set (member: a game id; score: its next visit, Unix ms,
integers, so a lease compares exactly), and ``ttt:{moves}:wake``, a list a plan pushes
to and idle workers block on (``BLPOP``), so a move made due is taken at once rather
than at a worker's next poll; the heavy lane's are ``ttt:{moves}:heavy:due`` and
``ttt:{moves}:heavy:wake``. All share the hash tag ``{moves}``: on a Redis Cluster they
live on one shard, each operation below is one script there, and a worker serving both
lanes blocks on both wake-up lists in one ``BLPOP``. One index across
games is what "which game is due now" needs; at about 130 bytes per game with a clock
or a bot seat, one shard holds millions.

The webhook deliveries' schedule is another of these, ``ttt:{hooks}:due`` and
``ttt:{hooks}:wake`` (member: an account with a delivery waiting, its handle folded):
its own shard, its own workers' wake-ups.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..schedule import LANES, LIGHT, WAKES_KEPT, Lease, Schedule
from .connection import RedisConnection

__all__ = ["DUE_KEY", "WAKES_KEPT", "WAKE_KEY", "RedisSchedule", "schedule_keys"]


def schedule_keys(tag: str, lane: str = LIGHT) -> tuple[str, str]:
    """The sorted set and the wake-up list of ``lane`` of the schedule named ``tag`` (its
    hash tag)."""
    lane_part = "" if lane == LIGHT else f"{lane}:"
    return f"ttt:{{{tag}}}:{lane_part}due", f"ttt:{{{tag}}}:{lane_part}wake"


DUE_KEY, WAKE_KEY = schedule_keys("moves")

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

# KEYS: the due sets of the lanes taken from. ARGV: now ms, the lease's end ms. The
# earliest due game of any of them, leased, with when it was due and the index of its
# lane's key ([id, ms, i]); or nil.
TAKE = """
local best, at, lane = nil, nil, 0
for i, key in ipairs(KEYS) do
  local due = redis.call('ZRANGEBYSCORE', key, '-inf', ARGV[1], 'WITHSCORES', 'LIMIT', 0, 1)
  if #due > 0 and (at == nil or tonumber(due[2]) < at) then
    best, at, lane = due[1], tonumber(due[2]), i
  end
end
if best == nil then return false end
redis.call('ZADD', KEYS[lane], ARGV[2], best)
return {best, tostring(at), lane}
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
        self.keys = {lane: schedule_keys(tag, lane) for lane in LANES}
        self.due_key, self.wake_key = self.keys[LIGHT]
        client = connection.client
        self._plan = client.register_script(PLAN)
        self._take = client.register_script(TAKE)
        self._release = client.register_script(RELEASE)

    def plan(self, key: str, at: float, lane: str = LIGHT) -> bool:
        return bool(self.connection.run(lambda: self._plan(
            keys=list(self.keys[lane]), args=[key, _ms(at), WAKES_KEPT])))

    def take(self, now: float, lease_seconds: float,
             lanes: Sequence[str] = LANES) -> Lease | None:
        until = _ms(now + lease_seconds)
        taken = self.connection.run(lambda: self._take(
            keys=[self.keys[lane][0] for lane in lanes], args=[_ms(now), until]))
        if taken is None:
            return None
        key, due, index = taken
        return Lease(key.decode(), until / 1000, float(due) / 1000, lanes[int(index) - 1])

    def release(self, lease: Lease, at: float | None, wake: bool = False) -> bool:
        return bool(self.connection.run(lambda: self._release(
            keys=list(self.keys[lease.lane]),
            args=[lease.key, _ms(lease.until), "" if at is None else _ms(at),
                  "1" if wake else "0", WAKES_KEPT])))

    def wait(self, timeout: float, lanes: Sequence[str] = LANES) -> bool:
        wakes = [self.keys[lane][1] for lane in lanes]
        return self.connection.block(
            lambda client, seconds: client.blpop(wakes, timeout=seconds), timeout) is not None

    def visits_due(self, now: float, lanes: Sequence[str] = LANES
                   ) -> tuple[int, float | None]:
        client = self.connection.client

        def read() -> list[Any]:
            pipe = client.pipeline(transaction=False)  # one hash tag: one shard, one trip
            for lane in lanes:
                pipe.zcount(self.keys[lane][0], "-inf", _ms(now))
                pipe.zrange(self.keys[lane][0], 0, 0, withscores=True)
            replies: list[Any] = pipe.execute()  # a reply per command, in order
            return replies

        replies = self.connection.run(read)
        due = sum(int(n) for n in replies[0::2])
        firsts = [first[0][1] / 1000 for first in replies[1::2] if first]
        return due, min(firsts, default=None)
