"""``python -m service.conformance --url URL [--no-writes]``: the summary table, and exit
status 1 when any check failed (2 on bad arguments)."""

from __future__ import annotations

import argparse
import sys
from functools import partial

from .contract import schemathesis_check
from .report import Check, format_table, run_checks
from .scenarios import scenario_checks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m service.conformance", description=__doc__)
    parser.add_argument("--url", required=True, help="the deployment's base URL")
    parser.add_argument("--no-writes", action="store_true",
                        help="only requests that create nothing (for production)")
    parser.add_argument("--skip", action="append", default=[], metavar="CHECK",
                        help="leave out the checks whose name starts with CHECK (repeatable)")
    parser.add_argument("--max-examples", type=int, default=20,
                        help="schemathesis examples per operation (default 20)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per request")
    args = parser.parse_args(argv)
    url = args.url.rstrip("/")
    checks = [*scenario_checks(url, args.timeout),
              Check("schemathesis", partial(schemathesis_check, url, writes=not args.no_writes,
                                            max_examples=args.max_examples), writes=False)]
    checks = [c for c in checks
              if (c.writes is False or not args.no_writes)
              and not any(c.name.startswith(skip) for skip in args.skip)]
    outcomes = run_checks(checks)
    print(format_table(outcomes))
    return 0 if all(o.passed for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
