"""``make bench-push``: waiting at scale (issues 20 and 34), one table.

Starts Redis and a 2-gunicorn-worker service (``local_service``, the deployed
``deploy/gunicorn.conf.py``) afresh for each part, and for the push tier's parts a push
process beside it on the same Redis (``python -m service.push``, with the same
environment); drives the waiters from load processes (``tests/bench/push_load.py``,
10,000 connections each: two for 20,000; each raises its ``RLIMIT_NOFILE`` soft limit to
the hard one) and times from this process. ``--tiers gunicorn push`` (both by default)
says which run: parts 1 to 4 hold the waiters in the web workers, parts 5 to 8 in the
push process; ``--rows`` picks parts by name (:data:`ROWS`, all by default).

1. **Wake-up** (``--kinds poll stream``, ``--waiters 5000 10000 20000``): spectator
   long-polls (``GET /v1/games/G?wait_version=V``, re-parked at once after every
   answer) or NDJSON streams, all on one game, added up to each row's count; then
   ``--moves`` moves, each made once the workers are idle again, and when each waiter
   heard of each (p50, p99 over every waiter and move; the last: the slowest move's);
   the workers' CPU per woken waiter (both workers, from the move until they are idle
   again, a quiet second's idle CPU taken off; the median of the moves); the slowest of
   the moves' own requests and of another client's views of another game (one every
   ``--aside-every`` seconds while the waiters wake: at the workers, so their CPU counts
   in the workers' per waiter, as the move's own does, a few ms each); bytes per waiter:
   the growth of both workers' RSS since before any waiter, divided by the waiters; and
   the Redis connections open (both workers' pools, their subscriptions and the rate
   limiter's).
   The wait limits are off (one address parks them all) and the per-address rate limit
   is raised out of reach, but counted in Redis for every request as it is for a
   deployment's many addresses; the streams' heartbeat is 120 s, so that no heartbeat
   of thousands of streams falls in a move's CPU (the idle row counts them).
2. **Idle waiters on other games**: the workers' CPU per move of a game with
   ``--hot`` waiters of its own, without and then with ``--idle`` waiters (half
   long-polls, half streams) on ``--idle-games`` other games nobody moves.
3. **Account streams** (``--accounts``, 10,000): as many bot accounts, each with its
   account stream (``GET /v1/me/stream``, NDJSON) parked; ``--account-games`` games
   between pairs of them, made by a challenge and its acceptance; then
   ``--account-moves`` times every game's account on turn draws and discards, all games
   at once, and when the next account's stream heard ``your_turn`` (p50, p99, last; ms
   after the discard was sent). Target: p99 within 1 s (issue 21).
4. **A looping client**: on ``make run``'s limits (``MAX_WAITS_PER_ADDRESS`` 1,000 per
   worker, the rate limits), one client (127.0.0.1) loops ``--loop`` long-polls for
   ``--loop-seconds``, each re-sent as soon as it ends (after ``Retry-After`` when
   refused), while another (127.0.0.2: Linux routes all of 127/8 to the loopback) probes
   ``/healthz`` and a game's view every ``--probe-every`` seconds each; quiet first.
5. **Wake-up at the push process** (``--push-waiters 10000``): part 1 with the waiters
   parked at the push process, the moves and the other client's views sent to the web
   workers; the CPU is the push process's (all its threads).
6. **Capacity of the push process** (``--capacity-games 500``, ``--capacity-waiters 4``
   of ``--capacity-kind``, streams by default): as many games, that many waiters on
   each; then ``--capacity-rate`` moves a second (50) for ``--capacity-seconds`` (20),
   one game after another: how long after each move each of its game's waiters heard
   of it (p50, p99, last), and the push process's CPU per answer delivered (over the
   whole run, until idle again, the idle CPU taken off).
7. **Idle streams** (``--idle-streams 100000`` on ``--idle-stream-games 100``): held by
   as few push processes as their open-file limit allows (``--idle-per-process``), each
   fed by a lean client process from a loopback address of its own
   (``tests/bench/push_idle.py``); once every stream heard its first view, the push
   processes' RSS growth per stream.
8. **Readers beside clients that never read** (``--stalled 1000``,
   ``--stalled-readers 10000``, ``--stalled-moves 5``): the readers' wake-up after each
   move alone, then beside that many streams on the game whose clients never read, once
   moves have paused every one of their writers; and the ratio of the p99s.

The targets (issue 20 for the web workers, issue 34 for the push process) are printed
with the table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
from typing import Any

from service.match.local import local_service
from tests.bench.procs import percentile
from tests.bench.push_rows import (
    Waiting,
    account_row,
    capacity_row,
    idle_row,
    idle_streams_row,
    loop_row,
    push_process,
    stalled_row,
    wake_rows,
)

KINDS = {"poll": "long-polls", "stream": "streams"}
TIERS = ("gunicorn", "push")
#: The parts, by name, for ``--rows`` (each also needs its tier in ``--tiers``).
ROWS = ("wake", "others", "accounts", "loop", "capacity", "idle", "stalled")
#: The push process's memory per idle stream (KB) and the readers' p99 beside readers
#: that never read, against theirs alone (issue 34).
IDLE_KB_TARGET = 12.0
STALLED_RATIO_TARGET = 1.10
#: The push tier's targets (issue 34), per kind: p99 and last in ms after the move, the
#: push process's CPU per woken waiter in µs (an answer; a stream's frames of one move).
PUSH_TARGETS = {"poll": {"p99": 500.0, "last": 1000.0, "cpu_us": 100.0},
                "stream": {"p99": 250.0, "last": 400.0, "cpu_us": 25.0}}
#: While the push process wakes them: the move's request and another game's view (ms).
ASIDE_TARGET_MS = 500.0


def log(text: str) -> None:
    print(text, flush=True)


def mark(ok: bool) -> str:
    return "ok" if ok else "MISS"


def push_checks(r: dict[str, Any]) -> list[tuple[str, float, float]]:
    """A push row's targets: (what, measured, at most)."""
    target = PUSH_TARGETS[r["kind"]]
    return [("p99", r["p99"], target["p99"]), ("last", r["last"], target["last"]),
            ("µs/waiter", r["cpu_us"], target["cpu_us"]),
            ("move", r["move_ms"], ASIDE_TARGET_MS),
            ("other view", r["other_ms"], ASIDE_TARGET_MS)]


def met(r: dict[str, Any]) -> bool:
    if r["held"] != r["waiters"]:
        return False
    if r["tier"] == "push":
        return all(value <= most for _, value, most in push_checks(r))
    return bool(r["p99"] <= 1000 and r["last"] <= 2000)


def print_wake(rows: list[dict[str, Any]]) -> None:
    print(f"{'tier':<9}{'kind':<11}{'waiters':>8}{'procs':>6}{'held':>7}{'wake p50':>9}"
          f"{'wake p99':>9}{'last':>7}{'µs/waiter':>10}{'move':>6}{'other':>7}{'RSS MB':>9}"
          f"{'KB/waiter':>10}{'redis conns':>12}{'load µs':>8}  target")
    for r in rows:
        rss = "/".join(f"{x:.0f}" for x in r["rss"])
        print(f"{r['tier']:<9}{KINDS[r['kind']]:<11}{r['waiters']:>8}{r['procs']:>6}"
              f"{r['held']:>7}{r['p50']:>9.0f}{r['p99']:>9.0f}{r['last']:>7.0f}"
              f"{r['cpu_us']:>10.0f}{r['move_ms']:>6.0f}{r['other_ms']:>7.0f}{rss:>9}"
              f"{r['kb']:>10.1f}{r['clients']:>12}{r['load_us']:>8.0f}  {mark(met(r))}")
    print("(wake p50/p99/last: ms after the move was sent; µs/waiter: the server's CPU per "
          "woken waiter, both workers' for gunicorn (with the move's and the other views' "
          "requests), the push process's for push, idle CPU taken off, median of the "
          "moves; move, other: the slowest move's request and the slowest view of another "
          "game while the waiters woke, ms, both at the workers; "
          "RSS MB: each server process; load µs: the load processes' CPU per woken waiter)")
    print("targets: gunicorn (issue 20): every waiter held and woken, p99 ≤ 1000, last ≤ 2000; "
          "push (issue 34): every waiter held and woken, long-polls p99 ≤ 500, last ≤ 1000, "
          "≤ 100 µs per answer; streams p99 ≤ 250, last ≤ 400, ≤ 25 µs per woken stream; "
          "the move and the other view each ≤ 500 ms")
    for r in rows:
        if r["tier"] == "push":
            print(f"  push {KINDS[r['kind']]} {r['waiters']:,}: held {r['held']:,} "
                  f"({mark(r['held'] == r['waiters'])}), " + ", ".join(
                      f"{what} {value:.0f} ≤ {most:.0f} {mark(value <= most)}"
                      for what, value, most in push_checks(r)))


def print_idle(r: dict[str, Any]) -> None:
    ratio = r["with_ms"] / r["none_ms"] if r["none_ms"] > 0 else float("nan")
    print(f"\nmove CPU, a game with {r['hot']:,} waiters of its own (median of {r['moves']} "
          f"moves, both workers, idle CPU taken off)")
    print(f"  no other waiter: {r['none_ms']:.1f} ms; with {r['idle']:,} idle waiters on "
          f"{r['games']} other games: {r['with_ms']:.1f} ms; ratio {ratio:.2f} (target ≤ 1.2: "
          f"{mark(ratio <= 1.2)}); idle CPU {r['none_bg']:.1f} → {r['with_bg']:.1f} ms/s")


def print_accounts(r: dict[str, Any]) -> None:
    rss = "/".join(f"{x:.0f}" for x in r["rss"])
    met = r["missed"] == 0 and r["parked"] == r["accounts"] and r["p99"] <= 1000
    print(f"\n{r['accounts']:,} account streams parked ({r['procs']} load processes; made and "
          f"parked in {r['setup']:.0f} s), {r['games']} games between {2 * r['games']} of them, "
          f"{r['moves']} turns each, every game's at once")
    print(f"  {'parked':>7}{'told':>6}{'missed':>7}{'your_turn p50':>14}{'p99':>6}{'last':>6}"
          f"{'RSS MB/worker':>14}{'redis conns':>12}  target")
    print(f"  {r['parked']:>7}{r['told']:>6}{r['missed']:>7}{r['p50']:>14.0f}{r['p99']:>6.0f}"
          f"{r['last']:>6.0f}{rss:>14}{r['clients']:>12}  {mark(met)}")
    print("  (ms after the discard that began the turn was sent; target: every stream parked, "
          "no your_turn missed, p99 ≤ 1000)")


def print_capacity(r: dict[str, Any]) -> None:
    print(f"\ncapacity of the push process: {r['games']:,} games × {r['per_game']} "
          f"{KINDS[r['kind']]} ({r['games'] * r['per_game']:,} waiters), moves at "
          f"{r['rate']:g}/s for {r['seconds']:g} s, one game after another")
    print(f"  {'moves':>6}{'made/s':>7}{'answers':>8}{'missed':>7}{'p50':>6}{'p99':>6}"
          f"{'last':>6}{'move p99':>9}{'µs/answer':>10}{'ms/move':>8}{'idle ms/s':>10}"
          f"{'load µs':>8}")
    print(f"  {r['moves']:>6}{r['made_rate']:>7.1f}{r['delivered']:>8}{r['missed']:>7}"
          f"{r['p50']:>6.0f}{r['p99']:>6.0f}{r['last']:>6.0f}{r['move_p99']:>9.0f}"
          f"{r['cpu_us']:>10.0f}{r['cpu_s'] / max(1, r['moves']) * 1000:>8.1f}"
          f"{r['bg']:>10.1f}{r['load_us']:>8.0f}")
    print("  (p50/p99/last: ms from a move being sent until each waiter of its game heard of "
          "it; µs/answer: the push process's CPU over the run, idle CPU taken off, per answer "
          "delivered; ms/move: the same per move; idle ms/s: the push process's CPU per "
          "second before the moves; load µs: the load processes' CPU over the run per "
          "answer delivered)")


def print_loop(r: dict[str, Any]) -> None:
    print(f"\none client looping {r['count']:,} long-polls for {r['seconds']:.0f} s vs another "
          f"client's probes (ms; from when all {r['count']:,} had sent a first request, "
          f"{r['ramp']:.1f} s after the first)")
    print(f"  {'probe':<10}{'quiet p50':>10}{'quiet p99':>10}{'p50':>8}{'p99':>8}{'max':>8}"
          f"{'count':>7}")
    quiet, loaded = r["quiet"], r["loaded"]
    for name in loaded["times"]:
        q, t = quiet["times"][name], loaded["times"][name]
        print(f"  {name:<10}{percentile(q, 0.5):>10.1f}{percentile(q, 0.99):>10.1f}"
              f"{percentile(t, 0.5):>8.1f}{percentile(t, 0.99):>8.1f}"
              f"{(t[-1] if t else float('nan')):>8.1f}{len(t):>7}")
    p99 = percentile(loaded["all"], 0.99)
    looper = r["looper"]
    errors = sum(n for s, n in {**looper, **loaded["statuses"]}.items() if s.startswith("5"))
    refused = ", ".join(f"{s} × {n:,}" for s, n in sorted(looper.items()))
    print(f"  looper: {refused}; probes: "
          + ", ".join(f"{s} × {n:,}" for s, n in sorted(loaded["statuses"].items())))
    print("  slowest probe in each 5 s: " + " ".join(f"{ms:.0f}" for ms in loaded["worst"]))
    print(f"  probe p99 {p99:.1f} ms (target < 100: {mark(p99 < 100)}), 5xx {errors} (target 0: "
          f"{mark(errors == 0)}); the workers used {r['worker_cpu']:.1f} s of CPU")


def print_idle_streams(r: dict[str, Any]) -> None:
    ok = r["heard"] == r["count"] and r["kb"] <= IDLE_KB_TARGET
    print(f"\n{r['count']:,} idle NDJSON streams on {r['games']} games nobody moves, held by "
          f"{r['processes']} push process{'es' if r['processes'] > 1 else ''} on this box "
          f"(a client process and loopback address for each)")
    print(f"  {'streams':>8}{'heard':>8}{'held':>8}{'failed':>7}{'open s':>7}{'RSS MB before':>14}"
          f"{'after':>7}{'KB/stream':>10}{'client MB':>10}  target")
    print(f"  {r['count']:>8}{r['heard']:>8}{r['waiting']:>8}{r['failed']:>7}"
          f"{r['seconds']:>7.0f}{sum(r['base']):>14.0f}{sum(r['rss']):>7.0f}{r['kb']:>10.1f}"
          f"{r['client_mb']:>10.0f}  {mark(ok)}")
    print("  per push process, RSS MB before → after: " + ", ".join(
        f"{b:.0f} → {a:.0f}" for b, a in zip(r["base"], r["rss"], strict=True)))
    print(f"  (heard: streams whose first view came; held: the push processes' /healthz "
          f"waiting; KB/stream: the push processes' VmRSS growth since before the first "
          f"connected, per stream heard; client MB: the client processes' RSS; target: all "
          f"heard, ≤ {IDLE_KB_TARGET:g} KB per stream)")


def print_stalled(r: dict[str, Any]) -> None:
    ratio = r["beside_p99"] / r["alone_p99"] if r["alone_p99"] > 0 else float("nan")
    ok = ratio <= STALLED_RATIO_TARGET and r["paused"] >= r["stalled"] \
        and r["alone_n"] == r["beside_n"] == r["readers"] * r["moves"]
    print(f"\n{r['readers']:,} reading streams on one game at a push process, {r['moves']} "
          f"moves alone, then {r['moves']} beside {r['stalled']:,} streams on the game whose "
          f"clients never read ({r['filling']} moves first to fill them)")
    print(f"  {'heard':>13}{'alone p50':>10}{'p99':>6}{'CPU ms':>7}{'paused':>7}"
          f"{'unsent KB':>10}{'beside p50':>11}{'p99':>6}{'CPU ms':>7}{'ratio':>7}  target")
    print(f"  {r['alone_n']:>6}/{r['beside_n']:<6}{r['alone_p50']:>10.0f}{r['alone_p99']:>6.0f}"
          f"{r['alone_cpu']:>7.0f}{r['paused']:>7}{r['unsent'] / 1024:>10.0f}"
          f"{r['beside_p50']:>11.0f}{r['beside_p99']:>6.0f}{r['beside_cpu']:>7.0f}"
          f"{ratio:>7.2f}  {mark(ok)}")
    print(f"  (ms after the move was sent, over every reader and move; CPU ms: the push "
          f"process's per move, until every reader heard (median); heard: answers alone/"
          f"beside; paused: the push process's /healthz paused, unsent KB: its transports' "
          f"unsent bytes, beside them; target: every stalled stream paused, the readers' "
          f"p99 beside them within {STALLED_RATIO_TARGET:.2f}× of alone)")


async def main_async(args: argparse.Namespace) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the service's sockets too
    load_at_start = os.getloadavg()[0]
    log(f"RLIMIT_NOFILE {soft} → {hard}; load average {load_at_start:.2f} on "
        f"{os.cpu_count()} cores")
    # one address parks every waiter: no wait limits, the per-address rate limit raised
    # (still counted in Redis, as for a deployment's thousands of addresses); and no
    # long-poll times out during a row
    waits_off = {"MAX_WAITS_PER_ADDRESS": "off", "MAX_WAITS_PER_TOKEN": "off",
                 "RATE_LIMIT_PER_ADDRESS": "1000000/second", "LONG_POLL_MAX_SECONDS": "300"}
    # the wake-up rows time a move's CPU: no burst of every stream's heartbeat in it
    quiet_streams = {**waits_off, "STREAM_HEARTBEAT_SECONDS": "120"}
    gunicorn, push = "gunicorn" in args.tiers, "push" in args.tiers
    rows = set(args.rows)
    wake: list[dict[str, Any]] = []
    for kind in args.kinds if gunicorn and "wake" in rows else []:
        with local_service(args.workers, env_extra=quiet_streams) as service:
            wake += await wake_rows(service, Waiting.workers(service), kind, args.waiters,
                                    args.moves, args.settle, args.aside_every, log)
    for kind in args.kinds if push and "wake" in rows else []:
        with local_service(args.workers, env_extra=quiet_streams) as service, \
                push_process(service, quiet_streams) as process:
            wake += await wake_rows(service, Waiting.push(service, process), kind,
                                    args.push_waiters, args.moves, args.settle,
                                    args.aside_every, log)
    idle = None
    if gunicorn and "others" in rows and args.idle:
        with local_service(args.workers, env_extra=waits_off) as service:
            idle = await idle_row(service, args.idle, args.hot, args.idle_moves,
                                  args.idle_games, log)
    accounts = None
    if gunicorn and "accounts" in rows and args.accounts:
        with local_service(args.workers, env_extra=waits_off) as service:
            accounts = await account_row(service, args.accounts, args.account_games,
                                         args.account_moves, args.settle, log)
    loop = None
    if gunicorn and "loop" in rows and args.loop:
        with local_service(args.workers, limits=True) as service:
            loop = await loop_row(service, args.loop, args.loop_seconds, args.quiet_seconds,
                                  args.probe_every, log)
    capacity = None
    if push and "capacity" in rows and args.capacity_games:
        with local_service(args.workers, env_extra=quiet_streams) as service, \
                push_process(service, quiet_streams) as process:
            capacity = await capacity_row(
                service, process, args.capacity_kind, args.capacity_games,
                args.capacity_waiters, args.capacity_rate, args.capacity_seconds,
                args.settle, log)
    idle_streams = None
    if push and "idle" in rows and args.idle_streams:
        with local_service(args.workers, env_extra=quiet_streams) as service:
            idle_streams = await idle_streams_row(
                service, quiet_streams, args.idle_streams, args.idle_stream_games,
                args.idle_per_process, args.client_rcvbuf, args.settle, log)
    stalled = None
    if push and "stalled" in rows and args.stalled:
        with local_service(args.workers, env_extra=quiet_streams) as service, \
                push_process(service, quiet_streams) as process:
            stalled = await stalled_row(service, process, args.stalled_readers, args.stalled,
                                        args.stalled_moves, args.client_rcvbuf, args.settle,
                                        log)
    print(f"\n{args.workers} gunicorn workers (gevent){' and a push process' if push else ''}"
          f", waiters on one game; load average {load_at_start:.2f} at start, "
          f"{os.getloadavg()[0]:.2f} at the end ({os.cpu_count()} cores)\n")
    if wake:
        print_wake(wake)
    if idle:
        print_idle(idle)
    if accounts:
        print_accounts(accounts)
    if loop:
        print_loop(loop)
    if capacity:
        print_capacity(capacity)
    if idle_streams:
        print_idle_streams(idle_streams)
    if stalled:
        print_stalled(stalled)


def main() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiers", nargs="+", choices=TIERS, default=list(TIERS),
                        help="where the waiters wait: the web workers (parts 1-4), a push "
                             "process (parts 5-8)")
    parser.add_argument("--rows", nargs="+", choices=ROWS, default=list(ROWS),
                        help="which parts run (all by default)")
    parser.add_argument("--kinds", nargs="*", choices=list(KINDS), default=list(KINDS))
    parser.add_argument("--waiters", type=int, nargs="+", default=[5000, 10000, 20000])
    parser.add_argument("--push-waiters", type=int, nargs="+", default=[10000])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--moves", type=int, default=3)
    parser.add_argument("--settle", type=float, default=2.0)
    parser.add_argument("--idle", type=int, default=5000, help="0: no idle row")
    parser.add_argument("--idle-games", type=int, default=50)
    parser.add_argument("--hot", type=int, default=1000)
    parser.add_argument("--idle-moves", type=int, default=10)
    parser.add_argument("--accounts", type=int, default=10_000, help="0: no account row")
    parser.add_argument("--account-games", type=int, default=100)
    parser.add_argument("--account-moves", type=int, default=5)
    parser.add_argument("--loop", type=int, default=5000, help="0: no looping row")
    parser.add_argument("--loop-seconds", type=float, default=60.0)
    parser.add_argument("--quiet-seconds", type=float, default=5.0)
    parser.add_argument("--probe-every", type=float, default=0.02)
    parser.add_argument("--aside-every", type=float, default=0.05,
                        help="seconds between views of another game while waiters wake")
    parser.add_argument("--capacity-games", type=int, default=500,
                        help="0: no capacity row")
    parser.add_argument("--capacity-waiters", type=int, default=4, help="per game")
    parser.add_argument("--capacity-kind", choices=list(KINDS), default="stream")
    parser.add_argument("--capacity-rate", type=float, default=50.0, help="moves a second")
    parser.add_argument("--capacity-seconds", type=float, default=20.0)
    parser.add_argument("--idle-streams", type=int, default=100_000,
                        help="idle streams held at once (0: no idle-streams row)")
    parser.add_argument("--idle-stream-games", type=int, default=100)
    parser.add_argument("--idle-per-process", type=int, default=max(1, hard - 200),
                        help="streams per push process (default: the open-file hard limit, "
                             "less 200)")
    parser.add_argument("--client-rcvbuf", type=int, default=4096,
                        help="SO_RCVBUF of the idle and stalled rows' client sockets")
    parser.add_argument("--stalled", type=int, default=1000,
                        help="streams whose clients never read (0: no stalled row)")
    parser.add_argument("--stalled-readers", type=int, default=10_000)
    parser.add_argument("--stalled-moves", type=int, default=5,
                        help="moves timed alone, and again beside the stalled streams")
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
