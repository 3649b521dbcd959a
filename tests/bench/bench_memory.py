"""``make bench-memory``: Redis memory of a game at its end, by key kind.

Not a test: it starts a redis-server and the service under gunicorn (one worker, the
harness of the match benchmark), plays complete classic games with 2 and with 4 players
as the project's client does (:func:`service.match.runner.play_game`: every seat an
independent :class:`~service.client.Client`, every action with ``If-Match`` and a fresh
``Idempotency-Key``; greedy bots, so games look like real ones: about 300 actions for 2
players), then reads ``MEMORY USAGE`` (``SAMPLES 0``: every element counted) of every key
of each finished game and prints, per player count, the mean bytes per game by key kind
(``game`` state hash, ``events`` stream, ``reply`` idempotent replies, ``ticket`` stream
tickets, ``record`` the finished game's record, and any other kind found), the keys per
game and the total; then the bytes per record alone, what a shard keeps of a game for
``RECORD_TTL_SECONDS`` once its other keys expired.

Why ``MEMORY USAGE`` per key rather than the ``used_memory`` delta: it attributes every
byte to a kind, which is what tells an operator where a game's memory goes; the delta is
printed too (it includes Redis's own per-key dictionary overhead and allocator slack).

Why the game's end: a finished game keeps its keys until their TTL, so this is the most
a game ever holds (the event log only grows) and what a shard holds per game finished
in the last TTL. The targets (issue 14): 32 KB per finished 2-player game, all keys (its
record included), and 8 KB per record.

Usage: ``python -m tests.bench.bench_memory [--games N]`` (N games per player count, 3).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from collections.abc import Sequence

import redis

from service.client.http import ClientStats
from service.match.local import local_service
from service.match.runner import play_game
from tests.bench.procs import tree_cpu_seconds

#: the target of issue 14 for a finished 2-player game, all its keys
TARGET_2P_BYTES = 32 * 1024
#: the target of issue 14 for a record (the one key kept after the others expire)
TARGET_RECORD_BYTES = 8 * 1024

_KEY = re.compile(rb"^ttt:\{(?P<game>[^}]+)\}:(?P<kind>[a-z_]+)")


def memory_by_kind(db: redis.Redis, game_id: str) -> tuple[dict[str, int], int]:
    """``MEMORY USAGE`` of every key of ``game_id``, summed by kind, and the key count."""
    kinds: dict[str, int] = defaultdict(int)
    count = 0
    for key in db.scan_iter(match=f"ttt:{{{game_id}}}:*", count=1000):
        match = _KEY.match(key)
        kind = match.group("kind").decode() if match else "other"
        kinds[kind] += db.memory_usage(key, samples=0) or 0
        count += 1
    return dict(kinds), count


def _redis_counters(db: redis.Redis) -> tuple[dict[str, int], float]:
    """Calls per command (those run inside scripts too) and Redis CPU seconds so far."""
    calls = {k.removeprefix("cmdstat_"): int(v["calls"])
             for k, v in db.info("commandstats").items()}
    info = db.info("cpu")
    return calls, float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def measure(url: str, db: redis.Redis, players: int, games: int,
            server_pid: int) -> dict[str, float]:
    """Play ``games`` classic games of ``players`` greedy bots; mean bytes per game by kind,
    and per action: Redis commands, round trips, Redis CPU, the workers' CPU, requests."""
    totals: dict[str, float] = defaultdict(float)
    before = int(db.info("memory")["used_memory"])
    stats = ClientStats()
    start, cpu = _redis_counters(db), tree_cpu_seconds(server_pid)
    for n in range(games):
        result = play_game(url, ["greedy"] * players, [f"p{s}" for s in range(players)],
                           rules={"preset": "classic"}, seed=f"mem-{players}-{n}",
                           bot_seed=str(n), stats=stats)
        kinds, count = memory_by_kind(db, result.game_id)
        for kind, size in kinds.items():
            totals[kind] += size / games
        totals["keys"] += count / games
        totals["actions"] += result.actions / games
    totals["used_memory delta"] = (int(db.info("memory")["used_memory"]) - before) / games
    end, cpu_end = _redis_counters(db), tree_cpu_seconds(server_pid)
    actions = totals["actions"] * games
    calls = {k: v - start[0].get(k, 0) for k, v in end[0].items()
             if k not in ("info", "memory|usage", "scan", "del")}  # the benchmark's own
    per_action = {
        "redis commands": sum(calls.values()) / actions,
        "script calls": calls.get("evalsha", 0) / actions,
        "http requests": stats.requests / actions,
        "redis cpu µs": (end[1] - start[1]) / actions * 1e6,
        "worker cpu µs": (cpu_end - cpu) / actions * 1e6,
    }
    totals["commands"] = ", ".join(  # type: ignore[assignment]
        f"{k} {v / actions:.2f}" for k, v in sorted(calls.items(), key=lambda kv: -kv[1]) if v)
    totals.update({f"per action: {k}": v for k, v in per_action.items()})
    return dict(totals)


def format_rows(rows: dict[int, dict[str, float]]) -> str:
    """The table: one row per key kind, one column per player count."""
    fixed = ("keys", "actions", "used_memory delta")
    for p, r in rows.items():
        print(f"{p} players, Redis calls per action: {r.pop('commands')}")
    rates = sorted({k for r in rows.values() for k in r if k.startswith("per action")})
    kinds = sorted({k for r in rows.values() for k in r if k not in fixed and k not in rates})
    head = f"{'bytes per finished game':<26}" + "".join(f"{p:>2} players".rjust(14)
                                                       for p in rows)
    lines = [head, "-" * len(head)]
    for kind in kinds:
        lines.append(f"{kind:<26}" + "".join(f"{r.get(kind, 0):>14,.0f}" for r in rows.values()))
    lines.append(f"{'total (MEMORY USAGE)':<26}"
                 + "".join(f"{sum(r.get(k, 0) for k in kinds):>14,.0f}" for r in rows.values()))
    for extra in fixed:
        lines.append(f"{extra:<26}" + "".join(f"{r[extra]:>14,.0f}" for r in rows.values()))
    for rate in rates:
        lines.append(f"{rate[len('per action: '):]:<26}"
                     + "".join(f"{r[rate]:>14,.1f}" for r in rows.values()))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3, help="games per player count")
    args = parser.parse_args(argv)
    rows: dict[int, dict[str, float]] = {}
    with local_service(workers=1) as service:
        db = redis.Redis.from_url(service.redis_url)
        # a warm-up game, then forgotten: the worker's connections, Redis's script cache
        # and allocator are then in place and the used_memory delta is the games' own
        warm = play_game(service.url, ["greedy"] * 2, ["w0", "w1"], rules={"preset": "classic"})
        db.delete(*db.scan_iter(match=f"ttt:{{{warm.game_id}}}:*"))
        for players in (2, 4):
            rows[players] = measure(service.url, db, players, args.games, service.server_pid)
        db.close()
    print(format_rows(rows))
    two = sum(v for k, v in rows[2].items()
              if k not in ("keys", "actions", "used_memory delta")
              and not k.startswith("per action"))
    verdict = "within" if two <= TARGET_2P_BYTES else "OVER"
    print(f"\n2-player game: {two:,.0f} bytes, {verdict} the target of "
          f"{TARGET_2P_BYTES:,} bytes")
    record = max(r.get("record", 0) for r in rows.values())
    fits = record <= TARGET_RECORD_BYTES
    for players, r in rows.items():
        print(f"record of a {players}-player game: {r.get('record', 0):,.0f} bytes")
    print(f"largest record: {record:,.0f} bytes, {'within' if fits else 'OVER'} the target "
          f"of {TARGET_RECORD_BYTES:,} bytes")
    return 0 if two <= TARGET_2P_BYTES and record and fits else 1


if __name__ == "__main__":
    sys.exit(main())
