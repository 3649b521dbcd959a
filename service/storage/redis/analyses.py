"""Analyses in Redis (why a stream with a consumer group: :mod:`service.storage.analyses`)::

    ttt:{analysis}:queue     stream, one entry per queued analysis (fields ``game``,
                             ``requester``), read by the consumer group ``analysers``
    ttt:{analysis}:heads     hash: requester -> its entry in the stream (waiting or taken)
    ttt:{analysis}:behind:<requester>
                             list: the requester's games waiting behind its head
    ttt:{analysis}:waiting   integer: those lists' lengths summed (what ``queued`` adds)
    ttt:{<id>}:analysis      hash: status, progress, queued_at, worker and beat (while
                             running), result (once done); expires with the record
    ttt:{acct:<handle>}:auto_analyses
                             sorted set: the account's automatic analyses of the last
                             day, game id by when counted (ms); expires a day after the last

A change of status or progress is published on the game's channel
(``ttt:{<id>}:moved``, :mod:`service.storage.hub`), so the game's streams wake and send
it, as they do a move. The game's hash shares the game's tag with its record, so one
script reads the record's remaining time and gives it to the analysis. The queue's keys
share one tag, on one shard: entries are a few bytes, and ``ANALYSIS_QUEUE_MAX`` bounds
them; so one script admits a request (the bound checked), and one acknowledges an entry
done with and lets its requester's next request in (why:
:mod:`service.storage.analyses`).
"""

from __future__ import annotations

from typing import Any

import redis

from ..analyses import (
    QUOTA_WINDOW_SECONDS,
    AnalysisState,
    AnalysisStore,
    QueuedAnalysis,
    QueueFullError,
)
from .accounts import account_key
from .connection import RedisConnection
from .records import record_key

__all__ = ["RedisAnalyses", "analysis_key"]

QUEUE, GROUP = "ttt:{analysis}:queue", "analysers"
HEADS, WAITING = "ttt:{analysis}:heads", "ttt:{analysis}:waiting"
#: How long an analysis' state lives when its record's time cannot be read (a day).
_FALLBACK_TTL_MS = 86_400_000


def analysis_key(game_id: str) -> str:
    """The key of a game's analysis (the game's hash tag, beside its record)."""
    return f"ttt:{{{game_id}}}:analysis"


def behind_key(requester: str) -> str:
    """The list of a requester's games waiting behind its head (the queue's tag)."""
    return f"ttt:{{analysis}}:behind:{requester}"


# KEYS: queue, heads, behind, waiting. ARGV: game, requester, max queued. 0: the queue is
# full; 1: queued, as the requester's head when it has none in the stream, else behind it.
_ENQUEUE = """
local waiting = tonumber(redis.call('GET', KEYS[4]) or '0')
if redis.call('XLEN', KEYS[1]) + waiting >= tonumber(ARGV[3]) then return 0 end
redis.call('RPUSH', KEYS[3], ARGV[1])
redis.call('INCR', KEYS[4])
local head = redis.call('HGET', KEYS[2], ARGV[2])
if head and #redis.call('XRANGE', KEYS[1], head, head) > 0 then return 1 end
-- no head, or one gone from the stream untaken: the first waiting leads
local game = redis.call('LPOP', KEYS[3])
redis.call('DECR', KEYS[4])
local id = redis.call('XADD', KEYS[1], '*', 'game', game, 'requester', ARGV[2])
redis.call('HSET', KEYS[2], ARGV[2], id)
return 1
"""

# KEYS: queue, heads, behind, waiting. ARGV: requester ('' for an entry queued before
# requesters were kept), the entry done with, the group. Acknowledged and deleted, and if
# it was the requester's head, its next game joins the stream (at the back) as its head,
# in one step (a worker lost between the two would strand the requester's others); a
# second call for the same entry changes nothing.
_ACK = """
redis.call('XACK', KEYS[1], ARGV[3], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
if ARGV[1] == '' or redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[2] then return 0 end
local game = redis.call('LPOP', KEYS[3])
if not game then
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 0
end
redis.call('DECR', KEYS[4])
local id = redis.call('XADD', KEYS[1], '*', 'game', game, 'requester', ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], id)
return 1
"""


# KEYS: analysis, record. ARGV: now, fallback ttl (ms). Marks it queued unless it has a
# state: nil when marked, else {status, progress}.
_MARK = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return redis.call('HMGET', KEYS[1], 'status', 'progress')
end
redis.call('HSET', KEYS[1], 'status', 'queued', 'progress', '0', 'queued_at', ARGV[1])
local ttl = redis.call('PTTL', KEYS[2])
redis.call('PEXPIRE', KEYS[1], ttl > 0 and ttl or tonumber(ARGV[2]))
return false
"""

# KEYS: analysis, record. ARGV: worker, now, stale seconds, fallback ttl (ms), publish
# command, channel. 1: run it.
_START = """
local status = redis.call('HGET', KEYS[1], 'status')
if status == 'done' then return 0 end
if status == 'running' and redis.call('HGET', KEYS[1], 'worker') ~= ARGV[1] then
  local beat = tonumber(redis.call('HGET', KEYS[1], 'beat') or '0')
  if tonumber(ARGV[2]) - beat < tonumber(ARGV[3]) then return 0 end
end
if not status then
  local ttl = redis.call('PTTL', KEYS[2])
  redis.call('HSET', KEYS[1], 'queued_at', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ttl > 0 and ttl or tonumber(ARGV[4]))
end
redis.call('HSET', KEYS[1], 'status', 'running', 'progress', '0', 'worker', ARGV[1],
           'beat', ARGV[2])
redis.call(ARGV[5], ARGV[6], 'analysis')
return 1
"""

# KEYS: analysis. ARGV: progress, now, publish command, channel. Only on a state that
# still exists (no TTL-less key).
_PROGRESS = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'progress', ARGV[1], 'beat', ARGV[2])
  redis.call(ARGV[3], ARGV[4], 'analysis')
end
"""

# KEYS: analysis. ARGV: result, publish command, channel.
_FINISH = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'status', 'done', 'progress', '1', 'result', ARGV[1])
  redis.call('HDEL', KEYS[1], 'worker', 'beat')
  redis.call(ARGV[2], ARGV[3], 'analysis')
end
"""


# KEYS: the account's automatic analyses. ARGV: game, now (ms), window (ms), most. 1: within
# the quota (counted now, or already), 0: past it (nothing counted). One step: two effects
# racing for the last place cannot both have it.
_CHARGE = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[2]) - tonumber(ARGV[3]))
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 1 end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""
_WINDOW_MS = QUOTA_WINDOW_SECONDS * 1000


def _state(status: Any, progress: Any, result: Any = None) -> AnalysisState:
    return AnalysisState(status.decode(), float(progress or 0), result)


class RedisAnalyses(AnalysisStore):
    """The analyses, on the process's connection (a worker's blocking read on a client
    of its own: :meth:`RedisConnection.block`)."""

    def __init__(self, connection: RedisConnection, auto_per_day: int,
                 max_queued: int) -> None:
        self.connection = connection
        self.auto_per_day = auto_per_day
        self.max_queued = max_queued
        client = connection.client
        self._charge = client.register_script(_CHARGE)
        self._mark = client.register_script(_MARK)
        self._enqueue = client.register_script(_ENQUEUE)
        self._ack = client.register_script(_ACK)
        self._start = client.register_script(_START)
        self._progress = client.register_script(_PROGRESS)
        self._finish = client.register_script(_FINISH)
        self._group_made = False

    def _group(self) -> None:
        """The consumer group, made with the stream the first time (it stays)."""
        if self._group_made:
            return
        try:
            self.connection.run(lambda: self.connection.client.xgroup_create(
                QUEUE, GROUP, id="0", mkstream=True))
        except redis.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        self._group_made = True

    def load(self, game_id: str) -> AnalysisState | None:
        client = self.connection.client
        row = self.connection.run(lambda: client.hmget(
            analysis_key(game_id), ["status", "progress", "result"]))
        return None if row[0] is None else _state(*row)

    def request(self, game_id: str, now: float, max_queued: int, requester: str,
                ) -> AnalysisState | None:
        known = self.load(game_id)
        if known is not None:
            return known
        self._group()
        # the entry first: a request that dies between the two leaves an entry a worker
        # runs (it marks the state itself), never a state no worker will ever take
        queued = self.connection.run(lambda: self._enqueue(
            keys=[QUEUE, HEADS, behind_key(requester), WAITING],
            args=[game_id, requester, max_queued]))
        if not queued:
            raise QueueFullError
        row = self.connection.run(lambda: self._mark(
            keys=[analysis_key(game_id), record_key(game_id)], args=[now, _FALLBACK_TTL_MS]))
        return None if row is None else _state(*row)  # a state: it raced another request

    def take(self, worker: str, block_seconds: float, stale_seconds: float,
             ) -> QueuedAnalysis | None:
        self._group()
        client = self.connection.client
        claimed = self.connection.run(lambda: client.xautoclaim(
            QUEUE, GROUP, worker, min_idle_time=round(stale_seconds * 1000), start_id="0-0",
            count=1))
        entries = claimed[1]
        if not entries:
            read = self.connection.block(lambda blocking, wait: blocking.xreadgroup(
                GROUP, worker, {QUEUE: ">"}, count=1, block=round(wait * 1000)), block_seconds)
            entries = read[0][1] if read else []
        for entry, fields in entries:
            if not fields:  # an entry deleted while pending comes back without its fields
                self.ack(QueuedAnalysis(entry.decode(), ""))
                continue
            requester = fields.get(b"requester")
            taken = QueuedAnalysis(entry.decode(), fields[b"game"].decode(),
                                   requester.decode() if requester is not None else "")
            return taken
        return None

    def start(self, game_id: str, worker: str, now: float, stale_seconds: float) -> bool:
        return bool(self.connection.run(lambda: self._start(
            keys=[analysis_key(game_id), record_key(game_id)],
            args=[worker, now, stale_seconds, _FALLBACK_TTL_MS,
                  *self.connection.publish_command(game_id)])))

    def progress(self, game_id: str, fraction: float, now: float) -> None:
        self.connection.run(lambda: self._progress(
            keys=[analysis_key(game_id)],
            args=[round(fraction, 4), now, *self.connection.publish_command(game_id)]))

    def finish(self, game_id: str, result: bytes) -> None:
        self.connection.run(lambda: self._finish(
            keys=[analysis_key(game_id)],
            args=[result, *self.connection.publish_command(game_id)]))

    def drop(self, game_id: str) -> None:
        client = self.connection.client
        self.connection.run(lambda: client.delete(analysis_key(game_id)))

    def ack(self, taken: QueuedAnalysis) -> None:
        self.connection.run(lambda: self._ack(
            keys=[QUEUE, HEADS, behind_key(taken.requester), WAITING],
            args=[taken.requester, taken.entry, GROUP]))

    def charge(self, handle: str, game_id: str, now: float) -> bool:
        return bool(self.connection.run(lambda: self._charge(
            keys=[account_key(handle, "auto_analyses")],
            args=[game_id, round(now * 1000), _WINDOW_MS, self.auto_per_day])))

    def refund(self, handle: str, game_id: str) -> None:
        client = self.connection.client
        self.connection.run(lambda: client.zrem(account_key(handle, "auto_analyses"), game_id))

    def charged(self, handle: str, now: float) -> int:
        client = self.connection.client
        return int(self.connection.run(lambda: client.zcount(
            account_key(handle, "auto_analyses"), f"({round(now * 1000) - _WINDOW_MS}", "+inf")))

    def queued(self) -> int:
        def both() -> tuple[int, bytes | None]:
            pipe = self.connection.client.pipeline(transaction=False)
            pipe.xlen(QUEUE)
            pipe.get(WAITING)
            length, waiting = pipe.execute()
            return int(length), waiting

        length, waiting = self.connection.run(both)
        return length + int(waiting or 0)
