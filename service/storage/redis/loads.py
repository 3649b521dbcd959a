"""The clients' bot-game loads in Redis: one hash per client, ``ttt:{load:<client>}:bots``
(field: a game id; value: ``<weight>|<admitted at>``, or a bare weight stored before the
time was kept), checked and added to by one script, so two creations racing for a
client's last room cannot both get it."""

from __future__ import annotations

from collections.abc import Sequence

from ..loads import LoadStore
from .connection import RedisConnection

__all__ = ["RedisLoads", "load_key"]

# KEYS: the client's hash. ARGV: game id, weight, cap, ttl, now, then the game ids to
# drop. Returns nil when admitted, else the total held (as a string).
ADMIT = """
for i = 6, #ARGV do redis.call('HDEL', KEYS[1], ARGV[i]) end
local total = 0
for _, w in ipairs(redis.call('HVALS', KEYS[1])) do
  total = total + tonumber(string.match(w, '^[^|]+'))
end
if total + tonumber(ARGV[2]) > tonumber(ARGV[3]) then return tostring(total) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '|' .. ARGV[5])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return false
"""


def load_key(client: str) -> str:
    return f"ttt:{{load:{client}}}:bots"


class RedisLoads(LoadStore):
    """The loads, on the process's shared connection."""

    def __init__(self, connection: RedisConnection) -> None:
        self.connection = connection
        self._admit = connection.client.register_script(ADMIT)

    def held(self, client: str) -> dict[str, tuple[float, float]]:
        raw = self.connection.run(lambda: self.connection.client.hgetall(load_key(client)))
        out = {}
        for key, value in raw.items():
            weight, _, at = value.decode().partition("|")
            out[key.decode()] = (float(weight), float(at or 0))
        return out

    def admit(self, client: str, game_id: str, weight: float, cap: float,
              drop: Sequence[str], ttl_seconds: int, now: float) -> float | None:
        total = self.connection.run(lambda: self._admit(
            keys=[load_key(client)], args=[game_id, weight, cap, ttl_seconds, now, *drop]))
        return None if total is None else float(total)
