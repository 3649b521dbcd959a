"""The rows of ``make bench-push``: each measured on a fresh service (``bench_push.py``
prints them).

- :func:`wake_rows`: waiters of one kind parked on one game, on the web workers (5,000,
  10,000 and 20,000; beyond 10,000 a second load process) or on a push process
  (``python -m service.push``, :func:`push_process`, 10,000), and for each, how long
  after a move every waiter heard of it, the server's CPU per woken waiter, how long
  the move and another game's view took meanwhile; the server's RSS growth per waiter
  and Redis's connections.
- :func:`capacity_row`: many games with a few waiters each on a push process, moves at
  a steady rate across them: how long after each move each waiter heard of it, and the
  push process's CPU per answer delivered.
- :func:`idle_row`: the workers' CPU per move of a game with its own waiters, without
  and with 5,000 idle waiters on other games.
- :func:`account_row`: account streams parked, one per account, 10,000 and more; games
  between some of them, and how long after a move the account on turn heard ``your_turn``.
- :func:`loop_row`: one client (127.0.0.1) looping 5,000 long-polls past its limit on
  ``make run``'s limits while another client (127.0.0.2) probes ``/healthz`` and a view.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import redis

from service.match.local import ROOT, LocalService, free_port
from tests.bench.aio_http import Http, new_game, on_turn_view, play
from tests.bench.procs import children, cpu_ns, percentile, rss_mb
from tests.bench.push_idle import spread

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


def cpu_of(pids: list[int]) -> float:
    """The CPU seconds so far of the processes ``pids`` (all their threads)."""
    return sum(cpu_ns(pid) for pid in pids) / 1e9


def worker_cpu(service: LocalService) -> float:
    """The web workers' CPU seconds so far."""
    return cpu_of(workers_of(service))


async def until_idle(service: LocalService | list[int], timeout: float = 30.0) -> None:
    """Wait until the workers (or the processes ``pids``) are idle (under 10% of a core
    each over 0.2 s): every long-poll a move answered has been re-parked, so the next
    move is timed from a settled service."""
    pids = service if isinstance(service, list) else workers_of(service)
    deadline = time.monotonic() + timeout
    before = cpu_of(pids)
    while time.monotonic() < deadline:
        await asyncio.sleep(0.2)
        now = cpu_of(pids)
        if now - before <= 0.02 * len(pids):
            return
        before = now


async def idle_rate(pids: list[int], seconds: float = 1.0) -> float:
    """The CPU seconds per second ``pids`` use while nothing happens (timers, and the
    heartbeats of any stream due), measured over ``seconds``: what is taken off a move's
    CPU for as long as the move took."""
    started, cpu = time.monotonic(), cpu_of(pids)
    await asyncio.sleep(seconds)
    return (cpu_of(pids) - cpu) / (time.monotonic() - started)


@dataclass(frozen=True)
class Waiting:
    """Where the waiters of a row wait: the web workers (``tier`` ``gunicorn``) or a push
    process beside them (``push``). ``port`` is what the load processes connect to;
    ``pids`` the processes whose CPU and RSS are the row's (both workers, or the push
    process); ``settled`` those that must be idle before a move is timed (the push
    process and the workers, which make the moves)."""

    tier: str
    port: int
    pids: list[int]
    settled: list[int]

    @classmethod
    def workers(cls, service: LocalService) -> Waiting:
        workers = workers_of(service)
        return cls("gunicorn", port_of(service), workers, workers)

    @classmethod
    def push(cls, service: LocalService, push: PushProcess) -> Waiting:
        return cls("push", push.port, [push.pid], [push.pid, *workers_of(service)])


@dataclass(frozen=True)
class PushProcess:
    port: int
    pid: int


def port_of(service: LocalService) -> int:
    return int(service.url.rsplit(":", 1)[1])


@contextlib.contextmanager
def push_process(service: LocalService, env_extra: dict[str, str]) -> Iterator[PushProcess]:
    """``python -m service.push`` on a free port beside ``service``, on its Redis (its
    ``REDIS_URL``) with ``env_extra`` (the same wait limits as the workers were given);
    stopped (SIGTERM, its graceful stop) on the way out."""
    port = free_port()
    # its errors (an unhandled one is logged at "error") reach the benchmark's stderr
    env = {**os.environ, "REDIS_URL": service.redis_url, "LOG_LEVEL": "error", **env_extra}
    proc = subprocess.Popen(
        [sys.executable, "-m", "service.push", "--host", "127.0.0.1", "--port", str(port)],
        env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the push process exited with {proc.returncode}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the push process did not come up in 30 s") from None
                time.sleep(0.1)
        yield PushProcess(port, proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(40)  # its grace for running long-polls is 35 s
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def redis_clients(service: LocalService) -> int:
    with redis.Redis.from_url(service.redis_url) as rds:
        return int(rds.info("clients")["connected_clients"])


async def wake_rows(service: LocalService, where: Waiting, kind: str, targets: list[int],
                    moves: int, settle: float, every: float, log: Any) -> list[dict[str, Any]]:
    """For each target, park waiters of ``kind`` on one game up to it (where ``where``
    says), then time ``moves`` moves: when each waiter heard of each (ms after the move
    was sent); the server's CPU per woken waiter (``where.pids``' CPU from the move
    until they are idle again, the idle CPU of a quiet second before it taken off); and,
    while the waiters wake, how long the move's own request took and another client's
    ``GET`` of another game's view (one every ``every`` seconds), both at the web
    workers."""
    port = port_of(service)
    game_id, tokens, _ = await new_game(port, f"push-{where.tier}-{kind}")
    other_id = (await new_game(port, "push-other", OTHER))[0]
    control = await Http(port).open()
    view = await on_turn_view(control, game_id, tokens)
    view = await play(control, game_id, tokens, view)  # both workers warm, nobody waiting
    await until_idle(where.settled)
    base_rss = [rss_mb(pid) for pid in where.pids]
    procs: list[LoadProcess] = []
    rows = []
    try:
        for target in targets:
            while sum(p.waiters for p in procs) < target:
                if not procs or procs[-1].waiters >= PER_PROCESS:
                    procs.append(await LoadProcess.start(where.port))
                count = min(target - sum(p.waiters for p in procs),
                            PER_PROCESS - procs[-1].waiters)
                await procs[-1].park(kind, [[game_id, view["version"]]], count)
            await asyncio.sleep(settle)  # every request has reached a server and parked
            await until_idle(where.settled)
            wake_ms: list[float] = []
            lasts: list[float] = []
            cpu_us: list[float] = []
            move_ms: list[float] = []
            other_ms: list[float] = []
            held = 0
            load_cpu = sum(s["cpu"] for s in await asyncio.gather(*(p.ask("stats") for p in procs)))
            for _ in range(moves):
                await until_idle(where.settled)
                background = await idle_rate(where.pids)
                done = asyncio.Event()
                prober = asyncio.create_task(probe_while(
                    await Http(port, OTHER).open(), f"/v1/games/{other_id}", done, every,
                    other_ms))
                cpu, started = cpu_of(where.pids), time.monotonic()
                view = await play(control, game_id, tokens, view)
                move_ms.append((time.monotonic() - started) * 1000)
                answers = await asyncio.gather(*(p.ask(
                    "heard", game=game_id, version=view["version"], wait=60) for p in procs))
                done.set()
                await prober
                heard = sorted((t - started) * 1000 for a in answers for t in a["times"])
                held = len(heard)
                wake_ms += heard
                lasts.append(heard[-1] if heard else float("nan"))
                await until_idle(where.settled)  # the long-polls re-park
                spent = cpu_of(where.pids) - cpu - background * (time.monotonic() - started)
                cpu_us.append(spent / max(1, held) * 1e6)
            wake_ms.sort()
            cpu_us.sort()
            other_ms.sort()
            rss = [rss_mb(pid) for pid in where.pids]
            stats = await asyncio.gather(*(p.ask("stats") for p in procs))
            load_cpu = sum(s["cpu"] for s in stats) - load_cpu
            statuses: Counter[str] = Counter()
            for s in stats:
                statuses.update(s["statuses"])
            rows.append({
                "tier": where.tier, "kind": kind, "waiters": target, "procs": len(procs),
                "held": held, "p50": percentile(wake_ms, 0.5),
                "p99": percentile(wake_ms, 0.99), "last": max(lasts),
                "cpu_us": statistic(cpu_us), "move_ms": max(move_ms),
                "other_ms": other_ms[-1] if other_ms else float("nan"),
                "probes": len(other_ms), "rss": rss,
                "kb": (sum(rss) - sum(base_rss)) * 1024 / target,
                "clients": redis_clients(service),
                "refused": sum(n for s, n in statuses.items() if s != "200"),
                "load_us": load_cpu / max(1, moves * held) * 1e6,
            })
            log(f"  {where.tier} {kind} {target}: held {held}, p99 {rows[-1]['p99']:.0f} ms, "
                f"last {rows[-1]['last']:.0f} ms, {rows[-1]['cpu_us']:.0f} µs/waiter")
    finally:
        control.close()
        for p in procs:
            await p.quit()
    return rows


async def probe_while(http: Http, path: str, done: asyncio.Event, every: float,
                      times: list[float]) -> None:
    """``GET path`` on ``http`` (the other client's connection), one every ``every``
    seconds until ``done`` is set (at least one): the ms each took, added to ``times``."""
    try:
        while True:
            started = time.monotonic()
            status, body = await http.request("GET", path)
            if status != 200:
                raise RuntimeError(f"GET {path}: {status} {body}")
            times.append((time.monotonic() - started) * 1000)
            if done.is_set():
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), max(0.0, started + every - time.monotonic()))
            if done.is_set():
                return
    finally:
        http.close()


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


async def capacity_row(service: LocalService, push: PushProcess, kind: str, games: int,
                       per_game: int, rate: float, seconds: float, settle: float,
                       log: Any) -> dict[str, Any]:
    """``games`` games, ``per_game`` waiters of ``kind`` parked on each at the push
    process; then for ``seconds``, moves at ``rate`` a second, one game after another
    (a game still moving is skipped), made over a few connections to the web workers.
    For each move and each waiter of its game: how long after the move was sent the
    waiter heard of it; the push process's CPU over the whole run (until it is idle
    again, a quiet second's idle CPU taken off) per answer delivered."""
    port = port_of(service)
    where = Waiting.push(service, push)
    at_once = asyncio.Semaphore(8)

    async def table(i: int) -> tuple[str, list[str], dict[str, Any], int]:
        async with at_once:
            game_id, tokens, spectator = await new_game(port, f"push-cap-{i}")
            http = await Http(port).open()
            try:
                return game_id, tokens, await on_turn_view(http, game_id, tokens), \
                    spectator["version"]
            finally:
                http.close()

    made = await asyncio.gather(*(table(i) for i in range(games)))
    views = [view for _, _, view, _ in made]
    count = games * per_game
    procs: list[LoadProcess] = []
    pool: asyncio.Queue[Http] = asyncio.Queue()
    for _ in range(16):
        pool.put_nowait(await Http(port).open())
    try:
        for first in range(0, count, PER_PROCESS):
            procs.append(await LoadProcess.start(push.port))
            await procs[-1].park(kind, [[g, v] for g, _, _, v in made],
                                 min(PER_PROCESS, count - first))
        await asyncio.sleep(settle)
        await until_idle(where.settled)
        background = await idle_rate(where.pids)
        load_cpu = sum(s["cpu"] for s in await asyncio.gather(*(p.ask("stats") for p in procs)))
        sent: list[tuple[str, int, float]] = []
        move_ms: list[float] = []
        moving: set[int] = set()

        async def move(i: int) -> None:
            http = await pool.get()
            try:
                started = time.monotonic()
                views[i] = await play(http, made[i][0], made[i][1], views[i])
                move_ms.append((time.monotonic() - started) * 1000)
                sent.append((made[i][0], views[i]["version"], started))
            finally:
                pool.put_nowait(http)
                moving.discard(i)

        cpu, started = cpu_of(where.pids), time.monotonic()
        tasks, turn, skipped = [], 0, 0
        while (due := started + len(tasks) / rate) < started + seconds:
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            while len(moving) >= games:  # every game's move still in flight
                await asyncio.sleep(0.005)
            while turn % games in moving:
                turn += 1
                skipped += 1
            moving.add(turn % games)
            tasks.append(asyncio.create_task(move(turn % games)))
            turn += 1
        await asyncio.gather(*tasks)
        answers = await asyncio.gather(*(p.ask(
            "heard_all", wanted=[[g, v] for g, v, _ in sent], wait=60) for p in procs))
        wake_ms: list[float] = []
        expected = 0
        for a in answers:
            for (_, _, at), times in zip(sent, a["times"], strict=True):
                wake_ms += [(t - at) * 1000 for t in times]
            expected += sum(a["waiters"])
        await until_idle(where.settled)
        spent = cpu_of(where.pids) - cpu - background * (time.monotonic() - started)
        stats = await asyncio.gather(*(p.ask("stats") for p in procs))
        load_cpu = sum(s["cpu"] for s in stats) - load_cpu
    finally:
        while not pool.empty():
            pool.get_nowait().close()
        for p in procs:
            await p.quit()
    wake_ms.sort()
    move_ms.sort()
    sends = sorted(t for _, _, t in sent)
    span = sends[-1] - sends[0] if sends else 0.0
    row = {"kind": kind, "games": games, "per_game": per_game, "rate": rate,
           "seconds": seconds, "moves": len(sent),
           "made_rate": (len(sends) - 1) / span if span > 0 else float("nan"),
           "skipped": skipped, "delivered": len(wake_ms), "missed": expected - len(wake_ms),
           "p50": percentile(wake_ms, 0.5), "p99": percentile(wake_ms, 0.99),
           "last": wake_ms[-1] if wake_ms else float("nan"),
           "move_p99": percentile(move_ms, 0.99),
           "cpu_us": spent / max(1, len(wake_ms)) * 1e6, "cpu_s": spent,
           "bg": background * 1000, "load_us": load_cpu / max(1, len(wake_ms)) * 1e6}
    log(f"  capacity: {len(sent)} moves, {len(wake_ms)} answers, p99 {row['p99']:.0f} ms, "
        f"{row['cpu_us']:.0f} µs/answer")
    return row


class IdleClients:
    """A ``tests.bench.push_idle`` process: ``count`` streams from ``source`` to ``port``,
    read (``read``) or never read, held until :meth:`quit`."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, port: int, source: str, count: int, rcvbuf: int, read: bool,
                    games: list[str]) -> IdleClients:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.bench.push_idle", str(port), source, str(count),
            str(rcvbuf), "read" if read else "stall", *games,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        return cls(proc)

    async def opened(self) -> dict[str, Any]:
        """Once every stream is open (and, read, has heard its first view)."""
        assert self.proc.stdout is not None
        line = await self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"push_idle exited ({await self.proc.wait()})")
        return json.loads(line)  # type: ignore[no-any-return]

    async def quit(self) -> None:
        assert self.proc.stdin is not None
        with contextlib.suppress(ConnectionError):
            self.proc.stdin.write(b"quit\n")
            await self.proc.stdin.drain()
        try:
            await asyncio.wait_for(self.proc.wait(), 60)
        except TimeoutError:
            self.proc.kill()
            await self.proc.wait()


def health(port: int) -> dict[str, Any]:
    """A push process's ``/healthz``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as answer:
        return json.loads(answer.read())  # type: ignore[no-any-return]


async def idle_streams_row(service: LocalService, env: dict[str, str], count: int,
                           games: int, per_process: int, rcvbuf: int, settle: float,
                           log: Any) -> dict[str, Any]:
    """``count`` spectator streams on ``games`` games nobody moves, held by as few push
    processes as hold ``per_process`` each (their open-file limit), each fed by a
    ``push_idle`` process from a loopback address of its own: once every stream heard
    its first view, the push processes' RSS growth since before the first connected,
    per stream."""
    port = port_of(service)
    ids = [(await new_game(port, f"push-idle-streams-{i}"))[0] for i in range(games)]
    shares = spread(count, per_process)
    clients: list[IdleClients] = []
    with contextlib.ExitStack() as stack:
        pushes = [stack.enter_context(push_process(service, env)) for _ in shares]
        pids = [p.pid for p in pushes]
        await until_idle(pids)
        base = [rss_mb(pid) for pid in pids]
        started = time.monotonic()
        try:
            for push, (source, share) in zip(pushes, shares, strict=True):
                clients.append(await IdleClients.start(push.port, source, share, rcvbuf,
                                                       True, ids))
            opened = [await c.opened() for c in clients]
            seconds = time.monotonic() - started
            await asyncio.sleep(settle)
            await until_idle(pids, timeout=120)
            rss = [rss_mb(pid) for pid in pids]
            waiting = sum(int(health(p.port)["waiting"]) for p in pushes)
        finally:
            for c in clients:
                await c.quit()
    heard = sum(o["heard"] for o in opened)
    grown = sum(rss) - sum(base)
    row = {"count": count, "games": games, "processes": len(pushes), "heard": heard,
           "waiting": waiting, "failed": sum(o["failed"] for o in opened),
           "seconds": seconds, "base": base, "rss": rss,
           "kb": grown * 1024 / max(1, heard),
           "client_mb": sum(o["rss_mb"] for o in opened)}
    log(f"  idle streams: {heard} heard in {seconds:.0f} s over {len(pushes)} push "
        f"processes, {row['kb']:.1f} KB per stream")
    return row


async def stalled_row(service: LocalService, push: PushProcess, readers: int, stalled: int,
                      moves: int, rcvbuf: int, settle: float, log: Any) -> dict[str, Any]:
    """``readers`` NDJSON streams on one game at the push process, and how long after
    each of ``moves`` moves they heard of it (a) alone, then (b) with ``stalled`` more
    streams on the game whose clients never read (``SO_RCVBUF`` ``rcvbuf``), once moves
    have filled their buffers until every one of them is paused (``/healthz``)."""
    port = port_of(service)
    game_id, tokens, _ = await new_game(port, "push-stalled")
    control = await Http(port).open()
    view = await on_turn_view(control, game_id, tokens)
    pids = [push.pid]
    settled = [push.pid, *workers_of(service)]
    load = await LoadProcess.start(push.port)
    stall: IdleClients | None = None

    async def move(cpu: list[float] | None = None) -> list[float]:
        """One move: when each reader heard of it (ms); its push process CPU (ms, until
        every reader heard) added to ``cpu``."""
        nonlocal view
        await until_idle(settled)
        spent, started = cpu_of(pids), time.monotonic()
        view = await play(control, game_id, tokens, view)
        answer = await load.ask("heard", game=game_id, version=view["version"], wait=60)
        if cpu is not None:
            cpu.append((cpu_of(pids) - spent) * 1000)
        return sorted((t - started) * 1000 for t in answer["times"])

    try:
        await load.park("stream", [[game_id, view["version"]]], readers)
        await asyncio.sleep(settle)
        statuses = (await load.ask("stats"))["statuses"]
        if statuses.get("200", 0) != readers or statuses.get("closed", 0):
            # (each move would wait its whole bound for readers that are gone)
            raise RuntimeError(f"the readers did not all open: {statuses}")
        alone: list[float] = []
        alone_cpu: list[float] = []
        for _ in range(moves):
            alone += await move(alone_cpu)
        stall = await IdleClients.start(push.port, OTHER, stalled, rcvbuf, False, [game_id])
        await stall.opened()
        filling = 0
        while health(push.port)["paused"] < stalled and filling < 300:
            await move()
            filling += 1
        state = health(push.port)
        beside: list[float] = []
        beside_cpu: list[float] = []
        for _ in range(moves):
            beside += await move(beside_cpu)
        after = health(push.port)
        cpu_rss = rss_mb(pids[0])
    finally:
        control.close()
        if stall is not None:
            await stall.quit()
        await load.quit()
    alone.sort()
    beside.sort()
    row = {"readers": readers, "stalled": stalled, "moves": moves, "filling": filling,
           "paused": min(state["paused"], after["paused"]), "unsent": after["unsent_bytes"],
           "alone_n": len(alone), "beside_n": len(beside),
           "alone_p50": percentile(alone, 0.5), "alone_p99": percentile(alone, 0.99),
           "beside_p50": percentile(beside, 0.5), "beside_p99": percentile(beside, 0.99),
           "rss": cpu_rss, "alone_cpu": statistic(sorted(alone_cpu)),
           "beside_cpu": statistic(sorted(beside_cpu))}
    log(f"  stalled: p99 {row['alone_p99']:.0f} ms alone, {row['beside_p99']:.0f} ms beside "
        f"{row['paused']} paused ({filling} moves to fill)")
    return row
