"""``make bench-push``: thousands of parked waiters on one game while games are played.

Starts Redis and a 2-worker gunicorn (the deployed ``deploy/gunicorn.conf.py``), then, in
this process (an asyncio client, so the load generator is not the server), for each row
of ``--waiters`` (default 0, 2,000, 5,000 and 10,000):

1. parks that many waiters on one game ``G`` (a mix of spectator long-polls
   ``GET /v1/games/G?wait_version=V`` and pushed streams ``GET /v1/games/G/stream``
   as NDJSON, ``--stream-share`` of them streams), each on its own connection;
2. times ``--actions`` actions played one after another on another game (p50/p99),
   while the waiters stay parked;
3. makes ``--moves`` moves on ``G`` and times, for each, how long until every waiter
   heard of it (p50, p99 and the last), re-parking the long-polls after each and
   making the next move only once the workers are idle again (every re-park served);
4. reads the workers' RSS, Redis's connected clients and the Redis commands one move
   of ``G`` costs (``INFO``'s ``total_commands_processed`` across the move and its
   wake-ups).

Memory per waiter is the growth of the workers' RSS from the row with none, divided by
the waiters. The targets (issue 12) are printed under the table.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import time
from typing import Any

import redis

from service.match.local import local_service
from tests.bench.procs import children, percentile, ppid_and_cpu, rss_mb

HOST = "127.0.0.1"


class Http:
    """One keep-alive HTTP/1.1 connection, enough of the protocol for this benchmark;
    from the ``source`` address when given (another loopback address is another client
    to the service: ``make bench-bots``)."""

    def __init__(self, port: int, source: str | None = None) -> None:
        self.port = port
        self.source = source
        self.reader: asyncio.StreamReader
        self.writer: asyncio.StreamWriter

    async def open(self) -> Http:
        self.reader, self.writer = await asyncio.open_connection(
            HOST, self.port, local_addr=(self.source, 0) if self.source else None)
        return self

    def send(self, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", f"Content-Length: {len(data)}"]
        if body is not None:
            lines.append("Content-Type: application/json")
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + data)

    async def head(self) -> tuple[int, dict[str, str]]:
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("closed")
        headers = {}
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode().partition(":")
            headers[name.strip().lower()] = value.strip()
        return int(status_line.split()[1]), headers

    async def response(self) -> tuple[int, Any]:
        status, headers = await self.head()
        body = await self.reader.readexactly(int(headers.get("content-length", "0")))
        return status, json.loads(body) if body else None

    async def request(self, method: str, path: str, body: Any = None,
                      headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """One request; if the server closed the idle keep-alive connection (after its
        ``keepalive`` seconds), once more on a new one."""
        for attempt in range(2):
            try:
                self.send(method, path, body, headers)
                return await self.response()
            except (ConnectionError, asyncio.IncompleteReadError):
                if attempt:
                    raise
                self.close()
                await self.open()
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.writer.close()


class Waiter:
    """One parked client of game ``G``: a long-poll re-parked after each wake, or a stream."""

    def __init__(self, port: int, game_id: str, stream: bool) -> None:
        self.port, self.game_id, self.stream = port, game_id, stream
        self.heard: dict[int, float] = {}  # version → when this waiter heard of it
        self.task: asyncio.Task[None] | None = None

    async def run(self, version: int, parked: asyncio.Event) -> None:
        http = await Http(self.port).open()
        try:
            if self.stream:
                await self._stream(http, parked)
            else:
                await self._long_poll(http, version, parked)
        finally:
            http.close()

    async def _long_poll(self, http: Http, version: int, parked: asyncio.Event) -> None:
        while True:
            http.send("GET", f"/v1/games/{self.game_id}?wait_version={version}&timeout=60")
            parked.set()
            # the version from the ETag, the body read but not parsed: the load generator
            # must not be what delays the last of 10,000 wake-ups
            status, headers = await http.head()
            await http.reader.readexactly(int(headers.get("content-length", "0")))
            seen = int(headers.get("etag", '"-1"').strip('"'))
            if status == 200 and seen > version:
                version = seen
                self.heard[version] = time.perf_counter()

    async def _stream(self, http: Http, parked: asyncio.Event) -> None:
        http.send("GET", f"/v1/games/{self.game_id}/stream",
                  headers={"Accept": "application/x-ndjson"})
        status, _ = await http.head()
        parked.set()
        if status != 200:
            return
        while line := await http.reader.readline():  # chunked: size lines and data lines
            text = line.strip()
            if text.startswith(b"{"):
                message = json.loads(text)
                if message.get("type") == "view":
                    self.heard[message["view"]["version"]] = time.perf_counter()


async def new_game(port: int, seed: str) -> tuple[str, list[str], dict[str, Any]]:
    http = await Http(port).open()
    status, created = await http.request(
        "POST", "/v1/games", {"players": [{"name": "a"}, {"name": "b"}], "seed": seed})
    http.close()
    assert status == 201, created
    return created["game_id"], [s["token"] for s in created["seats"]], created["state"]


async def play(http: Http, game_id: str, tokens: list[str], view: dict[str, Any]) -> dict[str, Any]:
    """One action on ``game_id`` for the seat on turn (draw from stock, or discard)."""
    seat = view["round"]["current_seat"]
    if view["round"]["phase"] in ("draw", "final_draw"):
        action: dict[str, Any] = {"type": "draw", "source": "stock"}
    else:
        action = {"type": "discard", "card": view["you"]["hand"][0]}
    for _ in range(2):
        status, body = await http.request(
            "POST", f"/v1/games/{game_id}/actions", action,
            {"Authorization": f"Bearer {tokens[seat]}"})
        if status == 200:
            return body  # type: ignore[no-any-return]
    raise RuntimeError(f"action refused: {status} {body}")


async def seat_view(http: Http, game_id: str, token: str) -> dict[str, Any]:
    status, view = await http.request("GET", f"/v1/games/{game_id}",
                                      headers={"Authorization": f"Bearer {token}"})
    assert status == 200, view
    return view  # type: ignore[no-any-return]


def worker_rss(master: int) -> list[float]:
    return [rss_mb(pid) for pid in children(master)]


async def until_idle(master: int, timeout: float = 15.0) -> None:
    """Wait until the workers are idle (under 10% CPU over 0.2 s): every long-poll a
    move answered has been re-parked, so the next move is timed from a settled service
    (a move made while thousands of re-parks are still queued would time them too)."""
    workers = children(master)
    deadline = time.monotonic() + timeout

    def cpu() -> float:
        return sum(ppid_and_cpu(pid)[1] for pid in workers)

    before = cpu()
    while time.monotonic() < deadline:
        await asyncio.sleep(0.2)
        now = cpu()
        if now - before <= 0.02 * len(workers):
            return
        before = now


async def row(args: argparse.Namespace, port: int, service: Any, waiters: list[Waiter],
              target: int, games: dict[str, Any]) -> dict[str, Any]:
    g_id, g_tokens, _ = games["G"]
    b_id, b_tokens, _ = games["B"]
    control = await Http(port).open()
    g_view = await seat_view(control, g_id, g_tokens[0])
    g_view = await seat_view(control, g_id, g_tokens[g_view["round"]["current_seat"]])
    while len(waiters) < target:  # open the new waiters in batches (the listen backlog)
        batch = []
        for _ in range(min(500, target - len(waiters))):
            w = Waiter(port, g_id, stream=len(waiters) % 100 < args.stream_share * 100)
            parked = asyncio.Event()
            w.task = asyncio.create_task(w.run(g_view["version"], parked))
            waiters.append(w)
            batch.append(parked.wait())
        await asyncio.wait_for(asyncio.gather(*batch), 60)
    await asyncio.sleep(args.settle)  # every request has reached a worker and parked
    await until_idle(service.server_pid)

    b_view = await seat_view(control, b_id, b_tokens[0])
    b_view = await seat_view(control, b_id, b_tokens[b_view["round"]["current_seat"]])
    action_ms = []
    for _ in range(args.actions):
        started = time.perf_counter()
        b_view = await play(control, b_id, b_tokens, b_view)
        action_ms.append((time.perf_counter() - started) * 1000)

    await until_idle(service.server_pid)
    rds = redis.Redis.from_url(service.redis_url)
    wake_ms: list[float] = []
    last_ms: list[float] = []
    held = 0
    commands = []
    for _ in range(args.moves):
        before = rds.info("stats")["total_commands_processed"]
        started = time.perf_counter()
        g_view = await play(control, g_id, g_tokens, g_view)
        version = g_view["version"]
        deadline = time.monotonic() + args.wake_timeout
        while time.monotonic() < deadline and any(version not in w.heard for w in waiters):
            await asyncio.sleep(0.01)
        heard = sorted((w.heard[version] - started) * 1000 for w in waiters if version in w.heard)
        held = len(heard)
        wake_ms += heard
        if heard:
            last_ms.append(heard[-1])
        await until_idle(service.server_pid)  # long-polls re-park
        commands.append(rds.info("stats")["total_commands_processed"] - before - 1)
    clients = rds.info("clients")["connected_clients"]
    rds.close()
    control.close()
    action_ms.sort()
    wake_ms.sort()
    return {
        "waiters": target, "held": held,
        "act_p50": percentile(action_ms, 0.5), "act_p99": percentile(action_ms, 0.99),
        "wake_p50": percentile(wake_ms, 0.5), "wake_p99": percentile(wake_ms, 0.99),
        "wake_last": max(last_ms) if last_ms else float("nan"),
        "rss": worker_rss(service.server_pid), "clients": clients,
        "commands": statistics.median(commands) if commands else float("nan"),
    }


def print_table(rows: list[dict[str, Any]], workers: int) -> None:
    base_rss = sum(rows[0]["rss"]) if rows and rows[0]["waiters"] == 0 else None
    print(f"\n{workers} gunicorn workers ({os.environ.get('WORKER_CLASS') or 'deploy default'}),"
          " waiters parked on one game while another is played\n")
    print(f"{'waiters':>8} {'held':>6} {'act p50':>8} {'act p99':>8} {'wake p50':>9} "
          f"{'wake p99':>9} {'last':>7} {'RSS/worker MB':>14} {'KB/waiter':>9} "
          f"{'redis conns':>11} {'cmds/move':>9}")
    for r in rows:
        per = (f"{(sum(r['rss']) - base_rss) * 1024 / r['waiters']:.1f}"
               if base_rss is not None and r["waiters"] else "")
        rss = "/".join(f"{x:.0f}" for x in r["rss"])
        print(f"{r['waiters']:>8} {r['held']:>6} {r['act_p50']:>8.2f} {r['act_p99']:>8.2f} "
              f"{r['wake_p50']:>9.1f} {r['wake_p99']:>9.1f} {r['wake_last']:>7.1f} {rss:>14} "
              f"{per:>9} {r['clients']:>11} {r['commands']:>9.0f}")
    print("\n(ms; 'held' = waiters that heard the last move; targets: 10,000 held, action p99 "
          "≤ 2× the row with none, wake p99 ≤ 1000 and last ≤ 2000, ≤ 30 KB/waiter, ≤ ~50 "
          "Redis connections per worker, Redis commands per move independent of waiters)")


async def main_async(args: argparse.Namespace) -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # 10,000 sockets; the server too
    os.environ.setdefault("LONG_POLL_MAX_SECONDS", "60")
    for name in ("MAX_WAITS_PER_ADDRESS", "MAX_WAITS_PER_TOKEN"):
        os.environ[name] = "off"  # every waiter comes from this one address
    with local_service(args.workers) as service:
        port = int(service.url.rsplit(":", 1)[1])
        games = {"G": await new_game(port, "push-G"), "B": await new_game(port, "push-B")}
        waiters: list[Waiter] = []
        rows = []
        for target in args.waiters:
            rows.append(await row(args, port, service, waiters, target, games))
            print(f"  row {target}: held {rows[-1]['held']}", flush=True)
        for w in waiters:
            if w.task is not None:
                w.task.cancel()
        await asyncio.gather(*(w.task for w in waiters if w.task), return_exceptions=True)
    print_table(rows, args.workers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waiters", type=int, nargs="+", default=[0, 2000, 5000, 10000])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--actions", type=int, default=200)
    parser.add_argument("--moves", type=int, default=5)
    parser.add_argument("--stream-share", type=float, default=0.5)
    parser.add_argument("--settle", type=float, default=2.0)
    parser.add_argument("--wake-timeout", type=float, default=10.0)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
