"""A load process of ``make bench-push``: parked waiters, driven over stdin and stdout.

Why a process of its own: 10,000 connections are as many as one asyncio process reads
in time (and about half its open-file limit); 20,000 need two, and the benchmark's own
process must stay free to make the moves and time them. Each load process raises its
``RLIMIT_NOFILE`` soft limit to the hard one (one socket per waiter).

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
from typing import Any

from tests.bench.aio_http import Http

VERSION = re.compile(rb'"version":(\d+)')  # a view's first "version" is its own
BATCH = 500  # connections opened at once (the listen backlog)


class Waiter:
    """One parked spectator of one game: a long-poll re-parked after each answer, or a
    stream; ``heard`` holds when it first heard of each version."""

    def __init__(self, port: int, game_id: str, version: int, stream: bool,
                 statuses: Counter[str], until: float = float("inf")) -> None:
        self.port, self.game_id, self.version, self.stream = port, game_id, version, stream
        self.statuses = statuses
        self.until = until  # a looping client stops re-sending then
        self.heard: dict[int, float] = {}
        self.parked = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def newest(self) -> int:
        return max(self.heard, default=self.version)

    async def run(self) -> None:
        http = await Http(self.port).open()
        try:
            await (self._stream(http) if self.stream else self._long_poll(http))
        except (ConnectionError, asyncio.IncompleteReadError):
            self.statuses["closed"] += 1
        finally:
            self.parked.set()
            http.close()

    async def _long_poll(self, http: Http) -> None:
        version = self.version
        while time.monotonic() < self.until:
            http.send("GET", f"/v1/games/{self.game_id}?wait_version={version}")
            self.parked.set()
            try:
                # the version from the ETag; the body read, not parsed (the load process
                # must not be what delays the last of 10,000 wake-ups)
                status, headers = await http.head()
                body = await http.reader.readexactly(int(headers.get("content-length", "0")))
            except (ConnectionError, asyncio.IncompleteReadError):
                # the server closed it (idle past its keep-alive while told to wait): again
                self.statuses["reconnected"] += 1
                http.close()
                await http.open()
                continue
            if status != 200:
                code = json.loads(body).get("code") if body else None
                self.statuses[f"{status} {code}" if code else str(status)] += 1
                await asyncio.sleep(float(headers.get("retry-after", "1")))
                continue
            self.statuses["200"] += 1
            seen = int(headers.get("etag", '"-1"').strip('"'))
            if seen > version:
                self.heard[seen] = time.monotonic()
                version = seen

    async def _stream(self, http: Http) -> None:
        http.send("GET", f"/v1/games/{self.game_id}/stream",
                  headers={"Accept": "application/x-ndjson"})
        status, _ = await http.head()
        self.statuses[str(status)] += 1
        self.parked.set()
        if status != 200:
            return
        while line := await http.reader.readline():  # chunked: size lines and data lines
            if line.startswith(b'{"type":"view"'):
                match = VERSION.search(line)
                if match:
                    self.heard.setdefault(int(match.group(1)), time.monotonic())


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
        self.waiters: list[Waiter] = []
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
        made = 0
        while made < count:
            batch = []
            for _ in range(min(BATCH, count - made)):
                game_id, version = games[made % len(games)]
                w = Waiter(self.port, game_id, version, kind == "stream", self.statuses)
                w.task = asyncio.create_task(w.run())
                self.waiters.append(w)
                batch.append(w.parked.wait())
                made += 1
            await asyncio.wait_for(asyncio.gather(*batch), 120)
        return {"waiters": len(self.waiters)}

    async def loop(self, games: list[list[Any]], count: int, seconds: float) -> dict[str, Any]:
        """Start ``count`` looping long-polls; answer once each has sent its first request
        (the ramp), leaving them to loop until ``seconds`` after that."""
        started = time.monotonic()
        for first in range(0, count, BATCH):  # opened as fast as the listen backlog takes
            batch = [Waiter(self.port, *games[i % len(games)], False, self.statuses)
                     for i in range(first, min(count, first + BATCH))]
            for w in batch:
                w.task = asyncio.create_task(w.run())
            await asyncio.gather(*(w.parked.wait() for w in batch))
            self.waiters += batch
        ramp = time.monotonic() - started
        for w in self.waiters:
            w.until = time.monotonic() + seconds
        return {"ramp": ramp}

    async def heard(self, game_id: str, version: int, wait: float) -> dict[str, Any]:
        mine = [w for w in self.waiters if w.game_id == game_id]
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and any(w.newest() < version for w in mine):
            await asyncio.sleep(0.01)
        times = [min(t for v, t in w.heard.items() if v >= version)
                 for w in mine if w.newest() >= version]
        return {"times": times, "waiters": len(mine)}

    def stats(self) -> dict[str, Any]:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        return {"statuses": dict(self.statuses), "cpu": usage.ru_utime + usage.ru_stime}

    async def quit(self) -> None:
        tasks = [w.task for w in [*self.waiters, *self.accounts.values()] if w.task]
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
        else:
            answer = load.stats()
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
        if op == "quit":
            return


def main() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # a socket per waiter
    asyncio.run(serve(int(sys.argv[1])))


if __name__ == "__main__":
    main()
