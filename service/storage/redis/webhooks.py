"""Webhook queues in Redis (why these promises: :mod:`service.storage.webhooks`).

Three keys per account, under the account's hash tag (so on its shard, beside it, and
each operation is one script)::

    ttt:{acct:<h>}:hooks        hash: event id -> "<attempts>|<queued ms>|<JSON body>"
    ttt:{acct:<h>}:hooks:due    sorted set: event id by its next attempt (Unix ms)
    ttt:{acct:<h>}:hooks:order  sorted set: event id by when it was queued (the cap drops
                                the lowest)
    ttt:{acct:<h>}:hooks:hold   string, the holder of the attempt under way (expires with
                                its lease)

Empty, they are gone (Redis deletes an empty hash or sorted set), so an account without
waiting deliveries costs nothing here. The accounts with a delivery due are the webhook
schedule's (``ttt:{hooks}:due``, a :class:`~.schedule.RedisSchedule`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..webhooks import Delivery, WebhookQueue
from .accounts import account_key
from .connection import RedisConnection
from .schedule import _ms

__all__ = ["RedisWebhooks"]

# KEYS: hooks, due, order. ARGV: cap, then (id, record, due ms, queued ms) fours. Adds the
# events not waiting already, then drops the oldest past the cap: {added, dropped}.
_PUSH = """
local added = 0
for i = 2, #ARGV, 4 do
  if redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) == 1 then
    redis.call('ZADD', KEYS[2], ARGV[i + 2], ARGV[i])
    redis.call('ZADD', KEYS[3], ARGV[i + 3], ARGV[i])
    added = added + 1
  end
end
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[1])
if over <= 0 then return {added, 0} end
for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, over - 1)) do
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
end
return {added, over}
"""

# KEYS: hooks, due. The first due: {id, record, due ms}, or nil.
_HEAD = """
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if #first == 0 then return false end
return {first[1], redis.call('HGET', KEYS[1], first[1]), first[2]}
"""

# What done and retry answer: when the next delivery is due (ms), or nil.
_NEXT_DUE = """
local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
if #first == 0 then return false end
return first[2]
"""

# KEYS: hooks, due, order. ARGV: id.
_DONE = """
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
""" + _NEXT_DUE

# KEYS: hooks, due. ARGV: id, attempts, at ms. Only an event still queued.
_RETRY = """
local record = redis.call('HGET', KEYS[1], ARGV[1])
if record then
  local bar = string.find(record, '|', 1, true)
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. string.sub(record, bar))
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
end
""" + _NEXT_DUE


# KEYS: hold. ARGV: holder, ms until the lease ends. Nil if held now, else the ms left of
# the other holder's mark.
_HOLD = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return redis.call('PTTL', KEYS[1])
"""

# KEYS: hold. ARGV: holder. Only its own mark.
_UNHOLD = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
"""


def _seconds(ms: Any) -> float | None:
    return None if ms is None else float(ms) / 1000


class RedisWebhooks(WebhookQueue):
    """The queues, on the process's shared connection."""

    def __init__(self, connection: RedisConnection, cap: int) -> None:
        self.connection = connection
        self.cap = cap
        client = connection.client
        self._push = client.register_script(_PUSH)
        self._head = client.register_script(_HEAD)
        self._done = client.register_script(_DONE)
        self._retry = client.register_script(_RETRY)
        self._hold = client.register_script(_HOLD)
        self._unhold = client.register_script(_UNHOLD)

    @staticmethod
    def _keys(handle: str) -> list[str]:
        return [account_key(handle, "hooks"), account_key(handle, "hooks:due"),
                account_key(handle, "hooks:order")]

    def push(self, handle: str, deliveries: Sequence[Delivery]) -> tuple[int, int]:
        args: list[Any] = [self.cap]
        for d in deliveries:
            args += [d.event_id, f"{d.attempts}|{_ms(d.queued)}|{d.payload}", _ms(d.due),
                     _ms(d.queued)]
        added, dropped = self.connection.run(lambda: self._push(keys=self._keys(handle),
                                                                args=args))
        return int(added), int(dropped)

    def head(self, handle: str) -> Delivery | None:
        found = self.connection.run(lambda: self._head(keys=self._keys(handle)[:2]))
        if not found:
            return None
        event_id, record, due = found
        attempts, queued, payload = record.decode().split("|", 2)
        return Delivery(event_id.decode(), payload, int(attempts), int(queued) / 1000,
                        float(due) / 1000)

    def done(self, handle: str, event_id: str) -> float | None:
        return _seconds(self.connection.run(lambda: self._done(keys=self._keys(handle),
                                                               args=[event_id])))

    def retry(self, handle: str, event_id: str, attempts: int, at: float) -> float | None:
        return _seconds(self.connection.run(lambda: self._retry(
            keys=self._keys(handle)[:2], args=[event_id, attempts, _ms(at)])))

    def hold(self, handle: str, holder: str, now: float, until: float) -> float | None:
        # relative to now (PX), so the workers' clocks need not agree with Redis's
        left = self.connection.run(lambda: self._hold(
            keys=[account_key(handle, "hooks:hold")],
            args=[holder, max(1, _ms(until - now))]))
        return None if left is None else now + max(int(left), 0) / 1000

    def unhold(self, handle: str, holder: str) -> None:
        self.connection.run(lambda: self._unhold(keys=[account_key(handle, "hooks:hold")],
                                                 args=[holder]))

    def clear(self, handle: str) -> int:
        keys, client = self._keys(handle), self.connection.client

        def drop() -> Any:
            pipe = client.pipeline(transaction=True)  # one hash tag: one slot, atomic
            pipe.hlen(keys[0])
            pipe.delete(*keys)
            return pipe.execute()

        waiting, _ = self.connection.run(drop)
        return int(waiting)
