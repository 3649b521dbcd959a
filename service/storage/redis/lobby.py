"""The lobby's listings in Redis.

Two sorted sets, ``ttt:{lobby}:open`` and ``ttt:{lobby}:in_progress`` (score: the game's
creation, Unix ms; member: its id). Why two keys on one shard: a listing is read across
every game, which no per-game key slot can serve, and one shard holds millions of
entries; the one hash tag lets one script move a game from one listing to the other.
Entries of games that never filled are trimmed by their creation time when a game is
listed (an open game lives ``OPEN_GAME_TTL_SECONDS`` from its creation); other stale
entries are skipped by reads and moved or removed by a move worker's prune.
"""

from __future__ import annotations

from functools import partial

from ..lobby import LobbyStore
from .connection import RedisConnection

__all__ = ["RELIST", "RedisLobby", "listing_key"]

# KEYS: the listing to move from, the listing to move to (or none: off the lobby)
RELIST = """
local created = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not created then return 0 end
redis.call('ZREM', KEYS[1], ARGV[1])
if #KEYS >= 2 then redis.call('ZADD', KEYS[2], created, ARGV[1]) end
return 1
"""


def listing_key(listing: str) -> str:
    """The sorted set of a lobby listing (every listing shares the ``{lobby}`` hash tag)."""
    return f"ttt:{{lobby}}:{listing}"


class RedisLobby(LobbyStore):
    """The listings, on the process's shared connection."""

    def __init__(self, connection: RedisConnection, *, open_ttl_seconds: int) -> None:
        self.connection = connection
        self.open_ttl = int(open_ttl_seconds)
        self._relist = connection.client.register_script(RELIST)

    def list_game(self, game_id: str, listing: str, created: float) -> None:
        key, client = listing_key(listing), self.connection.client
        trim = f"({(created - self.open_ttl) * 1000:.0f}"

        def write() -> None:
            pipe = client.pipeline(transaction=False)  # one key: one shard
            pipe.zadd(key, {game_id: round(created * 1000)})
            if listing == "open":  # open games live open_ttl from creation: older ones are gone
                pipe.zremrangebyscore(key, "-inf", trim)
            pipe.execute()

        self.connection.run(write)

    def relist_game(self, game_id: str, listing: str, to: str | None) -> None:
        keys = [listing_key(listing)] + ([] if to is None else [listing_key(to)])
        self.connection.run(lambda: self._relist(keys=keys, args=[game_id]))

    def listed(self, listing: str, before: tuple[float, str] | None,
               count: int) -> list[tuple[str, float]]:
        key, client = listing_key(listing), self.connection.client
        top = "+inf" if before is None else round(before[0] * 1000)
        out: list[tuple[str, float]] = []
        start = 0
        while len(out) < count:
            want = count + 16
            rows: list[tuple[bytes, float]] = self.connection.run(partial(
                client.zrevrangebyscore, key, top, "-inf", start=start, num=want, withscores=True))
            for member, score in rows:
                game_id = member.decode()
                # same created ms as the cursor: ties come in reverse member order
                if before is not None and round(score) == top and game_id >= before[1]:
                    continue
                out.append((game_id, score / 1000))
            if len(rows) < want:
                break
            start += want
        return out[:count]
