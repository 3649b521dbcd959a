"""``python -m service.match --url http://127.0.0.1:8000 --bots greedy,random,strong --games 100``

Without ``--url`` (or with ``--local``) it starts its own Redis and a 2-worker
gunicorn for the duration of the match.

``--duplicate --deals 200`` plays every deal once per rotation of the seats and reports
the differences with intervals clustered by deal (``service/match/duplicate.py``);
``--in-process`` plays reference bots in this process, without a service; ``--sprt
0,50`` stops once a sequential test tells ``elo 0`` from ``elo 50`` for the first pair.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Sequence

import orjson

from service.bots import BOTS

from .duplicate import Deal, PlayFn, Sprt, format_report, report, run_duplicate
from .inprocess import play_in_process
from .local import local_service
from .report import format_table, write_json, write_png
from .runner import labels_of, play_game, run_match


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m service.match", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", help="the service (default: start a local one)")
    p.add_argument("--local", action="store_true", help="start a local Redis + gunicorn")
    p.add_argument("--workers", type=int, default=2, help="gunicorn workers with --local")
    p.add_argument("--bots", default="greedy,random",
                   help=f"comma-separated, one per seat: {', '.join(BOTS)}, or a bot class of "
                        "your own as package.module:ClassName")
    p.add_argument("--players", type=int, help="seats per game (the bots are cycled)")
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--preset", default="classic", choices=["classic", "bga", "family"])
    p.add_argument("--rules", default="{}", help='rule overrides as JSON, e.g. \'{"lay_off": true}\'')
    p.add_argument("--concurrency", type=int, default=4, help="games (with --duplicate: deals) played at once")
    p.add_argument("--seed", help="deal game i from SEED-i (reproducible matches)")
    p.add_argument("--json", help="write the results as JSON here")
    p.add_argument("--png", help="write a chart of the score per round here (needs matplotlib)")
    p.add_argument("--quiet", action="store_true", help="no progress line per game")
    p.add_argument("--duplicate", action="store_true",
                   help="duplicate deals: each deal once per seat rotation")
    p.add_argument("--deals", type=int, default=100, help="deals with --duplicate")
    p.add_argument("--in-process", action="store_true",
                   help="with --duplicate: play the reference bots here, no service")
    p.add_argument("--sprt", help="with --duplicate: ELO0,ELO1 of a sequential test (alpha = "
                                  "beta = 0.05) that stops the match once it decides")
    p.add_argument("--rows", action="store_true", help="with --duplicate: a line per deal")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    unknown = [b for b in bots if b not in BOTS and ":" not in b]
    if unknown:
        print(f"unknown bot {unknown[0]!r}; choose from {', '.join(BOTS)}", file=sys.stderr)
        return 2

    if args.duplicate:
        return duplicate_main(args, bots)
    if args.in_process or args.sprt or args.rows:
        print("--in-process, --sprt and --rows go with --duplicate", file=sys.stderr)
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


def duplicate_main(args: argparse.Namespace, bots: list[str]) -> int:
    """The ``--duplicate`` match: the entrants are the bots as given, one per seat."""
    labels = labels_of(bots)
    rules = {"preset": args.preset, **orjson.loads(args.rules)}
    sprt = None
    if args.sprt:
        elo0, elo1 = (float(x) for x in args.sprt.split(","))
        sprt = Sprt(elo0, elo1)

    def progress(done: int, deal: Deal) -> None:
        if not args.quiet:
            print(f"\r{done}/{args.deals} deals", end="", file=sys.stderr, flush=True)

    if args.in_process and any(":" in b for b in bots):
        print("--in-process plays the reference bots only; a bot of your own plays over HTTP",
              file=sys.stderr)
        return 2
    seed = args.seed or "duplicate"
    with contextlib.ExitStack() as stack:
        play: PlayFn
        if args.in_process:
            def play(seat_bots: list[str], _labels: list[str], deal: str) -> tuple[int, ...]:
                return play_in_process(seat_bots, deal, rules)
        else:
            url = args.url
            if url is None or args.local:
                service = stack.enter_context(local_service(args.workers))
                url = service.url
                print(f"local service at {url} ({args.workers} workers)", file=sys.stderr)

            def play(seat_bots: list[str], seat_labels: list[str], deal: str) -> list[int]:
                return play_game(url, seat_bots, seat_labels, rules=rules, seed=deal,
                                 bot_seed=deal).totals
        deals = run_duplicate(play, bots, labels, args.deals, seed=seed,
                              concurrency=args.concurrency, sprt=sprt, progress=progress)
    if not args.quiet:
        print(file=sys.stderr)
    summary = report(deals, labels, sprt)
    print(format_report(summary, rows=args.rows))
    if args.json:
        write_json(summary, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
