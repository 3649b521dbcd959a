"""``make bench-abuse``: the worst one address may ask of the service on its default
limits, against another client's latencies (issue 31).

Starts Redis, a 2-worker gunicorn, one move worker (its light and heavy lanes) and
``--analysers`` analysis workers, all with ``make run``'s limits, then measures in one
run, as ``make bench-bots`` does (``tests/bench/bench_bots.py``, whose probes this reuses):
the *other client* (sockets bound to 127.0.0.2) probes first alone (**quiet**), then while
the *loader* (127.0.0.1) asks for the worst each limit admits (**loaded**):

* **the worst bot games the cap admits**: every ``--game-every`` seconds, a game of seven
  ``expert`` seats and a ``random`` one, one round of 13 cards, ``turn_limit`` 100 and a
  contract rarely met (four sets of naturals): 1,414 expert decisions of up to 150,000
  work units each, 157.6 of the cap's 160 standard games, so one at a time is admitted
  (the next once it ends);
* **the worst analyses it admits**: finished 2-seat games stalled for 200 turns (the same
  contract; two ``random`` seats), each analysis asked for until ``ANALYSIS_LIMIT`` refuses;
* **a challenge flood**: one account's key spelled eight ways (``Bearer``, ``bearer``, …),
  ``--challenges`` challenges to the ``random`` bot over the phase (each starts a game).

The other client's probes: (a) an action on its own 2-human game, (b) the ``greedy``
bot's reply to its move (from the move's save to the bot's first event on its stream:
the worker's wake-up, the decision, the save, the push), and (c) the analysis of a small
finished game of its own (from the request to ``done``). The target: each probe's p99
loaded within 2x its quiet p99, and the loader's games within its quotas. One table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from service.match.local import ROOT, LocalService, local_service
from tests.bench.aio_http import Http
from tests.bench.bench_bots import (
    LOADER,
    Phase,
    bot_game,
    cpu_seconds,
    mark,
    outcome,
    post,
    probes,
    quantiles,
    sleep_until,
)
from tests.bench.procs import percentile, tree_cpu_seconds

#: Four sets of three natural cards each, no wild in a meld, from 13 cards: rarely met,
#: so a round lasts its turn limit (100 turns each) unless someone draws into it.
NOBODY = {"hand_sizes": [13], "turn_limit": 100, "contracts": [{"sets": 4, "runs": 0}],
          "min_naturals_per_meld": 3, "max_wilds_per_meld": 0}
WORST_GAME = {"players": [{"bot": "expert"}] * 7 + [{"bot": "random"}], "rules": NOBODY}
STALLED_GAME = {"players": [{"bot": "random"}] * 2, "rules": NOBODY}
SMALL_GAME = {"players": [{"bot": "greedy"}] * 2, "rules": {"hand_sizes": [3]}}
SPELLINGS = ("Bearer {}", "bearer {}", "BEARER {}", "BeArEr {}", "  Bearer {}", "Bearer  {}",
             "Bearer {}  ", "bEARER   {}")


@dataclass
class Abuse:
    """The loader's answers by kind: status and problem code -> count."""

    games: Counter[str] = field(default_factory=Counter)
    analyses: Counter[str] = field(default_factory=Counter)
    challenges: Counter[str] = field(default_factory=Counter)
    analyses_done: int = 0


@dataclass
class Analyses:
    """The other client's analysis probes (ms from the request to done)."""

    done: list[float] = field(default_factory=list)
    lost: int = 0


async def finished(http: Http, body: dict[str, Any], who: str = "") -> str:
    """A game of bot seats created and followed to its end (spectator long-polls)."""
    status, created = await post(http, "/v1/games", body)
    assert status == 201, (who, created)
    game_id = created["game_id"]
    while True:
        status, view = await http.request("GET", f"/v1/games/{game_id}?wait=turn&timeout=25")
        assert status == 200, view
        if view["status"] == "finished":
            return str(game_id)


async def analysis_probes(port: int, stop_at: float, every: float, out: Analyses,
                          first: int) -> None:
    """A small game, finished, then its analysis timed to done: each from an address of
    its own (127.0.2.N), as other *clients* (``ANALYSIS_LIMIT`` allows an address 10 an
    hour)."""
    next_at = time.monotonic()
    n = first
    while time.monotonic() < stop_at:
        http = await Http(port, f"127.0.2.{n % 250 + 1}").open()
        n += 1
        game_id = await finished(http, SMALL_GAME, "probe")
        started = time.monotonic()
        status, body = await post(http, f"/v1/games/{game_id}/analysis", None)
        assert status in (200, 202), body
        while True:
            status, body = await http.request("GET", f"/v1/games/{game_id}/analysis")
            if status == 200 and body["status"] == "done":
                out.done.append((time.monotonic() - started) * 1000)
                break
            if time.monotonic() - started > 600:
                out.lost += 1
                break
            await asyncio.sleep(0.02)
        http.close()
        next_at = max(next_at + every, time.monotonic())
        await sleep_until(next_at)


async def worst_games(port: int, start: float, stop_at: float, every: float,
                      abuse: Abuse) -> None:
    http = await Http(port, LOADER).open()
    at = start
    while at < stop_at:
        await sleep_until(at)
        status, body = await post(http, "/v1/games", WORST_GAME)
        abuse.games[outcome(status, body)] += 1
        at += every
    http.close()


async def worst_analyses(port: int, stalled: list[str], start: float, abuse: Abuse) -> None:
    http = await Http(port, LOADER).open()
    await sleep_until(start)
    for game_id in stalled:
        status, body = await post(http, f"/v1/games/{game_id}/analysis", None)
        abuse.analyses[outcome(status, body)] += 1
    http.close()


async def flood(port: int, start: float, stop_at: float, count: int, abuse: Abuse) -> None:
    http = await Http(port, LOADER).open()
    status, created = await post(http, "/v1/accounts", {"handle": f"flood{os.getpid()}"})
    assert status == 201, created
    key = created["key"]
    for n in range(count):
        await sleep_until(start + n * (stop_at - start) / count)
        status, body = await http.request(
            "POST", "/v1/challenges", {"to": ["random"], "rules": {"hand_sizes": [3]}},
            {"Authorization": SPELLINGS[n % len(SPELLINGS)].format(key)})
        abuse.challenges[outcome(status, body)] += 1
    http.close()


async def phase(name: str, service: LocalService, analysers: list[int], seconds: float,
                args: argparse.Namespace, stalled: list[str] | None = None,
                abuse: Abuse | None = None) -> tuple[Phase, Analyses]:
    port = int(service.url.rsplit(":", 1)[1])
    out, analysed = Phase(name), Analyses()
    start = time.monotonic()
    stop_at = start + seconds
    cpu = cpu_seconds(service)
    cpu["analysers"] = sum(tree_cpu_seconds(pid) for pid in analysers)
    load_before = os.getloadavg()[0]
    tasks = [probes(port, stop_at, args.tick, out),
             bot_game(port, stop_at, args.bot_pause, out),
             analysis_probes(port, stop_at, args.analysis_every, analysed,
                             {"warm-up": 0, "quiet": 50, "loaded": 150}[name])]
    if abuse is not None and stalled is not None:
        tasks += [worst_games(port, start, stop_at - 1, args.game_every, abuse),
                  worst_analyses(port, stalled, start, abuse),
                  flood(port, start, stop_at - 1, args.challenges, abuse)]
    await asyncio.gather(*tasks)
    took = time.monotonic() - start
    now = cpu_seconds(service)
    now["analysers"] = sum(tree_cpu_seconds(pid) for pid in analysers)
    out.cores = {k: (v - cpu[k]) / took for k, v in now.items()}
    out.load = (load_before, os.getloadavg()[0])
    print(f"  {name}: {len(out.actions)} actions, {len(out.bot_start)} bot replies, "
          f"{len(analysed.done)} analyses", flush=True)
    return out, analysed


def p99(samples: list[float]) -> float:
    return percentile(sorted(samples), 0.99)


def answers(counts: Counter[str]) -> str:
    return ", ".join(f"{n} x {k}" for k, n in sorted(counts.items())) or "none sent"


def table(args: argparse.Namespace, quiet: tuple[Phase, Analyses],
          loaded: tuple[Phase, Analyses], abuse: Abuse) -> list[tuple[str, str, str, str]]:
    rows = []
    for label, q, ld in (
            ("(a) action on another game, ms", quiet[0].actions, loaded[0].actions),
            ("(b) greedy's reply to another client, ms", quiet[0].bot_start,
             loaded[0].bot_start),
            ("(c) another client's analysis, ms", quiet[1].done, loaded[1].done)):
        ratio = p99(ld) / p99(q) if q and ld else float("nan")
        rows.append((label, quantiles(q, 0.5, 0.99), quantiles(ld, 0.5, 0.99),
                     f"{mark(ratio <= 2)}: p99 {ratio:.2f}x quiet (<= 2x)"))
    lost = quiet[0].bot_lost + loaded[0].bot_lost + quiet[1].lost + loaded[1].lost
    if lost:
        rows.append(("    replies or analyses never seen", "", str(lost), "MISS: 0"))
    rows.append(("CPU, cores: web, movers, Redis, analysers, client",
                 *("  ".join(f"{ph.cores[k]:.2f}" for k in
                             ("web", "movers", "redis", "analysers", "client"))
                   for ph in (quiet[0], loaded[0])), ""))
    refused = abuse.games.get("429 too_many_bot_games", 0)
    rows.append(("loader: 7-expert 13-card 100-turn games", "", answers(abuse.games),
                 f"{mark(refused > 0)}: one unfinished at a time (157.6 of the cap's 160)"))
    rows.append(("loader: analyses of 200-turn stalled games", "", answers(abuse.analyses),
                 "ANALYSIS_LIMIT 10/hour"))
    made = abuse.challenges.get("201", 0)
    rows.append(("loader: challenge flood, 8 spellings of one key", "",
                 answers(abuse.challenges), f"{mark(made <= 20)}: <= 20 a minute"))
    return rows


def print_table(args: argparse.Namespace, quiet: tuple[Phase, Analyses],
                loaded: tuple[Phase, Analyses], abuse: Abuse) -> None:
    rows = table(args, quiet, loaded, abuse)
    head = ("", f"quiet ({args.quiet_seconds:.0f} s)", f"loaded ({args.load_seconds:.0f} s)",
            "target")
    widths = [max(len(r[i]) for r in (head, *rows)) for i in range(4)]
    print(f"\nbench-abuse: 2 gunicorn workers, 1 move worker, {args.analysers} analysis "
          "workers, make run's limits; one client (127.0.0.1) loads, another (127.0.0.2) "
          "is timed")
    print(f"load average (1 min): quiet {quiet[0].load[0]:.2f} to {quiet[0].load[1]:.2f}, "
          f"loaded {loaded[0].load[0]:.2f} to {loaded[0].load[1]:.2f}; "
          f"{os.cpu_count()} cores\n")
    for r in (head, *rows):
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())


async def stalled_games(service: LocalService, count: int) -> list[str]:
    """The loader's finished 200-turn games, made before the phases (two random seats
    play them out in seconds, on the light lane)."""
    port = int(service.url.rsplit(":", 1)[1])
    http = await Http(port, LOADER).open()
    games = [await finished(http, STALLED_GAME, "stalled") for _ in range(count)]
    http.close()
    return games


async def main_async(args: argparse.Namespace) -> None:
    print(f"bench-abuse: load average {os.getloadavg()[0]:.2f} at the start", flush=True)
    with local_service(2, movers=1, limits=True, mover_metrics=True) as service:
        env = {**os.environ, "REDIS_URL": service.redis_url, "LOG_LEVEL": "warning"}
        procs = [subprocess.Popen([sys.executable, "-m", "service.workers", "--analysis"],
                                  env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL) for _ in range(args.analysers)]
        try:
            stalled = await stalled_games(service, args.stalled)
            pids = [p.pid for p in procs]
            await phase("warm-up", service, pids, args.warm_seconds, args)
            quiet = await phase("quiet", service, pids, args.quiet_seconds, args)
            abuse = Abuse()
            loaded = await phase("loaded", service, pids, args.load_seconds, args, stalled,
                                 abuse)
        finally:
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.wait(30)
    print_table(args, quiet, loaded, abuse)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--analysers", type=int, default=2)
    parser.add_argument("--warm-seconds", type=float, default=5)
    parser.add_argument("--quiet-seconds", type=float, default=60)
    parser.add_argument("--load-seconds", type=float, default=60)
    parser.add_argument("--tick", type=float, default=0.1, help="seconds between actions")
    parser.add_argument("--bot-pause", type=float, default=0.1)
    parser.add_argument("--analysis-every", type=float, default=1.0)
    parser.add_argument("--game-every", type=float, default=2.0)
    parser.add_argument("--stalled", type=int, default=12)
    parser.add_argument("--challenges", type=int, default=160)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
