"""``python -m service.match --url http://127.0.0.1:8000 --bots greedy,random,strong --games 100``

Without ``--url`` (or with ``--local``) it starts its own Redis and a 2-worker
gunicorn for the duration of the match.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence

import orjson

from service.bots import BOTS

from .local import local_service
from .report import format_table, write_json, write_png
from .runner import run_match


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m service.match", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", help="the service (default: start a local one)")
    p.add_argument("--local", action="store_true", help="start a local Redis + gunicorn")
    p.add_argument("--workers", type=int, default=2, help="gunicorn workers with --local")
    p.add_argument("--bots", default="greedy,random",
                   help=f"comma-separated, one per seat (from: {', '.join(BOTS)})")
    p.add_argument("--players", type=int, help="seats per game (the bots are cycled)")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--preset", default="classic", choices=["classic", "bga", "family"])
    p.add_argument("--rules", default="{}", help='rule overrides as JSON, e.g. \'{"lay_off": true}\'')
    p.add_argument("--concurrency", type=int, default=4, help="games played at once")
    p.add_argument("--seed", help="deal game i from SEED-i (reproducible matches)")
    p.add_argument("--json", help="write the results as JSON here")
    p.add_argument("--png", help="write a chart of the score per round here (needs matplotlib)")
    p.add_argument("--quiet", action="store_true", help="no progress line per game")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in BOTS]
    if unknown:
        print(f"unknown bot {unknown[0]!r}; choose from {', '.join(BOTS)}", file=sys.stderr)
        return 2

    def progress(done: int, result: object) -> None:
        if not args.quiet:
            print(f"\r{done}/{args.games} games", end="", file=sys.stderr, flush=True)

    with contextlib.ExitStack() as stack:
        url = args.url
        if url is None or args.local:
            service = stack.enter_context(local_service(args.workers))
            url = service.url
            print(f"local service at {url} ({args.workers} workers)", file=sys.stderr)
        result = run_match(
            url, bots, args.games, preset=args.preset, rules=orjson.loads(args.rules),
            players=args.players, concurrency=args.concurrency, seed=args.seed,
            progress=progress,
        )
    if not args.quiet:
        print(file=sys.stderr)
    summary = result.summary()
    print(format_table(summary))
    if args.json:
        write_json(summary, args.json)
    if args.png and not write_png(summary, args.png):
        print("matplotlib is not installed: no chart (pip install matplotlib)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
