"""How the memory stores keep what the Redis stores keep, so that what a test reads back
from one is what the service would read from the other.

Why: the Redis stores keep times as whole milliseconds (sorted-set scores, key expiries)
and documents as JSON, and the service reads them back that way: two times in one
millisecond are a tie (broken by id, as a sorted set orders its members), and a tuple
written comes back a list. A memory store that kept exact floats and live objects
would order, compare and answer differently in exactly the cases the fast tests then
never see on Redis.
"""

from __future__ import annotations

from typing import TypeVar, cast

import orjson

__all__ = ["as_json", "ms", "to_ms"]

T = TypeVar("T")


def ms(at: float) -> int:
    """``at`` (Unix seconds) as the Redis stores keep it: whole milliseconds."""
    return round(at * 1000)


def to_ms(at: float) -> float:
    """``at`` (Unix seconds) as a Redis store gives it back: to the millisecond."""
    return ms(at) / 1000


def as_json(value: T) -> T:
    """``value`` as a Redis store gives it back after keeping it as JSON: a copy of the
    caller's own, tuples as lists (and what JSON cannot hold refused, as there)."""
    return cast(T, orjson.loads(orjson.dumps(value)))
