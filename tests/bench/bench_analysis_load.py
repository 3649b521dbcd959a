"""Analyses beside the web workers (``make bench-analysis-load``): the web workers' probe
latency while analyses run.

Starts Redis, a 2-worker gunicorn (no move worker: nothing here needs one) and
``--analysers`` analysis workers (``python -m service.workers --analysis``, at
``ANALYSIS_NICE`` as deployed: 19 unless the environment says otherwise), stores ``--games`` finished 2-seat games (played by
``greedy`` in this process), then probes ``GET /v1/rules/presets`` every ``--tick``
seconds: first quiet, then while the games' analyses, asked for over HTTP, run. Prints
the probes' median and p99 in both phases, their ratio, and how many analyses were done
and how long the last took to finish.

Why: an analysis is a minute of CPU, and the promise is that no web worker spends it
and that it does not slow the web workers either (the analysis workers run at the lowest
CPU priority). The machine is shared; compare the two phases of the same run. Two
analysis workers on two cores keep both busy: the harshest case.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import requests

from service import play
from service.config import Config
from service.match.local import ROOT, local_service
from service.play.commit import commit
from service.storage import redis_stores
from tests.play.finished_games import greedy_game

RULES = {"preset": "classic", "hand_sizes": [3, 5, 7, 9]}


def probe(url: str, seconds: float, tick: float) -> list[float]:
    session, out = requests.Session(), []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.perf_counter()
        assert session.get(f"{url}/v1/rules/presets", timeout=10).ok
        out.append((time.perf_counter() - started) * 1000)
        time.sleep(tick)
    return out


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=10)
    p.add_argument("--analysers", type=int, default=2)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--tick", type=float, default=0.02)
    args = p.parse_args()
    with local_service(workers=2, movers=0) as service:
        stores = redis_stores(Config(redis_url=service.redis_url))
        games = []
        for n in range(args.games):
            record, _ = play.create_game(stores, RULES, ["ann", "bob"], f"load-{n}")
            commit(stores, record.game_id, greedy_game)
            games.append(record.game_id)
        env = {**os.environ, "REDIS_URL": service.redis_url, "LOG_LEVEL": "warning"}
        analysers = [subprocess.Popen([sys.executable, "-m", "service.workers", "--analysis"],
                                      cwd=ROOT, env=env) for _ in range(args.analysers)]
        try:
            quiet = probe(service.url, args.seconds, args.tick)
            started = time.monotonic()
            for g in games:
                assert requests.post(f"{service.url}/v1/games/{g}/analysis").status_code == 202
            loaded = probe(service.url, args.seconds, args.tick)
            running = sum(stores.analyses.load(g).status == "running" for g in games)
            while not all(stores.analyses.load(g).status == "done" for g in games):
                time.sleep(0.5)
            took = time.monotonic() - started
        finally:
            for a in analysers:
                a.terminate()
                a.wait(10)
            stores.close()
    print(f"{args.games} analyses of 2-seat games {RULES['hand_sizes']} on {args.analysers} "
          f"analysis workers; GET /v1/rules/presets every {args.tick * 1000:.0f} ms")
    print(f"{'phase':<34} {'probes':>7} {'median ms':>10} {'p99 ms':>8}")
    for name, values in (("quiet", quiet), ("analyses running", loaded)):
        print(f"{name:<34} {len(values):>7} {statistics.median(values):>10.2f} "
              f"{p99(values):>8.2f}")
    print(f"p99 loaded / quiet: {p99(loaded) / p99(quiet):.2f} (analyses running at the "
          f"end of the loaded phase: {running}; all {args.games} done {took:.0f} s after "
          "they were asked for)")


if __name__ == "__main__":
    main()
