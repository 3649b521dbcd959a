"""``make bench-soak``: minutes of mixed traffic on 2 workers, watched for leaks and errors.

Not a test: it starts a redis-server and the service under gunicorn with 2 workers and
``deploy/gunicorn.conf.py`` (``service.match.local.local_service``, the harness the match
benchmark and tests use), warms it up, then drives ``SOAK_SECONDS`` (default 300) of
traffic from ``SOAK_GAMES`` (default 48) games at once, each played by one thread that
starts a new game when its game ends. A game's life: ``POST /v1/games`` (2 or 3 players,
the last seat open), the claim of that seat, a spectator view, then per turn the
player's ``GET`` view, a draw and a discard (or going out) with ``If-Match`` and a fresh
``Idempotency-Key`` each, taken from ``legal_actions``; every 6th action a ``/v1/solve``
on the player's hand, every 8th an events read with the seat's token, every 10th a
spectator view; at the end the whole event log as a spectator. Rules vary (hand sizes
3–5, 3–7 or 7–9; one deck and ``stock_exhausted: end_round`` so random play ends).

Why these measurements, and what they are for:

* per minute: requests, req/s, actions/s, p50/p99/max latency and errors. A soak is
  about drift: latency creeping up or errors appearing after minutes (a leak, a cache
  that never stops growing, connections piling up) rather than the peak rate, which
  ``make bench-api`` measures. Any 5xx is counted and its traceback is looked up in the
  gunicorn log (kept in a file) and printed; 0 are expected.
* RSS of each gunicorn worker (``VmRSS`` of the master's children) after the warm-up
  and at the end, against a stated bound (``SOAK_RSS_BOUND_MB``, 20 MB per worker);
  a restarted worker (new pid) is reported too, since it would hide a leak.
* Redis memory per game (the ``used_memory`` delta over the games created, and
  ``MEMORY USAGE`` of finished games' keys: state hash, event stream, idempotent
  replies) and Redis commands and CPU per action (``INFO stats`` / ``commandstats`` /
  ``INFO cpu`` deltas): with these, a shard's ``maxmemory`` gives games per shard and
  its one core gives actions per second per shard (the README's capacity note).
* CPU per request of the workers (``/proc/<pid>/stat``), for workers per core.

The client threads run in this process and share the 2 cores with the server and
Redis (numbers include that); they use the project's ``service.client.Client``
(``http.client`` keep-alive, orjson) with retries off, so every 503 is seen and counted.

Usage: ``SOAK_SECONDS=40 python -m tests.bench.bench_soak``
"""

from __future__ import annotations

import contextlib
import os
import random
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from service.client import ApiError, Client
from service.client.http import TransportError
from service.match.local import local_service
from tests.bench.procs import children, cmdline, percentile, ppid_and_cpu, rss_mb

SOAK_SECONDS = float(os.environ.get("SOAK_SECONDS", "300"))
SOAK_GAMES = int(os.environ.get("SOAK_GAMES", "48"))
WARMUP_SECONDS = float(os.environ.get("SOAK_WARMUP_SECONDS", "15"))
RSS_BOUND_MB = float(os.environ.get("SOAK_RSS_BOUND_MB", "20"))
INTERVAL = float(os.environ.get("SOAK_INTERVAL_SECONDS", "60"))  # one table row each
RULES = [  # one deck and end_round: a round ends when the stock runs out, even in random play
    {"preset": "classic", "decks": 1, "stock_exhausted": "end_round", "hand_sizes": sizes}
    for sizes in ([3, 4, 5], [3, 4, 5, 6, 7], [7, 8, 9])
]
KINDS = ("create", "claim", "view", "spectate", "act", "events", "solve")


# -- processes -------------------------------------------------------------------------


@contextlib.contextmanager
def _children_write_to(path: Path) -> Iterator[None]:
    """Processes started inside inherit ``path`` as stdout and stderr (this process's own
    are restored on exit), so the gunicorn log, tracebacks included, lands in a file
    without changing the harness that starts it."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for f in (fd, *saved):
            os.close(f)


# -- traffic ---------------------------------------------------------------------------


@dataclass
class Traffic:
    """Every request's (end time, kind, latency, status) and the games played; appends
    from many threads (list.append is atomic under the GIL)."""

    samples: list[tuple[float, str, float, int]] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    finished: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)


class Player:
    """One thread's games, one after another, until told to stop."""

    def __init__(self, url: str, n: int, traffic: Traffic) -> None:
        self.client = Client(url, retries=0, timeout=30.0)  # no retries: every 503 is seen
        self.rng = random.Random(n)
        self.traffic = traffic
        self.n = n

    def call(self, kind: str, method: str, path: str, **kw: Any) -> Any:
        """One request, timed; ``None`` when it failed (the failure is recorded)."""
        started = time.perf_counter()
        status, body = 0, None
        try:
            response = self.client.request(method, path, kind=kind, **kw)
            status, body = response.status, response.body
        except ApiError as e:
            status = e.status
            if status >= 500:
                self.traffic.server_errors.append(f"{method} {path}: {status} {e.code}")
        except TransportError as e:
            self.traffic.server_errors.append(f"{method} {path}: transport {e}")
        now = time.perf_counter()
        self.traffic.samples.append((now, kind, now - started, status))
        return body

    def run(self) -> None:
        while not self.traffic.stop.is_set():
            self.play_one()
        self.client.close()

    def play_one(self) -> None:
        rng, stop = self.rng, self.traffic.stop
        players = rng.choice([2, 2, 3])
        created = self.call("create", "POST", "/v1/games", body={
            "players": [{"name": f"p{k}"} for k in range(players - 1)] + [{"name": None}],
            "rules": rng.choice(RULES)})
        if created is None:
            return
        gid = created["game_id"]
        self.traffic.created.append(gid)
        tokens = [s["token"] for s in created["seats"]]
        claimed = self.call("claim", "POST", f"/v1/games/{gid}/seats/{players - 1}/claim",
                            body={"name": "late"})
        if claimed is None:
            return
        tokens[-1] = claimed["token"]
        base = f"/v1/games/{gid}"
        view = self.call("spectate", "GET", base)
        actions = 0
        while view is not None and view["status"] != "finished" and not stop.is_set():
            seat = view["round"]["current_seat"]
            view = self.call("view", "GET", base, token=tokens[seat])
            # the seat's turn: draw, then discard or go out, each from the last reply
            while (view is not None and view["status"] != "finished"
                   and view["legal_actions"] and not stop.is_set()):
                action = self.choose(view["legal_actions"])
                actions += 1
                if actions % 6 == 0 and view["you"]:
                    self.call("solve", "POST", "/v1/solve", body={
                        "hand": view["you"]["hand"], "wild_rank": view["round"]["wild_rank"]})
                if actions % 8 == 0:
                    self.call("events", "GET", f"{base}/events", token=tokens[seat],
                              query={"after": max(0, actions - 8)})
                if actions % 10 == 0:
                    self.call("spectate", "GET", base)
                view = self.call("act", "POST", f"{base}/actions", body=action,
                                 token=tokens[seat],
                                 headers={"If-Match": f'"{view["version"]}"',
                                          "Idempotency-Key": uuid.uuid4().hex})
                if view is not None and view["round"]["current_seat"] != seat:
                    break
        if view is not None and view["status"] == "finished":
            self.call("events", "GET", f"{base}/events", query={"after": 0, "limit": 1000})
            self.traffic.finished.append(gid)

    def choose(self, legal: list[dict[str, Any]]) -> dict[str, Any]:
        """Go out when possible, else mostly the stock, else a random legal move: quick,
        so the client's CPU goes to requests, and random play still ends (end_round)."""
        outs = [a for a in legal if a["type"] == "go_out"]
        if outs:
            return outs[0]
        draws = [a for a in legal if a["type"] == "draw"]
        if draws:
            stock = [a for a in draws if a.get("source") == "stock"]
            return stock[0] if stock and self.rng.random() < 0.8 else self.rng.choice(draws)
        return self.rng.choice(legal)


# -- measurements -----------------------------------------------------------------------


@dataclass
class Snapshot:
    """What the server side looks like at one moment."""

    at: float
    workers: dict[int, tuple[float, float]]  # pid -> (RSS MB, CPU s)
    redis_info: dict[str, Any]
    commandstats: dict[str, int]


def snapshot(master: int, db: redis.Redis) -> Snapshot:
    workers = {}
    for pid in children(master):
        with contextlib.suppress(OSError):
            workers[pid] = (rss_mb(pid), ppid_and_cpu(pid)[1])
    info = db.info()
    stats = {k.removeprefix("cmdstat_"): int(v["calls"])
             for k, v in db.info("commandstats").items()}
    return Snapshot(time.perf_counter(), workers, info, stats)


def row(label: str, samples: list[tuple[float, str, float, int]], seconds: float,
        snap: Snapshot | None) -> str:
    lat = sorted(s[2] * 1000 for s in samples)
    acts = sum(1 for s in samples if s[1] == "act" and s[3] == 200)
    five = sum(1 for s in samples if s[3] >= 500)
    other = sum(1 for s in samples if s[3] == 0 or 300 <= s[3] < 500)
    rss = " ".join(f"{v[0]:.0f}" for v in snap.workers.values()) if snap else ""
    return (f"{label:<8}{len(samples):>9}{len(samples) / seconds:>8.0f}{acts / seconds:>10.0f}"
            f"{percentile(lat, 0.5):>8.1f}{percentile(lat, 0.99):>8.1f}"
            f"{(lat[-1] if lat else float('nan')):>9.1f}{five:>6}{other:>7}   {rss}")


HEADER = (f"{'minute':<8}{'requests':>9}{'req/s':>8}{'actions/s':>10}{'p50 ms':>8}"
          f"{'p99 ms':>8}{'max ms':>9}{'5xx':>6}{'other':>7}   worker RSS MB")


def drive(url: str, traffic: Traffic, games: int) -> list[threading.Thread]:
    threads = [threading.Thread(target=Player(url, n, traffic).run, daemon=True)
               for n in range(games)]
    for t in threads:
        t.start()
    return threads


def redis_game_usage(db: redis.Redis, game_ids: list[str]) -> dict[str, float]:
    """Mean ``MEMORY USAGE`` (bytes) of finished games' keys, by kind, and replies/game."""
    totals = {"state hash": 0, "event stream": 0, "idempotent replies": 0, "replies": 0}
    for gid in game_ids:
        game, events = f"ttt:{{{gid}}}:game", f"ttt:{{{gid}}}:events"
        totals["state hash"] += db.memory_usage(game, samples=0) or 0
        totals["event stream"] += db.memory_usage(events, samples=0) or 0
        for key in db.scan_iter(match=f"ttt:{{{gid}}}:reply:*", count=1000):
            totals["idempotent replies"] += db.memory_usage(key, samples=0) or 0
            totals["replies"] += 1
    return {k: v / max(1, len(game_ids)) for k, v in totals.items()}


def count_keys(db: redis.Redis) -> dict[str, int]:
    counts = {"game": 0, "events": 0, "reply": 0, "other": 0}
    for key in db.scan_iter(count=5000):
        kind = key.rsplit(b":", 1)[-1] if b":reply:" not in key else b"reply"
        counts[kind.decode() if kind.decode() in counts else "other"] += 1
    return counts


def main() -> None:
    log = Path(tempfile.mkstemp(prefix="bench-soak-", suffix=".log")[1])
    with contextlib.ExitStack() as stack:
        with _children_write_to(log):
            service = stack.enter_context(local_service(workers=2, quiet=False))
        (master,) = [p for p in children(os.getpid()) if "gunicorn" in cmdline(p)]
        db = redis.Redis.from_url(service.redis_url)
        fresh = snapshot(master, db)

        warm = Traffic()
        threads = drive(service.url, warm, SOAK_GAMES)
        time.sleep(WARMUP_SECONDS)
        warm.stop.set()
        for t in threads:
            t.join(60)
        db.config_resetstat()

        traffic = Traffic()
        start_snap = snapshot(master, db)
        start = start_snap.at
        cpu0 = time.process_time()
        threads = drive(service.url, traffic, SOAK_GAMES)
        print(f"bench-soak: {SOAK_SECONDS:.0f} s, {SOAK_GAMES} games at once, 2 gthread "
              f"workers (deploy/gunicorn.conf.py), warm-up {WARMUP_SECONDS:.0f} s; "
              f"gunicorn log: {log}\n", flush=True)
        print(HEADER, flush=True)
        rows: list[str] = []
        snaps: list[Snapshot] = [start_snap]
        edge, minute = start, 0
        while edge < start + SOAK_SECONDS - 1e-6:
            step = min(INTERVAL, start + SOAK_SECONDS - edge)
            time.sleep(max(0.0, edge + step - time.perf_counter()))
            now = time.perf_counter()
            snaps.append(snapshot(master, db))
            minute += 1
            window = [s for s in list(traffic.samples) if edge <= s[0] < now]
            rows.append(row(str(minute), window, now - edge, snaps[-1]))
            print(rows[-1], flush=True)
            edge = now
        traffic.stop.set()
        for t in threads:
            t.join(60)
        client_cpu = time.process_time() - cpu0
        end = snapshot(master, db)
        elapsed = end.at - start
        samples = [s for s in traffic.samples if s[0] >= start]
        print(row("all", samples, elapsed, None))
        middle = snaps[len(snaps) // 2]
        report(samples, elapsed, traffic, fresh, start_snap, middle, end, db, client_cpu, log)


def report(samples: list[tuple[float, str, float, int]], elapsed: float, traffic: Traffic,
           fresh: Snapshot, start: Snapshot, middle: Snapshot, end: Snapshot, db: redis.Redis,
           client_cpu: float, log: Path) -> None:
    n = len(samples)
    acts = sum(1 for s in samples if s[1] == "act" and s[3] == 200)
    by_kind = {k: sum(1 for s in samples if s[1] == k) for k in KINDS}
    print("\nrequests by kind: " + ", ".join(f"{k} {v}" for k, v in by_kind.items())
          + f"; games created {len(traffic.created)}, finished {len(traffic.finished)}")
    statuses: dict[int, int] = {}
    for s in samples:
        statuses[s[3]] = statuses.get(s[3], 0) + 1
    print("statuses: " + ", ".join(f"{k or 'transport error'}: {v}"
                                   for k, v in sorted(statuses.items())))

    print("\nworker RSS MB (fresh -> after warm-up -> end; bound: growth from after "
          f"warm-up to end <= {RSS_BOUND_MB:.0f} MB per worker)")
    ok = set(start.workers) == set(end.workers)
    for pid in start.workers:
        before = start.workers[pid][0]
        after = end.workers.get(pid, (float("nan"), 0.0))[0]
        growth = after - before
        passed = growth <= RSS_BOUND_MB
        ok = ok and passed
        half = after - middle.workers.get(pid, (float("nan"),))[0]
        print(f"  worker {pid}: {fresh.workers.get(pid, (float('nan'),))[0]:.1f} -> "
              f"{before:.1f} -> {after:.1f}  growth {growth:+.1f} MB "
              f"({half:+.1f} in the second half: caches fill first, a leak keeps growing)  "
              f"{'PASS' if passed else 'FAIL'}")
    if set(start.workers) != set(end.workers):
        print(f"  workers changed (restarted?): {sorted(start.workers)} -> {sorted(end.workers)}")
    print(f"  RSS bound: {'PASS' if ok else 'FAIL'}")

    worker_cpu = sum(end.workers[p][1] - start.workers[p][1]
                     for p in start.workers if p in end.workers)
    redis_cpu = (float(end.redis_info["used_cpu_user"]) + float(end.redis_info["used_cpu_sys"])
                 - float(start.redis_info["used_cpu_user"])
                 - float(start.redis_info["used_cpu_sys"]))
    print(f"\nCPU: workers {worker_cpu:.1f} s ({1000 * worker_cpu / max(1, n):.2f} ms per "
          f"request, {100 * worker_cpu / elapsed / 2:.0f}% of each worker's wall time), "
          f"Redis {redis_cpu:.1f} s ({1e6 * redis_cpu / max(1, acts):.0f} µs per action, "
          f"all commands included), client threads {client_cpu:.1f} s, over {elapsed:.0f} s")

    commands = int(end.redis_info["total_commands_processed"]) - int(
        start.redis_info["total_commands_processed"])
    calls = {k: v - start.commandstats.get(k, 0) for k, v in end.commandstats.items()}
    calls = {k: v for k, v in sorted(calls.items(), key=lambda kv: -kv[1]) if v > 0}
    round_trips = sum(calls.get(k, 0) for k in ("evalsha", "hmget", "xrange", "xread"))
    round_trips += calls.get("get", 0) - calls.get("set", 0)  # one GET per script runs inside it
    print(f"Redis commands (those run inside the Lua scripts included): {commands} = "
          f"{commands / max(1, acts):.2f} per action ({commands / max(1, n):.2f} per request), "
          f"of which round trips from the service {round_trips / max(1, acts):.2f} per action; "
          "by command, per action: "
          + ", ".join(f"{k} {v / max(1, acts):.2f}" for k, v in calls.items()))

    used = int(end.redis_info["used_memory"]) - int(start.redis_info["used_memory"])
    keys = count_keys(db)
    games = len(traffic.created)
    print(f"\nRedis memory: used_memory {int(start.redis_info['used_memory']) / 2**20:.1f} -> "
          f"{int(end.redis_info['used_memory']) / 2**20:.1f} MB for {games} games created in "
          f"the soak = {used / max(1, games) / 1024:.1f} KB per game (idempotent replies "
          f"included); keys now: {keys}")
    sample = traffic.finished[:50]
    usage = redis_game_usage(db, sample)
    total = usage["state hash"] + usage["event stream"] + usage["idempotent replies"]
    print(f"MEMORY USAGE of {len(sample)} finished games, mean per game: state hash "
          f"{usage['state hash'] / 1024:.1f} KB, event stream {usage['event stream'] / 1024:.1f}"
          f" KB, {usage['replies']:.0f} idempotent replies "
          f"{usage['idempotent replies'] / 1024:.1f} KB; total {total / 1024:.1f} KB")

    text = log.read_text(errors="replace")
    errors = [line for line in text.splitlines() if '"level": "ERROR"' in line
              or '"level":"ERROR"' in line or "Traceback" in line]
    five = [s for s in samples if s[3] >= 500]
    print(f"\n5xx responses: {len(five)}; transport errors: {statuses.get(0, 0)}; "
          f"ERROR lines in the gunicorn log: {len(errors)}")
    for line in (traffic.server_errors[:5] + errors[:3]):
        print("  " + line[:2000])


if __name__ == "__main__":
    main()
