"""``make bench-export``: an account's whole history pulled as one export, and what it costs.

Not a test: it starts a redis-server and the service under gunicorn (one gevent worker,
no move worker: nothing here is the service's to play), makes one account with
``--games`` (10,000) finished games, then streams ``GET /v1/accounts/{handle}/games``
over HTTP and prints one table: records, seconds, records/s (goal: 200/s or more), the
worker's RSS before the export and after 2,500, 5,000 and every line (goal: flat: the
export holds a page of 100 ids, never the history), and how many lines
``service.verify`` accepted (every one). The baseline row is the same records one
``GET /v1/games/{id}/record`` at a time on one keep-alive connection.

The games are genuine and fast (:mod:`tests.play.finished_games`): dealt through the
service layer with the account and a second one seated, played to their end in the
engine (one round of three cards) and saved in one commit each, the one write path, so
each has the record and the finished index entry any game gets. The client reads as fast
as it can and verifies the lines once the export is over, so the rate is the server's.

Usage: ``python -m tests.bench.bench_export [--games N] [--baseline N]``
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence

import orjson
import requests

from service import play
from service.config import Config
from service.match.local import local_service
from service.storage import redis_stores
from service.verify import verify
from tests.bench.procs import children, rss_mb
from tests.play.finished_games import finish_game

#: the goal of issue 22 for an export, records a second
GOAL_RATE = 200
#: the lines after which the worker's RSS is read (and at the end)
MARKS = (2_500, 5_000)


def fill(redis_url: str, games: int) -> float:
    """Make ``ann`` and ``bob`` and ``games`` finished games between them; seconds taken."""
    stores = redis_stores(Config(redis_url=redis_url))
    ann, _ = play.create_account(stores, "ann", False)
    bob, _ = play.create_account(stores, "bob", True)
    start = time.perf_counter()
    for n in range(games):
        finish_game(stores, [ann, bob], f"export-{n}")
        if (n + 1) % 2_000 == 0:
            print(f"  {n + 1:,} games finished", file=sys.stderr)
    stores.close()
    return time.perf_counter() - start


def export(url: str, worker: int) -> tuple[list[bytes], float, dict[str, float]]:
    """Stream the export; its lines, the seconds taken and the worker's RSS by mark."""
    rss = {"start": rss_mb(worker)}
    lines: list[bytes] = []
    start = time.perf_counter()
    with requests.get(f"{url}/v1/accounts/ann/games", stream=True, timeout=60,
                      headers={"Accept": "application/x-ndjson"}) as r:
        r.raise_for_status()
        for line in r.iter_lines(chunk_size=65_536):
            lines.append(line)
            if len(lines) in MARKS:
                rss[f"after {len(lines):,}"] = rss_mb(worker)
    seconds = time.perf_counter() - start
    rss[f"after {len(lines):,}"] = rss_mb(worker)
    return lines, seconds, rss


def baseline(url: str, game_ids: list[str]) -> float:
    """Records a second read one ``GET /v1/games/{id}/record`` at a time."""
    with requests.Session() as session:
        start = time.perf_counter()
        for game_id in game_ids:
            session.get(f"{url}/v1/games/{game_id}/record", timeout=10).raise_for_status()
        return len(game_ids) / (time.perf_counter() - start)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="finished games of the account")
    parser.add_argument("--baseline", type=int, default=1_000,
                        help="records read one request each for the baseline")
    args = parser.parse_args(argv)
    with local_service(workers=1, movers=0) as service:
        (worker,) = children(service.server_pid)
        print(f"finishing {args.games:,} games …", file=sys.stderr)
        made = fill(service.redis_url, args.games)
        # the route warmed on an empty window (no record read): "start" is before any export
        requests.get(f"{service.url}/v1/accounts/ann/games?until=1970-01-02T00:00:00Z",
                     timeout=10, headers={"Accept": "application/x-ndjson"}).raise_for_status()
        lines, seconds, rss = export(service.url, worker)
        records = [orjson.loads(line) for line in lines]
        verified = sum(1 for record in records if verify(record) == [])
        once = len({record["game_id"] for record in records})
        single = baseline(service.url, [r["game_id"] for r in records[:args.baseline]])
    rate = len(lines) / seconds
    print(f"\none account, {args.games:,} finished games (made in {made:.0f} s); one gevent "
          "worker; pages of 100 ids")
    head = f"{'':<44}{'value':>12}"
    print(head)
    print("-" * len(head))
    rows: list[tuple[str, str]] = [
        ("records", f"{len(lines):,}"),
        ("each game once", f"{once:,}"),
        ("bytes per record (mean)", f"{sum(map(len, lines)) / max(1, len(lines)):,.0f}"),
        ("seconds", f"{seconds:.2f}"),
        ("records/s", f"{rate:,.0f}"),
        (f"records/s goal (>= {GOAL_RATE})", "met" if rate >= GOAL_RATE else "MISSED"),
        *((f"worker RSS MB, {mark}", f"{mb:.1f}") for mark, mb in rss.items()),
        ("lines verified (service.verify)", f"{verified:,}"),
        (f"baseline: GET record, 1 a request ({min(args.baseline, len(records)):,})",
         f"{single:,.0f}/s"),
    ]
    for name, value in rows:
        print(f"{name:<44}{value:>12}")
    flat = max(rss.values()) - rss["start"]
    print(f"\nRSS growth over the export: {flat:+.1f} MB")
    ok = (len(lines) == once == verified == args.games and rate >= GOAL_RATE)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
