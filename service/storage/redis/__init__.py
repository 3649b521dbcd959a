"""The Redis implementations of the storage interfaces: the stores the service runs on.

Every store of a process shares one :class:`RedisConnection` (one redis-py client, its
bounded pool, the worker's notification hub). Keys (all of one game share the hash tag
``{<game_id>}``, so a Redis Cluster keeps them on one shard and a Lua script may touch
them together)::

    ttt:{<id>}:game         hash  v = version, s = state (orjson of engine to_dict),
                                  t = JSON list of seat token sha256 hashes (null: open
                                  seat), c = created (Unix seconds)        games.py
    ttt:{<id>}:events       stream, one entry per event, entry id "<seq>-0", field e = event
                                  in the compact form of ``event_codec``   games.py
    ttt:{<id>}:reply:<slot> string, a seat's latest idempotent reply       replies.py
    ttt:{<id>}:record       string, a finished game's record               records.py
    ttt:{<id>}:ticket:<h>   string, a stream ticket                        tickets.py
    ttt:{<id>}:moved        pub/sub channel: every save publishes the new version on it
    ttt:{lobby}:open        sorted sets, the lobby's listings              lobby.py
    ttt:{lobby}:in_progress
    ttt:{moves}:due         sorted set, the move workers' schedule         schedule.py
    ttt:{moves}:wake        list, one entry a waiting worker to wake       schedule.py
    ttt:{<pool>}:…          a matchmaking pool's keys and channel          seeks.py
    ttt:{load:<c>}:bots     hash, a client's games with bot seats          loads.py
    ttt:{acct:<h>}:…        an account, its games, notes and challenges    accounts.py
    ttt:{ch:<id>}:challenge string, a challenge (JSON)                     challenges.py
    ttt:{acct:<h>}:hooks…   its webhook deliveries waiting                 webhooks.py
    ttt:{hooks}:due         sorted set, accounts with a delivery due       schedule.py
    ttt:{hooks}:wake        list, one entry a waiting delivery worker to wake
    ttt:{ratings}:…         the queue of rated games to apply               ratings.py
    ttt:{acct:<h>}:ratings… an account's ratings and their history          ratings.py
    ttt:{lb:<p>:<kind>}:board  a leaderboard                                ratings.py
    ttt:{ladder:<p>}:…      a preset's bot ladder: members, games, tables   ladder.py

The game's own keys are written together by the save script (:mod:`.scripts`); the
lobby, the schedule and the pools are indexes across games, each on a shard of its own,
as the webhook schedule is across accounts.
"""

from .accounts import RedisAccounts
from .analyses import RedisAnalyses
from .challenges import RedisChallenges
from .connection import RedisConnection
from .evaluations import RedisEvaluations
from .games import RedisGameStore
from .ladder import RedisLadder
from .loads import RedisLoads
from .lobby import RedisLobby
from .mistakes import RedisMistakes
from .ratings import RedisRatings
from .records import RedisRecords
from .replies import RedisReplies
from .schedule import RedisSchedule
from .seeks import RedisSeekBoard
from .tickets import RedisTickets
from .tournaments import RedisTournaments
from .webhooks import RedisWebhooks

__all__ = [
    "RedisAccounts",
    "RedisAnalyses",
    "RedisChallenges",
    "RedisConnection",
    "RedisEvaluations",
    "RedisGameStore",
    "RedisLadder",
    "RedisLoads",
    "RedisLobby",
    "RedisMistakes",
    "RedisRatings",
    "RedisRecords",
    "RedisReplies",
    "RedisSchedule",
    "RedisSeekBoard",
    "RedisTickets",
    "RedisTournaments",
    "RedisWebhooks",
]
