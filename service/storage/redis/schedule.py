"""The sweeper's schedule in Redis.

One sorted set, ``ttt:{sweep}:visits`` (member: a game id; score: when to look at it,
Unix ms). Why one key: the sweeper asks "which games are due now" across every game,
which no per-game key slot can answer; on a Redis Cluster it lives on one shard, one
entry (about 130 bytes) per game with a clock or a bot seat. Taking is one script, so
two sweepers never take the same game within a lease: each taken entry is pushed a
lease later in the same step, and comes due again if its sweeper dies before it plans
the next visit.
"""

from __future__ import annotations

from typing import Any

from ..schedule import Schedule
from .connection import RedisConnection

__all__ = ["TAKE_VISITS", "VISITS_KEY", "RedisSchedule"]

VISITS_KEY = "ttt:{sweep}:visits"

# KEYS: the schedule. ARGV: now ms, count, the lease's end ms. Returns the game ids taken.
TAKE_VISITS = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
for _, game_id in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[3], game_id) end
return due
"""


class RedisSchedule(Schedule):
    """The schedule, on the process's shared connection."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection
        self._take_visits = connection.client.register_script(TAKE_VISITS)

    def plan_visit(self, game_id: str, at: float) -> None:
        client = self.connection.client
        self.connection.run(lambda: client.zadd(VISITS_KEY, {game_id: round(at * 1000)}))

    def take_visits(self, now: float, count: int, lease_seconds: float) -> list[str]:
        taken = self.connection.run(lambda: self._take_visits(
            keys=[VISITS_KEY],
            args=[round(now * 1000), count, round((now + lease_seconds) * 1000)]))
        return [g.decode() for g in taken]

    def drop_visit(self, game_id: str) -> None:
        client = self.connection.client
        self.connection.run(lambda: client.zrem(VISITS_KEY, game_id))

    def visits_due(self, now: float) -> tuple[int, float | None]:
        client = self.connection.client

        def read() -> list[Any]:
            pipe = client.pipeline(transaction=False)  # one key: one shard, one trip
            pipe.zcount(VISITS_KEY, "-inf", round(now * 1000))
            pipe.zrange(VISITS_KEY, 0, 0, withscores=True)
            return pipe.execute()  # type: ignore[no-any-return]

        due, first = self.connection.run(read)
        return int(due), first[0][1] / 1000 if first else None
