"""The lobby's listings in Redis (part of :class:`~.redis_store.RedisGameStore`).

Two sorted sets, ``ttt:{lobby}:open`` and ``ttt:{lobby}:in_progress`` (score: the game's
creation, Unix ms; member: its id). Why two keys on one shard: a listing is read across
every game, which no per-game key slot can serve, and one shard holds millions of
entries; the one hash tag lets one script move a game from one listing to the other.
The listings are hints corrected on read (``GameStore.list_game``), so the game's own
save stays a one-slot script. Entries of games that never filled are trimmed by their
creation time (an open game lives ``OPEN_GAME_TTL_SECONDS`` from its creation); other
stale entries are dropped by the reads that meet them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .base import GameRecord
from .redis_scripts import GAME_FIELDS, game_keys, record_of

__all__ = ["RELIST", "RedisListings", "listing_key"]

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


class RedisListings:
    """The listing methods of the Redis store (its client, TTLs and error mapping)."""

    client: Any
    open_ttl: int
    _relist: Any
    _run: Callable[[Callable[[], Any]], Any]  # the store's call with its error mapping

    def list_game(self, game_id: str, listing: str, created: float) -> None:
        key = listing_key(listing)
        trim = f"({(created - self.open_ttl) * 1000:.0f}"

        def write() -> None:
            pipe = self.client.pipeline(transaction=False)  # one key: one shard
            pipe.zadd(key, {game_id: round(created * 1000)})
            if listing == "open":  # open games live open_ttl from creation: older ones are gone
                pipe.zremrangebyscore(key, "-inf", trim)
            pipe.execute()

        self._run(write)

    def relist_game(self, game_id: str, listing: str, to: str | None) -> None:
        keys = [listing_key(listing)] + ([] if to is None else [listing_key(to)])
        self._run(lambda: self._relist(keys=keys, args=[game_id]))

    def listed(self, listing: str, before: tuple[float, str] | None,
               count: int) -> list[tuple[str, float]]:
        key = listing_key(listing)
        top = "+inf" if before is None else round(before[0] * 1000)
        out: list[tuple[str, float]] = []
        start = 0
        while len(out) < count:
            want = count + 16
            rows = self._run(lambda s=start, n=want: self.client.zrevrangebyscore(
                key, top, "-inf", start=s, num=n, withscores=True))
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

    def load_many(self, game_ids: Sequence[str]) -> list[GameRecord | None]:
        def read() -> list[Any]:
            pipe = self.client.pipeline(transaction=False)
            for game_id in game_ids:
                pipe.hmget(game_keys(game_id)[0], GAME_FIELDS)
            return pipe.execute()  # type: ignore[no-any-return]

        rows = self._run(read) if game_ids else []
        return [record_of(gid, row) for gid, row in zip(game_ids, rows, strict=True)]
