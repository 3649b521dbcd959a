"""``make bench-push``: waiting at scale (issue 20), one table.

Starts Redis and a 2-gunicorn-worker service (``local_service``, the deployed
``deploy/gunicorn.conf.py``) afresh for each part, drives the waiters from load
processes (``tests/bench/push_load.py``, 10,000 connections each: two for 20,000; each
raises its ``RLIMIT_NOFILE`` soft limit to the hard one) and times from this process:

1. **Wake-up** (``--kinds poll stream``, ``--waiters 5000 10000 20000``): spectator
   long-polls (``GET /v1/games/G?wait_version=V``, re-parked at once after every
   answer) or NDJSON streams, all on one game, added up to each row's count; then
   ``--moves`` moves, each made once the workers are idle again, and when each waiter
   heard of each (p50, p99 over every waiter and move; the last: the slowest move's);
   bytes per waiter: the growth of both workers' RSS since before any waiter, divided
   by the waiters; and the Redis connections open (both workers' pools, their
   subscriptions and the rate limiter's). The wait limits are off (one address parks
   them all) and the per-address rate limit is raised out of reach, but counted in
   Redis for every request as it is for a deployment's many addresses.
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

The targets (issue 20) are printed with the table.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
from typing import Any

from service.match.local import local_service
from tests.bench.procs import percentile
from tests.bench.push_rows import account_row, idle_row, loop_row, wake_rows

KINDS = {"poll": "long-polls", "stream": "streams"}


def log(text: str) -> None:
    print(text, flush=True)


def mark(ok: bool) -> str:
    return "ok" if ok else "MISS"


def print_wake(rows: list[dict[str, Any]]) -> None:
    print(f"{'kind':<11}{'waiters':>8}{'procs':>6}{'held':>7}{'wake p50':>9}{'wake p99':>9}"
          f"{'last':>7}{'RSS MB/worker':>14}{'KB/waiter':>10}{'redis conns':>12}"
          f"{'load CPU':>9}  target")
    for r in rows:
        rss = "/".join(f"{x:.0f}" for x in r["rss"])
        met = r["held"] == r["waiters"] and r["p99"] <= 1000 and r["last"] <= 2000
        print(f"{KINDS[r['kind']]:<11}{r['waiters']:>8}{r['procs']:>6}{r['held']:>7}"
              f"{r['p50']:>9.0f}{r['p99']:>9.0f}{r['last']:>7.0f}{rss:>14}{r['kb']:>10.1f}"
              f"{r['clients']:>12}{r['load_cpu']:>9.2f}  {mark(met)}")
    print("(ms after the move was sent; load CPU: the load processes' CPU seconds per move; "
          "target: every waiter held and woken, p99 ≤ 1000, last ≤ 2000)")


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
    wake: list[dict[str, Any]] = []
    for kind in args.kinds:
        with local_service(args.workers, env_extra=waits_off) as service:
            wake += await wake_rows(service, kind, args.waiters, args.moves, args.settle, log)
    idle = None
    if args.idle:
        with local_service(args.workers, env_extra=waits_off) as service:
            idle = await idle_row(service, args.idle, args.hot, args.idle_moves,
                                  args.idle_games, log)
    accounts = None
    if args.accounts:
        with local_service(args.workers, env_extra=waits_off) as service:
            accounts = await account_row(service, args.accounts, args.account_games,
                                         args.account_moves, args.settle, log)
    loop = None
    if args.loop:
        with local_service(args.workers, limits=True) as service:
            loop = await loop_row(service, args.loop, args.loop_seconds, args.quiet_seconds,
                                  args.probe_every, log)
    print(f"\n{args.workers} gunicorn workers (gevent), waiters on one game; load average "
          f"{load_at_start:.2f} at start, {os.getloadavg()[0]:.2f} at the end "
          f"({os.cpu_count()} cores)\n")
    if wake:
        print_wake(wake)
    if idle:
        print_idle(idle)
    if accounts:
        print_accounts(accounts)
    if loop:
        print_loop(loop)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kinds", nargs="*", choices=list(KINDS), default=list(KINDS))
    parser.add_argument("--waiters", type=int, nargs="+", default=[5000, 10000, 20000])
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
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
