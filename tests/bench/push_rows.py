"""The rows of ``make bench-push``: each measured on a fresh service (``bench_push.py``
prints them).

- :func:`wake_rows`: waiters of one kind parked on one game, 5,000, 10,000 and 20,000
  (beyond 10,000 a second load process), and for each, how long after a move every
  waiter heard of it; the workers' RSS growth per waiter and Redis's connections.
- :func:`idle_row`: the workers' CPU per move of a game with its own waiters, without
  and with 5,000 idle waiters on other games.
- :func:`account_row`: account streams parked, one per account, 10,000 and more; games
  between some of them, and how long after a move the account on turn heard ``your_turn``.
- :func:`loop_row`: one client (127.0.0.1) looping 5,000 long-polls past its limit on
  ``make run``'s limits while another client (127.0.0.2) probes ``/healthz`` and a view.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections import Counter
from typing import Any

import redis

from service.match.local import LocalService
from tests.bench.aio_http import Http, new_game, on_turn_view, play
from tests.bench.procs import children, cpu_ns, percentile, rss_mb

OTHER = "127.0.0.2"  # another client: its sockets bound there (the loopback is 127/8)
PER_PROCESS = 10_000  # waiters one load process holds


class LoadProcess:
    """A ``tests.bench.push_load`` process, driven one command at a time."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.waiters = 0

    @classmethod
    async def start(cls, port: int) -> LoadProcess:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.bench.push_load", str(port),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 24)
        return cls(proc)

    async def ask(self, op: str, **args: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write((json.dumps({"op": op, **args}) + "\n").encode())
        await self.proc.stdin.drain()
        line = await self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the load process exited ({await self.proc.wait()})")
        return json.loads(line)  # type: ignore[no-any-return]

    async def park(self, kind: str, games: list[list[Any]], count: int) -> None:
        self.waiters = (await self.ask("park", kind=kind, games=games, count=count))["waiters"]

    async def quit(self) -> None:
        await self.ask("quit")
        await self.proc.wait()


def workers_of(service: LocalService) -> list[int]:
    return children(service.server_pid)


def worker_cpu(service: LocalService) -> float:
    """The web workers' CPU seconds so far."""
    return sum(cpu_ns(pid) for pid in workers_of(service)) / 1e9


async def until_idle(service: LocalService, timeout: float = 30.0) -> None:
    """Wait until the workers are idle (under 10% of a core each over 0.2 s): every
    long-poll a move answered has been re-parked, so the next move is timed from a
    settled service."""
    workers = len(workers_of(service))
    deadline = time.monotonic() + timeout
    before = worker_cpu(service)
    while time.monotonic() < deadline:
        await asyncio.sleep(0.2)
        now = worker_cpu(service)
        if now - before <= 0.02 * workers:
            return
        before = now


def redis_clients(service: LocalService) -> int:
    with redis.Redis.from_url(service.redis_url) as rds:
        return int(rds.info("clients")["connected_clients"])


async def wake_rows(service: LocalService, kind: str, targets: list[int], moves: int,
                    settle: float, log: Any) -> list[dict[str, Any]]:
    """For each target, park waiters of ``kind`` on one game up to it, then time
    ``moves`` moves: when each waiter heard of each (ms after the move was sent)."""
    port = int(service.url.rsplit(":", 1)[1])
    game_id, tokens, _ = await new_game(port, f"push-{kind}")
    control = await Http(port).open()
    view = await on_turn_view(control, game_id, tokens)
    view = await play(control, game_id, tokens, view)  # both workers warm, nobody waiting
    await until_idle(service)
    base_rss = [rss_mb(pid) for pid in workers_of(service)]
    procs: list[LoadProcess] = []
    rows = []
    try:
        for target in targets:
            while sum(p.waiters for p in procs) < target:
                if not procs or procs[-1].waiters >= PER_PROCESS:
                    procs.append(await LoadProcess.start(port))
                count = min(target - sum(p.waiters for p in procs),
                            PER_PROCESS - procs[-1].waiters)
                await procs[-1].park(kind, [[game_id, view["version"]]], count)
            await asyncio.sleep(settle)  # every request has reached a worker and parked
            await until_idle(service)
            wake_ms: list[float] = []
            lasts: list[float] = []
            held = 0
            load_cpu = sum(s["cpu"] for s in await asyncio.gather(*(p.ask("stats") for p in procs)))
            for _ in range(moves):
                started = time.monotonic()
                view = await play(control, game_id, tokens, view)
                answers = await asyncio.gather(*(p.ask(
                    "heard", game=game_id, version=view["version"], wait=60) for p in procs))
                heard = sorted((t - started) * 1000 for a in answers for t in a["times"])
                held = len(heard)
                wake_ms += heard
                lasts.append(heard[-1] if heard else float("nan"))
                await until_idle(service)  # the long-polls re-park
            wake_ms.sort()
            rss = [rss_mb(pid) for pid in workers_of(service)]
            stats = await asyncio.gather(*(p.ask("stats") for p in procs))
            load_cpu = (sum(s["cpu"] for s in stats) - load_cpu) / moves
            statuses: Counter[str] = Counter()
            for s in stats:
                statuses.update(s["statuses"])
            rows.append({
                "kind": kind, "waiters": target, "procs": len(procs), "held": held,
                "p50": percentile(wake_ms, 0.5), "p99": percentile(wake_ms, 0.99),
                "last": max(lasts), "rss": rss,
                "kb": (sum(rss) - sum(base_rss)) * 1024 / target,
                "clients": redis_clients(service),
                "refused": sum(n for s, n in statuses.items() if s != "200"),
                "load_cpu": load_cpu,
            })
            log(f"  {kind} {target}: held {held}, last {rows[-1]['last']:.0f} ms")
    finally:
        control.close()
        for p in procs:
            await p.quit()
    return rows


async def idle_row(service: LocalService, idle: int, hot: int, moves: int, games: int,
                   log: Any) -> dict[str, Any]:
    """Worker CPU per move of game H (``hot`` waiters of its own, half long-polls, half
    streams), first with no other waiter, then with ``idle`` waiters (half and half) on
    ``games`` other games that nobody moves. The idle CPU between moves (stream
    heartbeats, timers) is measured over as long a quiet spell and taken off."""
    port = int(service.url.rsplit(":", 1)[1])
    h_id, h_tokens, _ = await new_game(port, "push-hot")
    control = await Http(port).open()
    view = await on_turn_view(control, h_id, h_tokens)
    others = [await new_game(port, f"push-idle-{i}") for i in range(games)]
    load = await LoadProcess.start(port)

    async def per_move() -> tuple[float, float]:
        nonlocal view
        await until_idle(service)
        quiet_start, quiet_cpu = time.monotonic(), worker_cpu(service)
        await asyncio.sleep(1.0)
        background = (worker_cpu(service) - quiet_cpu) / (time.monotonic() - quiet_start)
        spent = []
        for _ in range(moves):
            await until_idle(service)
            started, cpu = time.monotonic(), worker_cpu(service)
            view = await play(control, h_id, h_tokens, view)
            await load.ask("heard", game=h_id, version=view["version"], wait=30)
            await until_idle(service)
            elapsed = time.monotonic() - started
            spent.append(worker_cpu(service) - cpu - background * elapsed)
        spent.sort()
        return statistic(spent), background

    try:
        await load.park("poll", [[h_id, view["version"]]], hot // 2)
        await load.park("stream", [[h_id, view["version"]]], hot - hot // 2)
        none_ms, none_bg = await per_move()
        idle_games = [[g_id, state["version"]] for g_id, _, state in others]
        await load.park("poll", idle_games, idle // 2)
        await load.park("stream", idle_games, idle - idle // 2)
        with_ms, with_bg = await per_move()
    finally:
        control.close()
        await load.quit()
    log(f"  move CPU: {none_ms * 1000:.1f} ms, {with_ms * 1000:.1f} ms with {idle} idle")
    return {"idle": idle, "hot": hot, "games": games, "moves": moves,
            "none_ms": none_ms * 1000, "with_ms": with_ms * 1000,
            "none_bg": none_bg * 1000, "with_bg": with_bg * 1000}


def statistic(samples: list[float]) -> float:
    """The median of sorted samples: one move slowed by another session's burst on this
    shared machine should not be the row."""
    return percentile(samples, 0.5)


async def probe(port: int, path: str, until: float, every: float,
                times: list[float], statuses: Counter[str],
                series: list[tuple[float, float]]) -> None:
    """``GET path`` from the other client, one every ``every`` seconds until ``until``."""
    http = await Http(port, OTHER).open()
    try:
        while time.monotonic() < until:
            started = time.monotonic()
            status, _ = await http.request("GET", path)
            times.append((time.monotonic() - started) * 1000)
            series.append((started, times[-1]))
            statuses[str(status)] += 1
            await asyncio.sleep(max(0.0, started + every - time.monotonic()))
    finally:
        http.close()


async def probes(port: int, paths: dict[str, str], seconds: float,
                 every: float) -> dict[str, Any]:
    until = time.monotonic() + seconds
    times: dict[str, list[float]] = {name: [] for name in paths}
    statuses: Counter[str] = Counter()
    series: list[tuple[float, float]] = []
    start = time.monotonic()
    await asyncio.gather(*(probe(port, path, until, every, times[name], statuses, series)
                           for name, path in paths.items()))
    every_probe = sorted(t for ts in times.values() for t in ts)
    out = {name: sorted(ts) for name, ts in times.items()}
    worst: dict[int, float] = {}  # the slowest probe started in each 5 s of the phase
    for at, ms in series:
        worst[int((at - start) // 5)] = max(ms, worst.get(int((at - start) // 5), 0.0))
    return {"times": out, "all": every_probe, "statuses": statuses,
            "worst": [worst.get(i, float("nan")) for i in range(max(worst, default=-1) + 1)]}


async def loop_row(service: LocalService, count: int, seconds: float, quiet: float,
                   every: float, log: Any) -> dict[str, Any]:
    """Another client's probes (``/healthz`` and a game's spectator view), quiet, then
    while one client loops ``count`` spectator long-polls on its own game (from when all
    of them have sent their first request: the ramp, a burst of ``count`` connections,
    is reported on its own)."""
    port = int(service.url.rsplit(":", 1)[1])
    loop_game = await new_game(port, "push-loop")
    probe_game = await new_game(port, "push-probe", OTHER)
    paths = {"/healthz": "/healthz", "view": f"/v1/games/{probe_game[0]}"}
    quiet_probes = await probes(port, paths, quiet, every)
    load = await LoadProcess.start(port)
    try:
        games = [[loop_game[0], loop_game[2]["version"]]]
        ramp = (await load.ask("loop", games=games, count=count, seconds=seconds))["ramp"]
        cpu = worker_cpu(service)
        loaded = await probes(port, paths, seconds, every)
        cpu = worker_cpu(service) - cpu
        looper = (await load.ask("stats"))["statuses"]
    finally:
        await load.quit()
    log(f"  loop: probe p99 {percentile(loaded['all'], 0.99):.1f} ms; looper {looper}")
    return {"count": count, "seconds": seconds, "quiet": quiet_probes, "loaded": loaded,
            "looper": looper, "worker_cpu": cpu, "ramp": ramp}


async def account_row(service: LocalService, accounts: int, games: int, moves: int,
                      settle: float, log: Any) -> dict[str, Any]:
    """``accounts`` bot accounts, each with its account stream parked (load processes of
    10,000 each); the first ``2 × games`` paired in games by a challenge and its
    acceptance. Then ``moves`` times, every game's account on turn draws and discards,
    all games at once: when the other account's stream heard ``your_turn`` of that
    version, in ms after the discard was sent."""
    port = int(service.url.rsplit(":", 1)[1])
    procs: list[LoadProcess] = []
    kept: list[list[str]] = []
    owner: dict[str, LoadProcess] = {}
    started = time.monotonic()
    try:
        for first in range(0, accounts, PER_PROCESS):
            proc = await LoadProcess.start(port)
            procs.append(proc)
            count = min(PER_PROCESS, accounts - first)
            keep = max(0, min(count, 2 * games - len(kept)))
            made = (await proc.ask("accounts", count=count, prefix=f"p{len(procs)}x",
                                   keep=keep))["accounts"]
            proc.waiters = count
            kept += made
            owner.update({handle: proc for handle, _ in made})
        setup = time.monotonic() - started
        log(f"  {accounts} accounts made and their streams parked in {setup:.0f} s")
        tables = []
        for g in range(games):
            (a, key_a), (b, key_b) = kept[2 * g], kept[2 * g + 1]
            http = await Http(port).open()
            status, challenge = await http.request(
                "POST", "/v1/challenges", {"to": [b], "rated": False},
                {"Authorization": f"Bearer {key_a}"})
            assert status == 201, challenge
            status, accepted = await http.request(
                "POST", f"/v1/challenges/{challenge['challenge_id']}/accept", None,
                {"Authorization": f"Bearer {key_b}"})
            assert status == 200 and accepted["game_id"], accepted
            keys = [key_a, key_b]
            view = await on_turn_view(http, accepted["game_id"], keys)
            tables.append({"http": http, "game": accepted["game_id"], "keys": keys,
                           "handles": [a, b], "view": view})
        await asyncio.sleep(settle)
        await until_idle(service)

        async def turn(table: dict[str, Any]) -> tuple[str, str, int, float]:
            """The account on turn draws, then discards: (the next account, the game, the
            version its turn began at, when the discard was sent)."""
            drawn = await play(table["http"], table["game"], table["keys"], table["view"])
            sent = time.monotonic()
            table["view"] = await play(table["http"], table["game"], table["keys"], drawn)
            seat = table["view"]["round"]["current_seat"]
            return table["handles"][seat], table["game"], table["view"]["version"], sent

        told_ms: list[float] = []
        missed = 0
        for _ in range(moves):
            turns = await asyncio.gather(*(turn(t) for t in tables))
            for proc in procs:
                wanted = [[h, g, v] for h, g, v, _ in turns if owner[h] is proc]
                if not wanted:
                    continue
                times = (await proc.ask("told", wanted=wanted, wait=30))["times"]
                sent = {(h, g, v): t for h, g, v, t in turns}
                for (h, g, v), at in zip(map(tuple, wanted), times, strict=True):
                    if at is None:
                        missed += 1
                    else:
                        told_ms.append((at - sent[(h, g, v)]) * 1000)
            await until_idle(service)
        told_ms.sort()
        stats = await asyncio.gather(*(p.ask("stats") for p in procs))
        statuses: Counter[str] = Counter()
        for s in stats:
            statuses.update(s["statuses"])
        rss, clients = [rss_mb(pid) for pid in workers_of(service)], redis_clients(service)
        for table in tables:
            table["http"].close()
    finally:
        for p in procs:
            await p.quit()
    row = {"accounts": accounts, "games": games, "moves": moves, "procs": len(procs),
           "told": len(told_ms), "missed": missed, "setup": setup,
           "p50": percentile(told_ms, 0.5), "p99": percentile(told_ms, 0.99),
           "last": told_ms[-1] if told_ms else float("nan"),
           "parked": statuses.get("stream 200", 0), "closed": statuses.get("closed", 0),
           "rss": rss, "clients": clients}
    log(f"  account streams {accounts}: your_turn p99 {row['p99']:.0f} ms, missed {missed}")
    return row
