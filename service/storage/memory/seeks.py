"""The in-memory :class:`~service.storage.seeks.SeekBoard`: the Redis board's script, step
by step, in Python under the shared lock, so matchmaking has fast tests too.

It keeps what the Redis board keeps, the same way: per pool the waiting seekers with
their expiry (Unix ms, ordered by it, then by key, as a sorted set is), every seek's
JSON and each match record (``"m:<game id>"``), and when to drop each matched entry. A
match is announced on the pool's channel of :mod:`.shared`, where its seekers wait. No
TTL empties an idle pool: tests hold a handful.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..seeks import SeekBoard, Waiter
from .shared import Shared

__all__ = ["MemorySeekBoard"]


@dataclass
class _Pool:
    queue: dict[str, int] = field(default_factory=dict)  # seek key -> expiry ms
    seeks: dict[str, bytes] = field(default_factory=dict)  # seek key or "m:<game>" -> JSON
    done: dict[str, int] = field(default_factory=dict)  # matched field -> when to drop, ms


class MemorySeekBoard(SeekBoard):
    """The pools in a dict of ``shared``'s lock."""

    def __init__(self, shared: Shared, *, results_kept_seconds: int) -> None:
        self._shared = shared
        self.results_kept = int(results_kept_seconds)
        self._pools: dict[str, _Pool] = {}

    def add(self, pool: str, key: str, seek: dict[str, Any], expires: float, players: int,
            game_id: str, rules_json: bytes, now: float) -> list[str]:
        now_ms = round(now * 1000)
        with self._shared.lock:
            p = self._pools.setdefault(pool, _Pool())
            p.seeks[key] = orjson.dumps(seek)
            for dated in (p.queue, p.done):
                for gone in [m for m, at in dated.items() if at <= now_ms]:
                    del dated[gone]
                    p.seeks.pop(gone, None)
            p.queue[key] = round(expires * 1000)
            if len(p.queue) < players:
                return []
            members = sorted(p.queue, key=lambda m: (p.queue[m], m))[:players]
            keep = now_ms + self.results_kept * 1000
            names, ths = [], []
            for seat, member in enumerate(members):
                del p.queue[member]
                matched = orjson.loads(p.seeks[member])
                names.append(matched["name"])
                ths.append(matched["th"])
                p.seeks[member] = orjson.dumps({**matched, "game": game_id, "seat": seat})
                p.done[member] = keep
            record = {"rules": orjson.loads(rules_json), "names": names, "ths": ths}
            p.seeks[f"m:{game_id}"] = orjson.dumps(record)
            p.done[f"m:{game_id}"] = keep
            self._shared.announce(pool)
            return members

    def get(self, pool: str, key: str) -> tuple[dict[str, Any] | None, float | None]:
        with self._shared.lock:
            p = self._pools.get(pool, _Pool())
            blob, expires = p.seeks.get(key), p.queue.get(key)
        return (None if blob is None else orjson.loads(blob),
                None if expires is None else expires / 1000)

    def match_record(self, pool: str, game_id: str) -> dict[str, Any] | None:
        with self._shared.lock:
            blob = self._pools.get(pool, _Pool()).seeks.get(f"m:{game_id}")
        return None if blob is None else orjson.loads(blob)

    def cancel(self, pool: str, key: str) -> int:
        with self._shared.lock:
            p = self._pools.get(pool, _Pool())
            if p.queue.pop(key, None) is not None:
                p.seeks.pop(key, None)
                return 1
            return 2 if key in p.seeks else 0

    @contextmanager
    def watch(self, pool: str) -> Iterator[Waiter]:
        yield self._shared.waiter(pool)
