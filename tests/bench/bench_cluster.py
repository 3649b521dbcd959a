"""``make bench-cluster``: the service on a local 3-shard Redis Cluster, every feature checked
across the shards.

Not a test: it starts three ``redis-server --cluster-enabled yes`` joined by the cluster
commands (``CLUSTER ADDSLOTS``, ``MEET``: tests/cluster/local.py) and the service under
gunicorn on it (``REDIS_URL=redis+cluster://…``, the deployed gunicorn.conf.py), plays ``--games`` 2-player
games of greedy bots as the project's client does (each seat its own client, ``If-Match``
and ``Idempotency-Key`` on every action; short rules unless ``--full``, so 300 games take
about a minute), then prints one row per feature of tests/cluster/features.py:
``spread`` (games per primary against its slot share: chi-square and max/min), ``actions``,
``streams`` (a game on each shard, its waiters woken by its move), ``seeks`` and
``records`` (shown as not on this build until the service has them), each with games per
primary. Exits 1 if any offered feature fails.

Usage: ``python -m tests.bench.bench_cluster [--games N] [--full] [--workers W]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from service.match.local import local_service
from tests.cluster.features import FEATURES, Row, play_games
from tests.cluster.local import cluster_client, local_cluster

SHORT_RULES = {"preset": "classic", "hand_sizes": [3, 4]}
FULL_RULES = {"preset": "classic"}


def table(rows: Sequence[Row], primaries: Sequence[str]) -> str:
    """The rows as a fixed-width table: feature, result, per-primary counts, figures."""
    status = {True: "ok", False: "FAIL", None: "n/a"}
    head = f"{'feature':<9} {'result':<6} " + " ".join(f"{p:>16}" for p in primaries)
    lines = [head, "-" * len(head)]
    for row in rows:
        counts = " ".join(f"{row.per_shard.get(p, '-'):>16}" for p in primaries)
        lines.append(f"{row.feature:<9} {status[row.ok]:<6} {counts}\n{'':<16}{row.detail}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--full", action="store_true", help="full classic games (11 rounds)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    parser.add_argument("--parallel", type=int, default=8, help="games played at once")
    args = parser.parse_args(argv)
    rules = FULL_RULES if args.full else SHORT_RULES
    with tempfile.TemporaryDirectory() as tmp, local_cluster(Path(tmp)) as cluster, \
            local_service(args.workers, redis_url=cluster.url) as service:
        store = cluster_client(cluster.url)
        played = play_games(service.url, store, args.games, rules, parallel=args.parallel)
        rows = [feature(played) for feature in FEATURES]
        print(f"{args.games} games ({'full classic' if args.full else 'classic, hands 3 and 4'})"
              f" on a 3-primary Redis Cluster, {args.workers} gunicorn workers; "
              "per primary: games (streams: waiters woken; records: records verified)")
        print(table(rows, played.primaries()))
    return 0 if all(row.ok is not False for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
