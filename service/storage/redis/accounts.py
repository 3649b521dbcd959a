"""Accounts in Redis (why these keys and promises: :mod:`service.storage.accounts`).

Keys of one account share the hash tag ``{acct:<handle folded>}``::

    ttt:{acct:<h>}:account   hash: handle, bot, key (sha256), created, from, hook, secret,
                             closed
    ttt:{acct:<h>}:active    sorted set, the games it plays (score: when it joined, ms)
    ttt:{acct:<h>}:finished  sorted set, its games that are over (score: when they ended;
                             trimmed to a record lifetime as each one ends)
    ttt:{acct:<h>}:notes     stream, one entry per note, entry id "<seq>-0", field n = JSON
    ttt:{acct:<h>}:noted     sorted set, the latest note ids (score: their seq), so a note
                             appended twice is kept once
    ttt:{acct:<h>}:moved     pub/sub channel: every append publishes on it (the hub's
                             channel of the "game" ``acct:<h>``: readers park on the hub)
    ttt:{acct:<h>}:hooks…    its webhook deliveries waiting (webhooks.py)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import orjson

from ..accounts import NOTE_IDS_KEPT, Account, AccountStore, Note, folded
from ..seeks import Waiter
from .connection import RedisConnection

__all__ = ["RedisAccounts", "account_key", "account_topic"]

#: Notes kept in a stream (about: trimmed a node of entries at a time).
NOTES_KEPT = 20_000

def account_topic(handle: str) -> str:
    """The topic of the account's channel (``ttt:{<topic>}:moved``,
    :func:`service.storage.hub.channel_of`), which each append of a note and each wake
    publishes on: what its streams wait on, on a worker's hub or a push process's feed."""
    return f"acct:{folded(handle)}"


# KEYS: notes, noted. ARGV: publish command, channel, notes kept, ids kept, then note id
# and JSON pairs. Appends each note whose id the account has not had lately; the seqs given.
_APPEND = """
local given = {}
for i = 5, #ARGV, 2 do
  if not redis.call('ZSCORE', KEYS[2], ARGV[i]) then
    local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
    local seq = 1
    if #last > 0 then seq = tonumber(string.match(last[1][1], '^(%d+)')) + 1 end
    redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], seq .. '-0', 'n', ARGV[i + 1])
    redis.call('ZADD', KEYS[2], seq, ARGV[i])
    given[#given + 1] = seq
  end
end
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -(tonumber(ARGV[4]) + 1))
if #given > 0 then redis.call(ARGV[1], ARGV[2], given[#given]) end
return given
"""

# KEYS: notes (for its slot). ARGV: publish command, channel. Wakes the stream's readers.
_WAKE = "redis.call(ARGV[1], ARGV[2], '0')"

# KEYS: account. ARGV: field/value pairs. Creates it unless one exists: 1 created, 0 taken.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# KEYS: account. ARGV: field/value pairs. Changes an open account: 1 changed, 0 none.
_UPDATE = """
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HGET', KEYS[1], 'closed') == '1' then
  return 0
end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

_FIELDS = {"handle": "handle", "bot": "bot", "key_hash": "key", "created": "created",
           "challenges_from": "from", "webhook_url": "hook", "webhook_secret": "secret",
           "closed": "closed", "analyse_rated": "auto"}


def account_key(handle: str, what: str) -> str:
    """A key of ``handle``'s account: all share its hash tag (so one shard, one script)."""
    return f"ttt:{{acct:{folded(handle)}}}:{what}"


def _stored(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return "" if value is None else str(value)


def _account(raw: dict[bytes, bytes]) -> Account:
    data = {k.decode(): v.decode() for k, v in raw.items()}
    return Account(handle=data["handle"], bot=data["bot"] == "1", key_hash=data["key"],
                   created=float(data["created"]),
                   challenges_from=data.get("from") or "anyone",
                   webhook_url=data.get("hook") or None,
                   webhook_secret=data.get("secret") or None,
                   closed=data.get("closed") == "1",
                   analyse_rated=data.get("auto") == "1")


# KEYS: the account's active games, its finished ones. ARGV: game id, joined (ms). Added
# unless known (its first time stands) or finished.
_ADD_GAME = """
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
return redis.call('ZADD', KEYS[1], 'NX', ARGV[2], ARGV[1])
"""


class RedisAccounts(AccountStore):
    """The accounts, on the process's shared connection (and its hub)."""

    def __init__(self, connection: RedisConnection, finished_kept_seconds: int) -> None:
        self.connection = connection
        self.finished_kept_ms = finished_kept_seconds * 1000
        client = connection.client
        self._append = client.register_script(_APPEND)
        self._create = client.register_script(_CREATE)
        self._update = client.register_script(_UPDATE)
        self._wake = client.register_script(_WAKE)
        self._add_game = client.register_script(_ADD_GAME)

    def _pairs(self, values: Mapping[str, object]) -> list[str]:
        return [x for name, value in values.items()
                for x in (_FIELDS[name], _stored(name, value))]

    def create(self, account: Account) -> bool:
        fields = self._pairs({name: getattr(account, name) for name in _FIELDS})
        return bool(self.connection.run(lambda: self._create(
            keys=[account_key(account.handle, "account")], args=fields)))

    def load(self, handle: str) -> Account | None:
        client = self.connection.client
        raw = self.connection.run(lambda: client.hgetall(account_key(handle, "account")))
        return _account(raw) if raw else None

    def update(self, handle: str, **changes: Any) -> Account | None:
        done = self.connection.run(lambda: self._update(
            keys=[account_key(handle, "account")], args=self._pairs(changes)))
        return self.load(handle) if done else None

    def add_game(self, handle: str, game_id: str, joined: float) -> None:
        self.connection.run(lambda: self._add_game(
            keys=[account_key(handle, "active"), account_key(handle, "finished")],
            args=[game_id, round(joined * 1000)]))

    def finish_game(self, handle: str, game_id: str, ended: float) -> None:
        ended_ms, finished = round(ended * 1000), account_key(handle, "finished")

        def move() -> Any:
            pipe = self.connection.client.pipeline(transaction=True)  # one slot: atomic
            pipe.zrem(account_key(handle, "active"), game_id)
            pipe.zadd(finished, {game_id: ended_ms})
            pipe.zremrangebyscore(finished, "-inf", f"({ended_ms - self.finished_kept_ms}")
            return pipe.execute()
        self.connection.run(move)

    def games(self, handle: str, which: str, before: tuple[float, str] | None,
              count: int) -> list[tuple[str, float]]:
        client, key = self.connection.client, account_key(handle, which)
        top = "+inf" if before is None else round(before[0] * 1000)
        # from the cursor's own score on: the ties the cursor passed already are read
        # again and dropped, a page more at a time while there are more of them than that
        size = count + 50
        out: list[tuple[str, float]] = []
        offset = 0
        while len(out) < count:
            def read(offset: int = offset) -> Any:
                return client.zrevrangebyscore(key, top, "-inf", start=offset, num=size,
                                               withscores=True)
            raw = self.connection.run(read)
            page = [(g.decode(), score / 1000) for g, score in raw]
            out += page if before is None else [(g, t) for g, t in page if (t, g) < before]
            if len(raw) < size:
                break
            offset += size
        return out[:count]

    def finished_time(self, handle: str, game_id: str) -> int | None:
        client = self.connection.client
        score = self.connection.run(lambda: client.zscore(account_key(handle, "finished"),
                                                          game_id))
        return None if score is None else int(score)

    def finished_page(self, handle: str, after: tuple[int, str] | None, count: int, *,
                      newest_first: bool, low: int | None = None,
                      high: int | None = None) -> list[tuple[str, int]]:
        client, key = self.connection.client, account_key(handle, "finished")
        bottom: int | str = "-inf" if low is None else low
        top: int | str = "+inf" if high is None else high
        if after is not None:  # from the cursor's millisecond on: its ties are stepped over
            if newest_first:
                top = after[0] if high is None else min(after[0], high)
            else:
                bottom = after[0] if low is None else max(after[0], low)
        # one more than asked after a cursor: the cursor's own game, read again and dropped
        size = count if after is None else count + 1
        out: list[tuple[str, int]] = []
        offset = 0
        while len(out) < count:
            def read(offset: int = offset) -> Any:
                if newest_first:
                    return client.zrevrangebyscore(key, top, bottom, start=offset, num=size,
                                                   withscores=True)
                return client.zrangebyscore(key, bottom, top, start=offset, num=size,
                                            withscores=True)
            raw = self.connection.run(read)
            page = [(g.decode(), int(score)) for g, score in raw]
            if after is not None:  # ties at the cursor's millisecond up to it: passed already
                page = [(g, t) for g, t in page
                        if ((after[0], after[1]) > (t, g) if newest_first
                            else (t, g) > (after[0], after[1]))]
            out += page
            if len(raw) < size:
                break
            offset += size
        return out[:count]

    def append(self, handle: str, notes: Sequence[tuple[str, Mapping[str, object]]]) -> list[int]:
        if not notes:
            return []
        name = account_topic(handle)
        args: list[Any] = [*self.connection.publish_command(name), NOTES_KEPT, NOTE_IDS_KEPT]
        for note_id, body in notes:
            args += [note_id, orjson.dumps(body).decode()]
        given = self.connection.run(lambda: self._append(
            keys=[account_key(handle, "notes"), account_key(handle, "noted")], args=args))
        return [int(seq) for seq in given]

    def notes(self, handle: str, after: int, limit: int) -> list[Note]:
        client = self.connection.client
        entries = self.connection.run(lambda: client.xrange(
            account_key(handle, "notes"), f"({after}-0", "+", count=limit))
        return [Note(int(entry_id.decode().split("-")[0]), orjson.loads(fields[b"n"]))
                for entry_id, fields in entries]

    def newest(self, handle: str) -> int:
        client = self.connection.client
        last = self.connection.run(lambda: client.xrevrange(account_key(handle, "notes"), count=1))
        return int(last[0][0].decode().split("-")[0]) if last else 0

    @contextmanager
    def watch(self, handle: str) -> Iterator[Waiter]:
        with self.connection.hub.watch(account_topic(handle)) as watch:
            yield watch

    def wake(self, handle: str) -> None:
        # a script, so a Redis Cluster routes the publish to the account's shard by its key
        args = list(self.connection.publish_command(account_topic(handle)))
        self.connection.run(lambda: self._wake(keys=[account_key(handle, "notes")], args=args))
