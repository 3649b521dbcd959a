"""The in-memory :class:`~service.storage.seeks.SeekBoard`: the Redis board's scripts, step
by step, in Python under the shared lock, so matchmaking has fast tests too.

It keeps what the Redis board keeps, the same way: per pool the waiting seekers with
their expiry (Unix ms, ordered by it, then by key, as a sorted set is), every seek's
JSON, each match record (``"m:<game id>"``), the pool's rules and its arrivals, and when
to drop each matched entry. A match (or a group waiting for its holds) is announced on
the pool's channel of :mod:`.shared`, where its seekers wait. No TTL empties an idle
pool: tests hold a handful.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import orjson

from ..accounts import folded
from ..documents import dumps, loads
from ..seeks import (
    Hold,
    Matching,
    MatchRecord,
    SeekBoard,
    SeekEntry,
    SeekRecord,
    Waiter,
    stream_holder_handle,
)
from .kept import ms
from .shared import Shared

__all__ = ["MemorySeekBoard"]


@dataclass
class _Pool:
    queue: dict[str, int] = field(default_factory=dict)  # seek key -> expiry ms
    seeks: dict[str, SeekRecord] = field(default_factory=dict)  # seek key -> seek
    records: dict[str, bytes] = field(default_factory=dict)  # game id -> match record
    done: dict[str, int] = field(default_factory=dict)  # matched key or "m:<game>" -> drop ms
    rules: bytes = b"null"
    arrivals: int = 0


def _group(pool: _Pool, players: int, now_ms: int) -> tuple[list[str], str | None]:
    """Drop the seekers whose holds lapsed, then the oldest group of ``players`` whose
    clocks agree (and its clock, ``None``: none), as the Redis script finds it."""
    groups: dict[str, list[str]] = {}
    nulls: list[str] = []
    found: tuple[list[str], str | None] | None = None
    for key in sorted(pool.queue, key=lambda m: (pool.queue[m], m)):
        seek = pool.seeks[key]
        if any(until <= now_ms for until, _ in seek.holds.values()):
            del pool.queue[key]
            del pool.seeks[key]
            continue
        if found is not None:
            continue
        if seek.turn_seconds is None:
            nulls.append(key)
            groups.setdefault("none", [])
            for members in groups.values():
                members.append(key)
        else:
            groups.setdefault(str(seek.turn_seconds), list(nulls)).append(key)
        full = next((k for k, members in groups.items() if len(members) >= players), None)
        if full is not None:
            found = groups[full], None if full == "none" else full
    return found if found is not None else ([], None)


class MemorySeekBoard(SeekBoard):
    """The pools in a dict of ``shared``'s lock."""

    def __init__(self, shared: Shared, *, results_kept_seconds: int) -> None:
        self._shared = shared
        self.results_kept = int(results_kept_seconds)
        self._pools: dict[str, _Pool] = {}
        self._indexes: dict[str, dict[str, int]] = {}  # handle folded -> seek id -> ms

    def _dated(self, p: _Pool, now_ms: int) -> None:
        for gone in [m for m, at in p.queue.items() if at <= now_ms]:
            del p.queue[gone]
            p.seeks.pop(gone, None)
        for gone in [m for m, at in p.done.items() if at <= now_ms]:
            del p.done[gone]
            p.seeks.pop(gone, None)
            p.records.pop(gone.removeprefix("m:"), None)

    def _match(self, pool: str, p: _Pool, players: int, game_id: str, now_ms: int,
               arrived: bool) -> Matching:
        members, clock = _group(p, players, now_ms)
        if not members:
            return Matching()
        newest = max(p.seeks[m].arrival or 0 for m in members)
        stale = [holder for m in members for holder, (_, seen) in p.seeks[m].holds.items()
                 if seen < newest]
        if stale:
            if arrived:
                self._shared.announce(pool)
            return Matching([], [h for h in map(stream_holder_handle, stale) if h is not None])
        keep = now_ms + self.results_kept * 1000
        for seat, member in enumerate(members):
            del p.queue[member]
            p.seeks[member] = dataclasses.replace(p.seeks[member], game=game_id, seat=seat)
            p.done[member] = keep
        p.records[game_id] = dumps(MatchRecord(
            orjson.loads(p.rules), tuple(p.seeks[m].name for m in members),
            tuple(p.seeks[m].credential for m in members),
            None if clock is None else int(clock), p.seeks[members[0]].rated))
        p.done[f"m:{game_id}"] = keep
        self._shared.announce(pool)
        return Matching(members)

    def add(self, pool: str, key: str, seek: SeekRecord, expires: float, players: int,
            game_id: str, rules_json: bytes, now: float, hold: Hold | None = None) -> Matching:
        now_ms = round(now * 1000)
        with self._shared.lock:
            p = self._pools.setdefault(pool, _Pool())
            p.arrivals += 1
            holds = {} if hold is None else {hold.holder: (round(hold.until * 1000),
                                                           p.arrivals)}
            p.seeks[key] = dataclasses.replace(seek, arrival=p.arrivals, holds=holds)
            p.rules = rules_json
            self._dated(p, now_ms)
            p.queue[key] = round(expires * 1000)
            return self._match(pool, p, players, game_id, now_ms, arrived=True)

    def hold(self, pool: str, key: str, hold: Hold, game_id: str, now: float) -> Matching | None:
        now_ms = round(now * 1000)
        with self._shared.lock:
            p = self._pools.get(pool)
            if p is None or p.queue.get(key, 0) <= now_ms:
                return None
            holds = dict(p.seeks[key].holds)
            seen = hold.seen if hold.seen is not None else holds.get(hold.holder, (0, 0))[1]
            holds[hold.holder] = (round(hold.until * 1000), seen)
            p.seeks[key] = dataclasses.replace(p.seeks[key], holds=holds)
            self._dated(p, now_ms)
            return self._match(pool, p, _players(pool), game_id, now_ms, arrived=False)

    def release(self, pool: str, key: str, holder: str, game_id: str, now: float) -> Matching:
        now_ms = round(now * 1000)
        with self._shared.lock:
            p = self._pools.get(pool)
            if p is None:
                return Matching()
            if key in p.queue:
                holds = {h: v for h, v in p.seeks[key].holds.items() if h != holder}
                p.seeks[key] = dataclasses.replace(p.seeks[key], holds=holds)
            self._dated(p, now_ms)
            return self._match(pool, p, _players(pool), game_id, now_ms, arrived=False)

    def get(self, pool: str, key: str) -> SeekEntry:
        with self._shared.lock:
            p = self._pools.get(pool, _Pool())
            seek, expires = p.seeks.get(key), p.queue.get(key)
            return SeekEntry(None if seek is None else loads(SeekRecord.from_json, dumps(seek)),
                             None if expires is None else expires / 1000, p.arrivals)

    def match_record(self, pool: str, game_id: str) -> MatchRecord | None:
        with self._shared.lock:
            blob = self._pools.get(pool, _Pool()).records.get(game_id)
        return None if blob is None else loads(MatchRecord.from_json, blob)

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

    def index(self, handle: str, seek_id: str, expires: float) -> None:
        with self._shared.lock:
            self._indexes.setdefault(folded(handle), {})[seek_id] = ms(expires)

    def indexed(self, handle: str, now: float) -> list[str]:
        with self._shared.lock:
            noted = self._indexes.get(folded(handle), {})
            return sorted((s for s, at in noted.items() if at > ms(now)),
                          key=lambda s: (noted[s], s))

    def unindex(self, handle: str, seek_id: str) -> None:
        with self._shared.lock:
            self._indexes.get(folded(handle), {}).pop(seek_id, None)


def _players(pool: str) -> int:
    """A pool's player count: its name ends with it (``<digest>.<players>``)."""
    return int(pool.rsplit(".", 1)[1])
