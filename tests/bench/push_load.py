"""A load process of ``make bench-push``: parked waiters, driven over stdin and stdout.

Why a process of its own: 10,000 connections are as many as one asyncio process reads
in time (and about half its open-file limit); 20,000 need two, and the benchmark's own
process must stay free to make the moves and time them. Each load process raises its
``RLIMIT_NOFILE`` soft limit to the hard one (one socket per waiter).

Why so lean: a push process answers a woken waiter in tens of microseconds, and the load
process shares the machine's cores with it, so what the load process spends reading an
answer is taken from the server being timed. It runs on uvloop, and a parked spectator
is an ``asyncio.Protocol`` (:class:`LongPoll`, :class:`Stream`) that scans the bytes it
received in the callback itself (a long-poll's status, ``Content-Length`` and ``ETag``;
a stream's view lines) and re-sends a long-poll from there: no task, no stream reader,
no header parsed that is not read.

Commands, one JSON object a line on stdin; each answered with one JSON line on stdout:

- ``{"op": "park", "kind": "poll"|"stream", "games": [[id, version], ...], "count": n}``:
  ``n`` more waiters, spread over the games, each on its own connection: spectator
  long-polls ``GET /v1/games/G?wait_version=V`` (re-parked at once after every answer,
  at the newest version) or NDJSON streams ``GET /v1/games/G/stream``. Answers once each
  has sent its request (a stream: once its head came) with ``{"waiters": total}``.
- ``{"op": "heard", "game": id, "version": v, "wait": s}``: waits up to ``s`` seconds
  until every waiter of ``game`` heard of version ``v`` (or a later one), then answers
  ``{"times": [...], "waiters": n}``: when each heard (``time.monotonic()``, which is the
  system's monotonic clock: the parent's timestamps compare with it).
- ``{"op": "heard_all", "wanted": [[id, version], ...], "wait": s}``: the same for many
  moves at once (the capacity row's): waits up to ``s`` seconds until every waiter of
  each game heard of its version, then answers ``{"times": [[...], ...]}``, for each
  wanted move the times of the waiters of its game that heard of it, and
  ``"waiters": [...]``, how many waiters each game has here.
- ``{"op": "loop", "games": [[id, version], ...], "count": n, "seconds": s}``: one
  client looping ``n`` long-polls, each re-sent as soon as it ends (after ``Retry-After``
  when refused; on a new connection when the server closed it), for ``s`` seconds from
  when all have sent their first request; answers then with ``{"ramp": seconds}``.
- ``{"op": "accounts", "count": n, "prefix": p, "keep": k}``: creates ``n`` bot accounts
  (handles ``p0``, ``p1``, …; a few requests at once) and parks each one's account stream
  (``GET /v1/me/stream``, NDJSON, with its key), each on its own connection; answers once
  every stream's head came with ``{"accounts": [[handle, key], ...]}``, the first ``k``.
- ``{"op": "told", "wanted": [[handle, game_id, version], ...], "wait": s}``: waits up
  to ``s`` seconds until each account heard ``your_turn`` for that game at that version;
  answers ``{"times": [...]}``, when each did (``null``: not in time).
- ``{"op": "stats"}``: ``{"statuses": {"200": count, "429 too_many_waits": count, ...},
  "cpu": seconds}`` (of this process, so far).
- ``{"op": "quit"}``: closes every connection and exits.
"""

from __future__ import annotations

import asyncio
import json
import re
import resource
import sys
import time
from collections import Counter
from typing import Any, cast

import uvloop

from tests.bench.aio_http import HOST, Http

VIEW = b'{"type":"view"'
VERSION = re.compile(rb'"version":(\d+)')  # a view's first "version" is its own
CONTENT_LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.IGNORECASE)
ETAG = re.compile(rb'\r\netag:[ \t]*(?:W/)?"(\d+)"', re.IGNORECASE)
RETRY_AFTER = re.compile(rb"\r\nretry-after:[ \t]*(\d+(?:\.\d+)?)", re.IGNORECASE)
BATCH = 500  # connections opened at once (the listen backlog)


class Spectator(asyncio.Protocol):
    """One parked spectator of one game on a connection of its own, as lean as the load
    process can make it: no task, no stream reader, the answer scanned in the callback
    that received it (and a long-poll re-sent from there). ``heard`` holds when it
    first heard of each version; ``newest`` is the newest it heard of (at first, the
    version it was parked at)."""

    def __init__(self, port: int, game_id: str, version: int,
                 statuses: Counter[str]) -> None:
        self.port, self.game_id, self.newest = port, game_id, version
        self.statuses = statuses
        self.heard: dict[int, float] = {}
        self.parked = asyncio.Event()
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.quitting = False

    async def open(self) -> None:
        try:
            await asyncio.get_running_loop().create_connection(lambda: self, HOST, self.port)
        except OSError:
            self.statuses["closed"] += 1
            self.parked.set()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # (uvloop's transports are not asyncio.Transport's subclasses, but have its methods)
        self.transport = cast(asyncio.Transport, transport)
        self.buffer = b""

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None
        self.parked.set()

    def close(self) -> None:
        self.quitting = True
        if self.transport is not None:
            self.transport.close()

    def hear(self, version: int) -> None:
        if version > self.newest:
            self.heard[version] = time.monotonic()
            self.newest = version


class LongPoll(Spectator):
    """Spectator long-polls ``GET /v1/games/G?wait_version=V``, each re-sent at the newest
    version as soon as its answer came, until ``until`` (a looping client's end); after
    ``Retry-After`` when refused; on a new connection when the server closed this one."""

    until = float("inf")
    retry: asyncio.TimerHandle | None = None  # a refused one's next request, when due
    reopening: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        if self.retry is None:  # else the retry's timer sends
            self.send()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self.quitting:
            self.statuses["reconnected"] += 1
            if time.monotonic() < self.until:
                self.reopening = asyncio.ensure_future(self.open())

    def close(self) -> None:
        if self.retry is not None:
            self.retry.cancel()
        super().close()

    def send(self) -> None:
        self.retry = None
        if self.transport is None or time.monotonic() >= self.until:
            return
        self.transport.write(b"GET /v1/games/%s?wait_version=%d HTTP/1.1\r\nHost: %s\r\n\r\n"
                             % (self.game_id.encode(), self.newest, HOST.encode()))
        self.parked.set()

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer + data if self.buffer else data
        while (end := buffer.find(b"\r\n\r\n")) >= 0:
            length = CONTENT_LENGTH.search(buffer, 0, end)
            body_end = end + 4 + (int(length.group(1)) if length else 0)
            if len(buffer) < body_end:
                break
            head, body, buffer = buffer[:end], buffer[end + 4:body_end], buffer[body_end:]
            status = int(head[9:12])
            if status != 200:
                code = json.loads(body).get("code") if body else None
                self.statuses[f"{status} {code}" if code else str(status)] += 1
                after = RETRY_AFTER.search(head)
                self.retry = asyncio.get_running_loop().call_later(
                    float(after.group(1)) if after else 1.0, self.send)
                continue
            self.statuses["200"] += 1
            etag = ETAG.search(head)
            if etag:
                self.hear(int(etag.group(1)))
            self.send()
        self.buffer = buffer


class Stream(Spectator):
    """A spectator's NDJSON stream ``GET /v1/games/G/stream``: each view line's version
    (a view's first ``"version"`` is its own) is what it heard."""

    started = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        cast(asyncio.Transport, transport).write(
            b"GET /v1/games/%s/stream HTTP/1.1\r\nHost: %s\r\n"
            b"Accept: application/x-ndjson\r\n\r\n" % (self.game_id.encode(), HOST.encode()))

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if not self.quitting:
            self.statuses["closed"] += 1

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer + data if self.buffer else data
        if not self.started:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                self.buffer = buffer
                return
            status = int(buffer[9:12])
            self.statuses[str(status)] += 1
            self.started = True
            self.parked.set()
            if status != 200:
                self.close()
                return
            buffer = buffer[end + 4:]
        cut = buffer.rfind(b"\n") + 1  # whole lines only (chunk sizes, and NDJSON lines)
        lines, self.buffer = buffer[:cut], buffer[cut:]
        at = 0
        while (at := lines.find(VIEW, at)) >= 0:
            version = VERSION.search(lines, at)
            if version:
                self.hear(int(version.group(1)))
            at = lines.find(b"\n", at) + 1
            if at == 0:
                break


class AccountWaiter:
    """One account's parked stream; ``told`` holds when it heard ``your_turn`` of each
    (game, version)."""

    def __init__(self, port: int, handle: str, key: str, statuses: Counter[str]) -> None:
        self.port, self.handle, self.key, self.statuses = port, handle, key, statuses
        self.told: dict[tuple[str, int], float] = {}
        self.parked = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    async def run(self) -> None:
        http = await Http(self.port).open()
        try:
            http.send("GET", "/v1/me/stream", headers={
                "Accept": "application/x-ndjson", "Authorization": f"Bearer {self.key}"})
            status, _ = await http.head()
            self.statuses[f"stream {status}"] += 1
            self.parked.set()
            while line := await http.reader.readline():  # chunk sizes and data lines
                if b'"your_turn"' in line:
                    note = json.loads(line)["event"]
                    self.told.setdefault((note["game_id"], note["version"]), time.monotonic())
        except (ConnectionError, asyncio.IncompleteReadError):
            self.statuses["closed"] += 1
        finally:
            self.parked.set()
            http.close()


async def until_heard(pending: list[tuple[Spectator, int]], wait: float) -> None:
    """Until each waiter heard of its version (or a later one), for ``wait`` seconds at
    most; looking only at those that have not yet, so the looking costs little while
    thousands wake."""
    deadline = time.monotonic() + wait
    while pending and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
        pending = [(w, version) for w, version in pending if w.newest < version]


def heard_times(waiters: list[Spectator], version: int) -> list[float]:
    """When each of ``waiters`` first heard of ``version`` or a later one (a stream may
    hear two quick moves as one view), for those that did."""
    return [min(t for v, t in w.heard.items() if v >= version)
            for w in waiters if w.newest >= version]


async def make_accounts(port: int, prefix: str, count: int,
                        at_once: int = 16) -> list[tuple[str, str]]:
    """``count`` bot accounts, created over ``at_once`` connections."""
    made: list[tuple[str, str]] = []
    handles = iter(f"{prefix}{i}" for i in range(count))

    async def creator() -> None:
        http = await Http(port).open()
        try:
            for handle in handles:
                status, body = await http.request(
                    "POST", "/v1/accounts", {"handle": handle, "bot": True})
                if status != 201:
                    raise RuntimeError(f"account {handle}: {status} {body}")
                made.append((handle, body["key"]))
        finally:
            http.close()

    await asyncio.gather(*(creator() for _ in range(at_once)))
    return made


class Load:
    def __init__(self, port: int) -> None:
        self.port = port
        self.waiters: list[Spectator] = []
        self.statuses: Counter[str] = Counter()
        self.accounts: dict[str, AccountWaiter] = {}

    async def park_accounts(self, count: int, prefix: str, keep: int) -> dict[str, Any]:
        made = await make_accounts(self.port, prefix, count)
        for first in range(0, len(made), BATCH):
            batch = [AccountWaiter(self.port, handle, key, self.statuses)
                     for handle, key in made[first:first + BATCH]]
            for w in batch:
                w.task = asyncio.create_task(w.run())
                self.accounts[w.handle] = w
            await asyncio.wait_for(asyncio.gather(*(w.parked.wait() for w in batch)), 120)
        return {"accounts": [list(pair) for pair in made[:keep]]}

    async def told(self, wanted: list[list[Any]], wait: float) -> dict[str, Any]:
        deadline = time.monotonic() + wait
        pending = [(self.accounts[h], (g, v)) for h, g, v in wanted]
        while time.monotonic() < deadline and any(k not in w.told for w, k in pending):
            await asyncio.sleep(0.01)
        return {"times": [w.told.get(k) for w, k in pending]}

    async def park(self, kind: str, games: list[list[Any]], count: int) -> dict[str, Any]:
        spectator = Stream if kind == "stream" else LongPoll
        for first in range(0, count, BATCH):  # opened as fast as the listen backlog takes
            batch = [spectator(self.port, *games[i % len(games)], self.statuses)
                     for i in range(first, min(count, first + BATCH))]
            self.waiters += batch
            await asyncio.gather(*(w.open() for w in batch))
            await asyncio.wait_for(asyncio.gather(*(w.parked.wait() for w in batch)), 120)
        return {"waiters": len(self.waiters)}

    async def loop(self, games: list[list[Any]], count: int, seconds: float) -> dict[str, Any]:
        """Start ``count`` looping long-polls; answer once each has sent its first request
        (the ramp), leaving them to loop until ``seconds`` after that."""
        started = time.monotonic()
        for first in range(0, count, BATCH):  # opened as fast as the listen backlog takes
            batch = [LongPoll(self.port, *games[i % len(games)], self.statuses)
                     for i in range(first, min(count, first + BATCH))]
            await asyncio.gather(*(w.open() for w in batch))
            await asyncio.gather(*(w.parked.wait() for w in batch))
            self.waiters += batch
        ramp = time.monotonic() - started
        for w in self.waiters:
            if isinstance(w, LongPoll):
                w.until = time.monotonic() + seconds
        return {"ramp": ramp}

    async def heard(self, game_id: str, version: int, wait: float) -> dict[str, Any]:
        mine = [w for w in self.waiters if w.game_id == game_id]
        await until_heard([(w, version) for w in mine], wait)
        return {"times": heard_times(mine, version), "waiters": len(mine)}

    async def heard_all(self, wanted: list[list[Any]], wait: float) -> dict[str, Any]:
        by_game: dict[str, list[Spectator]] = {}
        for w in self.waiters:
            by_game.setdefault(w.game_id, []).append(w)
        newest: dict[str, int] = {}  # each game's last wanted version: heard it, heard all
        for game_id, version in wanted:
            newest[game_id] = max(version, newest.get(game_id, version))
        await until_heard([(w, version) for game_id, version in newest.items()
                           for w in by_game.get(game_id, [])], wait)
        return {"times": [heard_times(by_game.get(game_id, []), version)
                          for game_id, version in wanted],
                "waiters": [len(by_game.get(game_id, [])) for game_id, _ in wanted]}

    def stats(self) -> dict[str, Any]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return {"statuses": dict(self.statuses), "cpu": usage.ru_utime + usage.ru_stime}

    async def quit(self) -> None:
        for w in self.waiters:
            w.close()
        tasks = [w.task for w in self.accounts.values() if w.task]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def serve(port: int) -> None:
    load = Load(port)
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        command = json.loads(line)
        op = command.pop("op")
        if op == "quit":
            await load.quit()
            answer: dict[str, Any] = {"quit": True}
        elif op == "park":
            answer = await load.park(**command)
        elif op == "accounts":
            answer = await load.park_accounts(command["count"], command["prefix"],
                                              command["keep"])
        elif op == "told":
            answer = await load.told(command["wanted"], command["wait"])
        elif op == "loop":
            answer = await load.loop(**command)
        elif op == "heard":
            answer = await load.heard(command["game"], command["version"], command["wait"])
        elif op == "heard_all":
            answer = await load.heard_all(command["wanted"], command["wait"])
        else:
            answer = load.stats()
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if op == "quit":
            return


def main() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # a socket per waiter
    uvloop.run(serve(int(sys.argv[1])))  # the push tier's loop: less CPU per answer read


if __name__ == "__main__":
    main()
