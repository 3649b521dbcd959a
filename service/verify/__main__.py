"""``python -m service.verify record.json``: check a game record with the engine alone.

Prints ``ok`` and exits 0 when the record is the game its seed and actions make; else
prints each difference (naming the round, action, card or score) and exits 1. ``-`` reads
the record from standard input; exit 2 is a file that is not a record at all.
"""

from __future__ import annotations

import argparse
import json
import sys

from .check import verify


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m service.verify",
        description="Re-deal a Three-Thirteen game record from its seed, replay every action "
                    "and confirm every score and the winners.")
    parser.add_argument("record", help="the record's JSON file (GET /v1/games/{id}/record), "
                                       "or - for standard input")
    args = parser.parse_args(argv)
    try:
        if args.record == "-":
            record = json.load(sys.stdin)
        else:
            with open(args.record, encoding="utf-8") as f:
                record = json.load(f)
    except (OSError, ValueError) as exc:
        print(f"cannot read {args.record}: {exc}", file=sys.stderr)
        return 2
    if not isinstance(record, dict):
        print(f"{args.record} is not a record (a JSON object)", file=sys.stderr)
        return 2
    differences = verify(record)
    for line in differences:
        print(line)
    if differences:
        return 1
    print(f"ok: game {record.get('game_id')}, {record.get('versions')} actions, "
          f"{len(record.get('rounds', []))} rounds, winners {record.get('winners')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
