"""``make bench-bots``: one client's bot games against everyone else's latency (issue 19).

Starts Redis, a 2-worker gunicorn and ``--movers`` move workers (``local_service`` with
``make run``'s limits: the creation quota, the cap on bot games per address, the rate
limits), each mover serving its own ``/metrics``, then measures in one run:

1. **Quiet** (``--quiet-seconds``): *another client* probes (a) ``GET
   /v1/rules/presets``, (b) an action on its own 2-human game, one every ``--tick``
   seconds, and (c) a stream parked on that game: how long after a move's save the
   stream delivers the move's view (or a later one: a stream that fell behind sends
   only the newest view). Meanwhile it plays one human seat against a ``greedy`` bot
   seat (the bot's move start latency: from the human's discard being saved to the
   first message of the bot's first move on the human's stream; so it includes the
   worker's wake-up, the bot's decision, the save and the push), and
   starts a 2-human game with a 2 s turn clock every ``--clock-every`` seconds that
   nobody plays (clock lateness: first sight of the ``turn_timed_out`` move minus the
   turn's deadline, polled from the deadline on, every 20 ms).
2. **Loaded** (``--load-seconds``, a minute): the same, while *one client* (the loader)
   sends 30 creations of 4-``strong``-bot games and 30 of the issue's endless-contract
   game, each evenly over the minute, and runs a resign-then-rematch loop (a 2-human
   game; seat 0 resigns, seat 1 asks the rematch, which starts at once; seat 0's seat,
   open again, is claimed and resigns; every ``--rematch-every`` seconds, never
   honouring ``Retry-After``). Each answer is counted by status and problem code; the
   admitted endless games are followed to their end and their last round's ``reason``.
   All three share the loader's creation quota (30 a minute), so the rematch loop,
   the fastest, uses most of it; the weight cap (32: a 4-``strong`` game weighs 16, an
   endless one 0.27) refuses what the quota lets through beyond it.
3. **Scaling**: bot moves per second of ``--scale-games`` games of 4 ``greedy`` bot
   seats with 1 move worker, then with 2 (each a fresh service, limits off), counted by
   the workers' own ``ttt_worker_moves_total`` over ``--scale-seconds``.

Why two loopback addresses for two clients: Linux routes all of ``127.0.0.0/8`` to the
loopback interface, so the other client's connections come from ``127.0.0.2`` (its
sockets bound there) while the loader's come from ``127.0.0.1``. The service sees two
TCP peers and counts each on its own, with its defaults untouched: no ``PROXY_HOPS``
that would trust an ``X-Forwarded-For`` any client may send.

How a move's save time is read: each game the other client plays has a one-hour turn
clock, which nobody lets run out. A turn's deadline is set by the commit that begins
the turn, at its clock plus ``turn_seconds``, and every view shows it to the
millisecond, so the deadline shown after a discard, less an hour, is when the discard
was committed (just before its save), on this machine's clock. Only discards begin a
turn, so the stream's delay (c) and the bot's start are timed from discards.

The workers' own view of the same thing is their ``ttt_worker_lateness_seconds``
histogram (how long after its due time each visit was taken: a bot move made due by a
player's, a turn clock's deadline), summed over the movers and read at each phase's
start and end; its quantiles are given as the bucket bound they fall under.

The targets (issue 19, ``docs/capacity.md#move-workers``): each probe's p99 loaded
within 2x its quiet p99; the bot's move p95 within 100 ms quiet and within 200 ms
loaded (the documented bound: a due move may wait for one ``strong`` decision, at most
about 100 ms of CPU, that a worker is making for the loader); every time-out within
1 s of its deadline; every admitted endless game ended; the rematch loop refused with
``429 creation_limited`` once the quota is spent; 2 move workers at least 1.5x the
moves per second of one. One table is printed, with ok/MISS marks, and the CPU each
kind of process used in each phase (the machine is shared: a probe slowed by other
work shows as a phase whose own processes used little). Everything is timed in this
process (asyncio, one connection per task), which shares the cores with the service.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import time
import urllib.request
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import orjson
from prometheus_client.parser import text_string_to_metric_families

from service.match.local import LocalService, local_service
from tests.bench.aio_http import Http
from tests.bench.procs import percentile, tree_cpu_seconds

LOADER = "127.0.0.1"  # the one client that loads the service
OTHER = "127.0.0.2"  # another client, whose latencies are measured
LONG_CLOCK = 3600  # a turn clock nobody lets run out: its deadlines date the saves

STRONG_GAME = {"players": [{"bot": "strong"}] * 4}
#: Issue 19's game "that can never go out". It can, rarely: four runs of three naturals
#: (7 of 40 games of two greedy bots in-process went out); the rest end by turn_limit.
ENDLESS_GAME = {
    "players": [{"bot": "greedy"}, {"bot": "greedy"}],
    "rules": {"hand_sizes": [12], "contracts": [{"sets": 0, "runs": 4}],
              "min_naturals_per_meld": 3, "max_wilds_per_meld": 0, "decks": 1},
}
CLOCK_GAME = {"players": [{"name": "c0"}, {"name": "c1"}], "turn_seconds": 2,
              "rules": {"hand_sizes": [9]}}  # one round: once both seats are away it ends


def unix(instant: str) -> float:
    """An RFC 3339 UTC instant of a view (``…Z``) as Unix seconds."""
    return datetime.fromisoformat(instant.replace("Z", "+00:00")).timestamp()


def outcome(status: int, body: Any) -> str:
    """``201``, or ``429 creation_limited``: a status with its problem's code."""
    code = body.get("code") if isinstance(body, dict) and status >= 400 else None
    return f"{status} {code}" if code else str(status)


async def sleep_until(at: float) -> None:
    await asyncio.sleep(max(0.0, at - time.monotonic()))


class Stream:
    """A game's NDJSON stream on a connection of its own, read as it arrives: for each
    version, when its first message (the move's first event) and its view arrived."""

    def __init__(self, port: int, game_id: str, token: str | None = None) -> None:
        self.port, self.game_id, self.token = port, game_id, token
        self.first: dict[int, float] = {}  # version → arrival of its first message
        self.view_at: dict[int, float] = {}  # version → arrival of its view
        self.view: dict[str, Any] | None = None
        self.changed = asyncio.Event()
        self._pending: float | None = None
        self._task: asyncio.Task[None] | None = None
        self._http: Http | None = None

    async def open(self) -> Stream:
        self._http = http = await Http(self.port, OTHER).open()
        headers = {"Accept": "application/x-ndjson"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        http.send("GET", f"/v1/games/{self.game_id}/stream", headers=headers)
        status, _ = await http.head()
        if status != 200:
            raise RuntimeError(f"stream refused: {status}")
        self._task = asyncio.create_task(self._read(http))
        return self

    async def _read(self, http: Http) -> None:
        buffer = b""
        while size_line := await http.reader.readline():  # chunked transfer coding
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                return
            chunk = await http.reader.readexactly(size + 2)
            arrived = time.time()
            buffer += chunk[:-2]
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line.strip():
                    self._message(orjson.loads(line), arrived)

    def _message(self, message: dict[str, Any], arrived: float) -> None:
        if message["type"] == "event":
            self._pending = self._pending or arrived
        elif message["type"] == "view":
            version = message["view"]["version"]
            self.first[version] = self._pending or arrived
            self.view_at[version] = arrived
            self._pending = None
            self.view = message["view"]
            self.changed.set()

    async def until(self, ready: Callable[[dict[str, Any]], bool], timeout: float) -> bool:
        """Wait until the latest view is ``ready``; ``False`` after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while self.view is None or not ready(self.view):
            self.changed.clear()
            try:
                await asyncio.wait_for(self.changed.wait(), deadline - time.monotonic())
            except TimeoutError:
                return False
        return True

    def heard(self, version: int, first: bool = False) -> float | None:
        """When this stream first told of ``version`` (its view, or with ``first`` its
        first event; a stream that fell behind sends only the newest view after a
        burst of moves, which tells of every move before it too); ``None``: not yet."""
        arrivals = self.first if first else self.view_at
        later = [v for v in arrivals if v >= version]
        return arrivals[min(later)] if later else None

    def close(self) -> None:
        if self._task:
            self._task.cancel()
        if self._http:
            self._http.close()


async def post(http: Http, path: str, body: Any, token: str | None = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    return await http.request("POST", path, body, headers)


def next_action(view: dict[str, Any]) -> dict[str, Any]:
    """A draw from the stock, else the first discard the seat's view offers."""
    if view["round"]["phase"] in ("draw", "final_draw"):
        return {"type": "draw", "source": "stock"}
    return next(a for a in view["legal_actions"] if a["type"] == "discard")


def saved_at(view: dict[str, Any]) -> float | None:
    """When the move that began this view's turn was committed (its one-hour deadline
    less an hour), or ``None`` without a running clock."""
    clock = view.get("clock") or {}
    return unix(clock["deadline"]) - LONG_CLOCK if clock.get("deadline") else None


async def delays(expected: list[tuple[Stream, int, float]], first: bool = False,
                 timeout: float = 10.0) -> tuple[list[float], int]:
    """How long after its save (ms) each ``expected`` (stream, version, saved at) was
    told of on its stream, waiting up to ``timeout`` for the last; and how many never."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(
            s.heard(v, first) is None for s, v, _ in expected):
        await asyncio.sleep(0.05)
    heard = [(s.heard(v, first), at) for s, v, at in expected]
    return [(h - at) * 1000 for h, at in heard if h is not None], sum(h is None for h, _ in heard)


@dataclass
class Phase:
    """What the other client measured in one phase (ms), and the workers' counters."""

    name: str
    presets: list[float] = field(default_factory=list)
    actions: list[float] = field(default_factory=list)
    stream: list[float] = field(default_factory=list)
    stream_lost: int = 0
    bot_start: list[float] = field(default_factory=list)
    bot_lost: int = 0
    clock_late: list[float] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)
    load: tuple[float, float] = (0.0, 0.0)  # the load average at its start and end
    cores: dict[str, float] = field(default_factory=dict)  # CPU used, by process kind


async def probes(port: int, stop_at: float, tick: float, out: Phase) -> None:
    """(a), (b) and (c): a GET, an action on a 2-human game, the game's parked stream."""
    http = await Http(port, OTHER).open()
    game: tuple[str, list[str]] | None = None
    streams: list[Stream] = []
    view: dict[str, Any] = {}
    expected: list[tuple[Stream, int, float]] = []  # (stream, version, saved)
    next_at = time.monotonic()
    while time.monotonic() < stop_at:
        if game is None or view.get("status") == "finished":
            status, created = await post(http, "/v1/games", {
                "players": [{"name": "p0"}, {"name": "p1"}], "turn_seconds": LONG_CLOCK})
            assert status == 201, created
            game = created["game_id"], [s["token"] for s in created["seats"]]
            view = created["state"]
            streams.append(await Stream(port, game[0]).open())
            await streams[-1].until(lambda v: True, 10)
        started = time.perf_counter()
        status, _ = await http.request("GET", "/v1/rules/presets")
        out.presets.append((time.perf_counter() - started) * 1000)
        assert status == 200
        seat = view["round"]["current_seat"]
        you = view.get("you")
        if view["round"]["phase"] not in ("draw", "final_draw") and (
                not you or you["seat"] != seat):  # a discard needs the seat's own hand
            status, view = await http.request(
                "GET", f"/v1/games/{game[0]}", headers={"Authorization": f"Bearer {game[1][seat]}"})
            assert status == 200, view
        action = next_action(view)
        started = time.perf_counter()
        status, view = await post(http, f"/v1/games/{game[0]}/actions", action, game[1][seat])
        out.actions.append((time.perf_counter() - started) * 1000)
        assert status == 200, view
        if action["type"] == "discard" and (at := saved_at(view)) is not None:
            expected.append((streams[-1], view["version"], at))
        next_at = max(next_at + tick, time.monotonic())  # behind: no burst to catch up
        await sleep_until(next_at)
    out.stream, out.stream_lost = await delays(expected)
    for stream in streams:
        stream.close()
    http.close()


async def bot_game(port: int, stop_at: float, pause: float, out: Phase) -> None:
    """One human seat (this client) against a ``greedy`` bot seat: after each human
    discard that gives the bot the turn, how long until the bot's first move arrives."""
    http = await Http(port, OTHER).open()
    expected: list[tuple[Stream, int, float]] = []
    streams: list[Stream] = []
    while time.monotonic() < stop_at:
        status, created = await post(http, "/v1/games", {
            "players": [{"name": "human"}, {"bot": "greedy"}], "turn_seconds": LONG_CLOCK})
        assert status == 201, created
        game_id, token = created["game_id"], created["seats"][0]["token"]
        streams.append(stream := await Stream(port, game_id, token).open())
        acted = -1  # the version of the human's last move
        while time.monotonic() < stop_at:
            if not await stream.until(lambda v, after=acted: v["version"] > after and (
                    v["status"] == "finished" or bool(v["legal_actions"])),
                    stop_at - time.monotonic()):
                break  # the phase ended during the bot's turn
            assert stream.view is not None
            if stream.view["status"] == "finished":
                break
            status, view = await post(http, f"/v1/games/{game_id}/actions",
                                      next_action(stream.view), token)
            assert status == 200, view
            status, view = await post(http, f"/v1/games/{game_id}/actions",
                                      next_action(view), token)
            assert status == 200, view
            if (view["status"] == "in_progress" and view["round"]["current_seat"] == 1
                    and (at := saved_at(view)) is not None):
                expected.append((stream, view["version"] + 1, at))
            # the bot's turn: its views come next; else (a new round the human begins,
            # the end) the discard's own view is the one to act on
            bots_turn = view["status"] == "in_progress" and not view["legal_actions"]
            acted = view["version"] if bots_turn else view["version"] - 1
            await asyncio.sleep(pause)
    out.bot_start, out.bot_lost = await delays(expected, first=True)
    for stream in streams:
        stream.close()
    http.close()


async def clock_game(port: int, stop_at: float, out: Phase) -> None:
    """A 2-human game with a 2 s clock that nobody plays: from each deadline on, poll the
    spectator view every 20 ms; the first version past it is the time-out."""
    http = await Http(port, OTHER).open()
    status, created = await post(http, "/v1/games", CLOCK_GAME)
    assert status == 201, created
    game_id = created["game_id"]
    cursor = 0
    while time.monotonic() < stop_at:
        status, view = await http.request("GET", f"/v1/games/{game_id}")
        assert status == 200, view
        if view["status"] == "finished" or all(p["kind"] != "human" for p in view["players"]):
            break
        seat = view["round"]["current_seat"]
        deadline = (view["clock"] or {}).get("deadline")
        if view["players"][seat]["kind"] != "human" or deadline is None:
            await asyncio.sleep(0.05)  # a stand-in is playing; a human's turn comes next
            continue
        due = unix(deadline)
        await asyncio.sleep(max(0.0, due - time.time()))
        while True:
            status, now = await http.request("GET", f"/v1/games/{game_id}")
            seen = time.time()
            if now["version"] != view["version"]:
                break
            if seen > due + 60:
                raise RuntimeError(f"a 2 s clock ran out {seen - due:.0f} s ago, no time-out")
            await asyncio.sleep(0.02)
        status, events = await http.request("GET", f"/v1/games/{game_id}/events?after={cursor}")
        cursor = events["events"][-1]["seq"] if events["events"] else cursor
        if any(e["type"] == "turn_timed_out" for e in events["events"]):
            out.clock_late.append((seen - due) * 1000)
    http.close()


async def clocks(port: int, stop_at: float, every: float, out: Phase) -> None:
    """A clock game every ``every`` seconds while its four time-outs fit in the phase."""
    games = []
    while time.monotonic() + 4 * 2 + 2 < stop_at:
        games.append(asyncio.create_task(clock_game(port, stop_at, out)))
        await asyncio.sleep(every)
    await asyncio.gather(*games)


@dataclass
class Load:
    """The loader's answers, by kind of request: status and problem code → count."""

    strong: Counter[str] = field(default_factory=Counter)
    endless: Counter[str] = field(default_factory=Counter)
    rematch: Counter[str] = field(default_factory=Counter)
    rematch_first_429: int = 0  # the ask that met the quota first (1-based; 0: none)
    rematch_after_429: int = 0  # asks answered 200 after that
    endless_ids: list[str] = field(default_factory=list)
    endless_ends: list[tuple[str | None, str | None, float]] = field(default_factory=list)
    strong_ids: list[str] = field(default_factory=list)
    creations_ok: int = 0  # every 2xx creation of the loader (the rematch loop's first game too)


async def creations(port: int, body: dict[str, Any], count: int, start: float, seconds: float,
                    offset: float, answers: Counter[str], ids: list[str], load: Load,
                    follow: float = 0.0) -> None:
    """``count`` creations of ``body`` evenly over ``seconds`` from ``start``; each game
    admitted is followed to its end for up to ``follow`` seconds (0: not followed)."""
    http = await Http(port, LOADER).open()
    followers = []
    for i in range(count):
        await sleep_until(start + (i + offset) * seconds / count)
        status, created = await post(http, "/v1/games", body)
        answers[outcome(status, created)] += 1
        if status == 201:
            ids.append(created["game_id"])
            load.creations_ok += 1
            if follow:
                followers.append(asyncio.create_task(
                    follow_to_end(port, created["game_id"], follow, load)))
    http.close()
    await asyncio.gather(*followers)


async def rematch_loop(port: int, start: float, stop_at: float, every: float,
                       load: Load) -> None:
    """Resign, ask the rematch, claim the resigned seat again; one ask per ``every``."""
    http = await Http(port, LOADER).open()
    game: str | None = None
    token = ""
    asks = 0
    next_at = start
    while time.monotonic() < stop_at:
        await sleep_until(next_at)
        next_at += every
        if game is None:
            status, created = await post(http, "/v1/games", {
                "players": [{"name": "quitter"}, {"name": "stayer"}]})
            if status != 201:
                continue
            load.creations_ok += 1
            game, token = created["game_id"], created["seats"][1]["token"]
            status, _ = await post(http, f"/v1/games/{game}/actions", {"type": "resign"},
                                   created["seats"][0]["token"])
            assert status == 200
        status, asked = await post(http, f"/v1/games/{game}/rematch", None, token)
        asks += 1
        load.rematch[outcome(status, asked)] += 1
        if status == 429 and not load.rematch_first_429:
            load.rematch_first_429 = asks
        if status != 200:
            continue
        load.creations_ok += 1
        load.rematch_after_429 += bool(load.rematch_first_429)
        game = asked["rematch"]["game_id"]
        status, claimed = await post(http, f"/v1/games/{game}/seats/0/claim", {"name": "quitter"})
        assert status == 200, claimed
        status, _ = await post(http, f"/v1/games/{game}/actions", {"type": "resign"},
                               claimed["token"])
        assert status == 200
    http.close()


async def follow_to_end(port: int, game_id: str, timeout: float, load: Load) -> None:
    """Wait (spectator ``wait=turn`` long-polls) for an endless game's end: its last
    round's reason, the game's, and how long after its creation it ended."""
    started = time.monotonic()
    http = await Http(port, LOADER).open()
    while time.monotonic() - started < timeout:
        status, view = await http.request("GET", f"/v1/games/{game_id}?wait=turn&timeout=25")
        if status == 200 and view["status"] == "finished":
            reason = (view.get("last_round") or {}).get("reason")
            load.endless_ends.append((reason, view.get("finish_reason"),
                                      time.monotonic() - started))
            break
    http.close()


def mover_metrics(ports: tuple[int, ...]) -> dict[str, Any]:
    """The movers' moves and lateness histogram (cumulative buckets), summed."""
    total: dict[str, Any] = {"moves": 0.0, "visits": 0.0, "buckets": Counter()}
    for port in ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            text = r.read().decode()
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == "ttt_worker_moves_total":
                    total["moves"] += sample.value
                elif sample.name == "ttt_worker_visits_total":
                    total["visits"] += sample.value
                elif sample.name == "ttt_worker_lateness_seconds_bucket":
                    total["buckets"][float(sample.labels["le"])] += sample.value
    return total


def histogram_quantile(before: dict[str, Any], after: dict[str, Any], q: float) -> float:
    """The bucket bound (ms) under which the ``q`` quantile of the lateness observed
    between two readings falls (inf: above the last bucket; NaN: none observed)."""
    counts = {le: after["buckets"][le] - before["buckets"].get(le, 0) for le in after["buckets"]}
    total = counts.get(float("inf"), 0)
    if not total:
        return float("nan")
    return next(le * 1000 for le in sorted(counts) if counts[le] >= q * total)


def cpu_seconds(service: LocalService) -> dict[str, float]:
    """CPU seconds used so far: the web workers (gunicorn), the move workers, Redis and
    this process (the load generator and the probes)."""
    own = os.times()
    return {"web": tree_cpu_seconds(service.server_pid),
            "movers": sum(tree_cpu_seconds(pid) for pid in service.mover_pids),
            "redis": tree_cpu_seconds(service.redis_pid), "client": own.user + own.system}


async def phase(name: str, service: LocalService, seconds: float, args: argparse.Namespace,
                load: Load | None = None) -> Phase:
    port = int(service.url.rsplit(":", 1)[1])
    out = Phase(name)
    start = time.monotonic()
    stop_at = start + seconds
    before, cpu = mover_metrics(service.mover_metrics_ports), cpu_seconds(service)
    load_before = os.getloadavg()[0]
    tasks = [probes(port, stop_at, args.tick, out), bot_game(port, stop_at, args.bot_pause, out),
             clocks(port, stop_at, args.clock_every, out)]
    if load is not None:
        spread = seconds - 1  # the last creation a second before the end
        tasks += [
            creations(port, STRONG_GAME, args.strong, start, spread, 0.0, load.strong,
                      load.strong_ids, load),
            creations(port, ENDLESS_GAME, args.endless, start, spread, 0.5, load.endless,
                      load.endless_ids, load, follow=args.endless_wait),
            rematch_loop(port, start, stop_at - 1, args.rematch_every, load),
        ]
    await asyncio.gather(*tasks)
    after, took = mover_metrics(service.mover_metrics_ports), time.monotonic() - start
    out.cores = {k: (v - cpu[k]) / took for k, v in cpu_seconds(service).items()}
    out.load = (load_before, os.getloadavg()[0])
    out.metrics = {"moves": after["moves"] - before["moves"],
                   "visits": after["visits"] - before["visits"],
                   "p50": histogram_quantile(before, after, 0.5),
                   "p95": histogram_quantile(before, after, 0.95)}
    print(f"  {name}: {len(out.actions)} actions, {len(out.bot_start)} bot starts, "
          f"{len(out.clock_late)} time-outs, {out.metrics['moves']:.0f} worker moves", flush=True)
    return out


async def scaling(movers: int, games: int, seconds: float) -> dict[str, float]:
    """Moves per second of ``games`` 4-greedy-bot games with ``movers`` move workers."""
    with local_service(2, movers=movers, mover_metrics=True) as service:
        port = int(service.url.rsplit(":", 1)[1])
        http = await Http(port, LOADER).open()
        for _ in range(games):
            status, created = await post(http, "/v1/games", {"players": [{"bot": "greedy"}] * 4})
            assert status == 201, created
        http.close()
        await asyncio.sleep(2.0)  # warm: every mover busy
        before = mover_metrics(service.mover_metrics_ports)
        cpu = sum(tree_cpu_seconds(pid) for pid in service.mover_pids)
        started = time.monotonic()
        await asyncio.sleep(seconds)
        after = mover_metrics(service.mover_metrics_ports)
        took = time.monotonic() - started
        cpu = sum(tree_cpu_seconds(pid) for pid in service.mover_pids) - cpu
    moves = after["moves"] - before["moves"]
    print(f"  {movers} move worker(s): {moves:.0f} moves in {took:.1f} s", flush=True)
    return {"movers": movers, "per_second": moves / took,
            "visits": (after["visits"] - before["visits"]) / moves if moves else float("nan"),
            "cpu_ms": cpu * 1000 / moves if moves else float("nan"),
            "cores": cpu / took}


def mark(ok: bool) -> str:
    return "ok" if ok else "MISS"


def answers(counts: Counter[str]) -> str:
    return ", ".join(f"{n} x {k}" for k, n in sorted(counts.items())) or "none sent"


def quantiles(samples: list[float], *qs: float) -> str:
    """``p50 1.2  p99 3.4  n=300`` (ms)."""
    ordered = sorted(samples)
    shown = "  ".join(f"{'max' if q == 1 else f'p{round(q * 100)}'} {percentile(ordered, q):6.1f}"
                      for q in qs)
    return f"{shown}  n={len(samples)}"


def p(samples: list[float], q: float) -> float:
    return percentile(sorted(samples), q)


def table(args: argparse.Namespace, quiet: Phase, loaded: Phase, load: Load,
          scale: list[dict[str, float]]) -> list[tuple[str, str, str, str]]:
    """The rows: what, quiet, loaded, the target and whether it was met."""
    rows = []
    for label, attr in (("(a) GET /v1/rules/presets, ms", "presets"),
                        ("(b) action on another game, ms", "actions"),
                        ("(c) parked stream, save to view, ms", "stream")):
        q, ld = getattr(quiet, attr), getattr(loaded, attr)
        ratio = p(ld, 0.99) / p(q, 0.99)
        rows.append((label, quantiles(q, 0.5, 0.99), quantiles(ld, 0.5, 0.99),
                     f"{mark(ratio <= 2)}: p99 {ratio:.2f}x quiet (<= 2x)"))
    if quiet.stream_lost or loaded.stream_lost:
        rows.append(("    views never streamed", str(quiet.stream_lost), str(loaded.stream_lost),
                     "MISS: 0"))
    met = p(quiet.bot_start, 0.95) <= 100 and p(loaded.bot_start, 0.95) <= 200
    rows.append(("bot's move, other client: save to event, ms",
                 quantiles(quiet.bot_start, 0.5, 0.95), quantiles(loaded.bot_start, 0.5, 0.95),
                 f"{mark(met)}: p95 <= 100 quiet, <= 200 loaded"))
    if quiet.bot_lost or loaded.bot_lost:
        rows.append(("    bot moves never streamed", str(quiet.bot_lost), str(loaded.bot_lost),
                     "MISS: 0"))
    rows.append(("workers' lateness (all visits), ms",
                 f"p50 <= {quiet.metrics['p50']:g}  p95 <= {quiet.metrics['p95']:g}"
                 f"  n={quiet.metrics['visits']:.0f}",
                 f"p50 <= {loaded.metrics['p50']:g}  p95 <= {loaded.metrics['p95']:g}"
                 f"  n={loaded.metrics['visits']:.0f}", "(histogram buckets)"))
    rows.append(("CPU used, cores: web, movers, Redis, client",
                 *("  ".join(f"{ph.cores[k]:.2f}" for k in ("web", "movers", "redis", "client"))
                   for ph in (quiet, loaded)), ""))
    met = max(quiet.clock_late + loaded.clock_late, default=float("inf")) <= 1000
    rows.append(("2 s clock nobody plays: late, ms", quantiles(quiet.clock_late, 0.5, 0.95, 1),
                 quantiles(loaded.clock_late, 0.5, 0.95, 1), f"{mark(met)}: max <= 1000"))
    rows.append((f"load: {args.strong} games of 4 strong bots", "", answers(load.strong),
                 "(each weighs 16 of the cap's 32)"))
    ends = Counter(reason for reason, _, _ in load.endless_ends)
    met = (bool(load.endless_ids) and len(load.endless_ends) == len(load.endless_ids)
           and set(ends) <= {"turn_limit", "went_out"} and ends["turn_limit"] > 0)
    longest = max((t for _, _, t in load.endless_ends), default=float("nan"))
    rows.append((f"load: {args.endless} endless-contract games", "", answers(load.endless),
                 f"{mark(met)}: every one admitted ends (turn_limit, unless one went out)"))
    rows.append(("    how the admitted ended", "",
                 (", ".join(f"{n} x {r}" for r, n in ends.items()) or "none")
                 + f"; each within {longest:.1f} s", ""))
    if len(load.endless_ends) < len(load.endless_ids):
        rows.append(("    endless games not ended", "",
                     str(len(load.endless_ids) - len(load.endless_ends)),
                     f"MISS: within {args.endless_wait:.0f} s"))
    met = load.rematch_first_429 > 0 and load.creations_ok <= 30
    rows.append(("load: resign-then-rematch loop", "", answers(load.rematch),
                 f"{mark(met)}: 429 creation_limited past 30/min"))
    rows.append(("    the quota", "", f"first 429 at ask {load.rematch_first_429}, "
                 f"{load.rematch_after_429} started after it", f"{load.creations_ok} creations "
                 "of the loader admitted in all (<= 30)"))
    one = scale[0]["per_second"]
    for s in scale:
        ratio = s["per_second"] / one
        rows.append((f"bot moves/s, {s['movers']:.0f} move worker(s)", "",
                     f"{s['per_second']:4.0f}/s  {s['cpu_ms']:.2f} ms CPU/move  "
                     f"{s['cores']:.2f} cores  {s['visits']:.2f} visits/move",
                     "" if s["movers"] == 1 else
                     f"{mark(ratio >= 1.5)}: {ratio:.2f}x 1 worker's (>= 1.5x)"))
    return rows


def print_table(args: argparse.Namespace, quiet: Phase, loaded: Phase, load: Load,
                scale: list[dict[str, float]]) -> None:
    rows = table(args, quiet, loaded, load, scale)
    head = ("", f"quiet ({args.quiet_seconds:.0f} s)", f"loaded ({args.load_seconds:.0f} s)",
            "target")
    widths = [max(len(r[i]) for r in (head, *rows)) for i in range(4)]
    print(f"\nbench-bots: 2 gunicorn workers, {args.movers} move workers (nice 10), make run's "
          "limits; one client (127.0.0.1) loads, another (127.0.0.2) is timed")
    print(f"load average (1 min): quiet {quiet.load[0]:.2f} to {quiet.load[1]:.2f}, loaded "
          f"{loaded.load[0]:.2f} to {loaded.load[1]:.2f}; {os.cpu_count()} cores\n")
    for r in (head, *rows):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


async def main_async(args: argparse.Namespace) -> None:
    print(f"bench-bots: load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    with local_service(2, movers=args.movers, limits=True, mover_metrics=True) as service:
        await phase("warm-up", service, args.warm_seconds, args)
        quiet = await phase("quiet", service, args.quiet_seconds, args)
        load = Load()
        loaded = await phase("loaded", service, args.load_seconds, args, load)
    scale = [await scaling(n, args.scale_games, args.scale_seconds) for n in (1, 2)]
    print_table(args, quiet, loaded, load, scale)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--movers", type=int, default=2)
    parser.add_argument("--warm-seconds", type=float, default=5)
    parser.add_argument("--quiet-seconds", type=float, default=30)
    parser.add_argument("--load-seconds", type=float, default=60)
    parser.add_argument("--tick", type=float, default=0.1, help="seconds between probes")
    parser.add_argument("--bot-pause", type=float, default=0.2,
                        help="the human's pause before each turn against the bot")
    parser.add_argument("--clock-every", type=float, default=5)
    parser.add_argument("--strong", type=int, default=30)
    parser.add_argument("--endless", type=int, default=30)
    parser.add_argument("--rematch-every", type=float, default=0.5)
    parser.add_argument("--endless-wait", type=float, default=180)
    parser.add_argument("--scale-games", type=int, default=24)
    parser.add_argument("--scale-seconds", type=float, default=15)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
