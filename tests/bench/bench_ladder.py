"""``make bench-ladder``: the bot ladder settles new bots where their strength is.

Starts Redis, a 2-worker gunicorn and 2 move workers (``service.match.local``; the move
workers pair the ladder, play the reference bots' seats and apply the ratings), then two
new bot accounts that are copies of ``greedy`` and ``strong`` under other names, each
run by ``python -m service.bots`` over HTTP (a bot author's process), join the classic
ladder (tables of 2 to 4, ``--at-once`` games each). The reference bots are the ladder's
permanent members with fixed ratings. It waits until ``--games`` ladder games have
ended and been rated, then prints every member's rating and checks what the issue asks:

* the order by rating matches the known strength order, ``random`` < ``greedy`` =
  its copy < ``strong`` = its copy (Kendall's tau over the pairs of distinct strength: 1);
* each copy within one deviation of its original's fixed rating;
* every deviation below the provisional bound (110);

and the games per minute. The two copies share the machine's two cores with the server.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
import time
from typing import Any

import requests

from service.match.local import local_service
from service.play.ratings import PROVISIONAL_DEVIATION
from tests.conftest import ROOT

#: The copies and the reference bot each one copies.
COPIES = {"greedy_copy": "greedy", "strong_copy": "strong"}
#: The strength order the ratings must reproduce (equal numbers: equal strength).
STRENGTH = {"random": 0, "greedy": 1, "greedy_copy": 1, "strong": 2, "strong_copy": 2}


def kendall_tau(ratings: dict[str, float]) -> float:
    """Kendall's tau between the ratings and :data:`STRENGTH` over pairs of distinct
    strength (ties of strength are not ranked)."""
    agree = disagree = 0
    for a, b in itertools.combinations(STRENGTH, 2):
        if STRENGTH[a] == STRENGTH[b]:
            continue
        same = (STRENGTH[a] - STRENGTH[b]) * (ratings[a] - ratings[b])
        agree, disagree = agree + (same > 0), disagree + (same < 0)
    return (agree - disagree) / (agree + disagree)


def rated_games(url: str) -> set[str]:
    """The ladder games rated so far: those in either copy's history (every ladder table
    seats at least one member that is not a reference bot)."""
    found: set[str] = set()
    for handle in COPIES:
        start: int | None = 0
        while start is not None:
            page = requests.get(f"{url}/v1/accounts/{handle}/ratings/classic",
                                params={"start": start, "limit": 500}, timeout=10).json()
            found |= {p["game_id"] for p in page["history"]}
            start = page["next_start"]
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--at-once", type=int, default=4)
    args = parser.parse_args()
    # the move workers at the web workers' priority (make run's lower it): here they play
    # the anchors' seats the ladder's pace waits on, on a machine shared with the copies
    with local_service(2, movers=2, env_extra={"WORKER_NICE": "0"}) as service:
        url, runners = service.url, []
        try:
            for handle, bot in COPIES.items():
                made = requests.post(f"{url}/v1/accounts", json={"handle": handle, "bot": True},
                                     timeout=10).json()
                auth = {"Authorization": f"Bearer {made['key']}"}
                joined = requests.put(f"{url}/v1/me/ladder/classic", headers=auth, timeout=10,
                                      json={"min_players": 2, "max_players": 4,
                                            "games_at_once": args.at_once})
                assert joined.status_code == 200, joined.text
                runners.append(subprocess.Popen(
                    [sys.executable, "-m", "service.bots", "--url", url, "--bot", bot],
                    cwd=ROOT, env={**os.environ, "THREE_THIRTEEN_KEY": made["key"]},
                    stderr=subprocess.DEVNULL))
            began = time.monotonic()
            done = 0
            while done < args.games:
                time.sleep(10)
                done = len(rated_games(url))
                minutes = (time.monotonic() - began) / 60
                print(f"  {done} ladder games rated in {minutes:.1f} min", flush=True)
            minutes = (time.monotonic() - began) / 60
            report(url, done, minutes)
        finally:
            for runner in runners:
                runner.terminate()
                runner.wait(10)


def report(url: str, games: int, minutes: float) -> None:
    members: dict[str, dict[str, Any]] = {}
    for handle in STRENGTH:
        members[handle] = requests.get(f"{url}/v1/accounts/{handle}", timeout=10).json()[
            "ratings"]["classic"]
    print(f"\nbench-ladder: {games} rated classic ladder games of 2-4 seats in {minutes:.1f} "
          f"min ({games / minutes:.1f} games/min), 2 web workers, 2 move workers\n")
    print(f"{'member':<14}{'copy of':<10}{'rating':>8}{'deviation':>11}{'games':>7}"
          f"{'provisional':>13}")
    for handle, r in sorted(members.items(), key=lambda m: -m[1]["rating"]):
        print(f"{handle:<14}{COPIES.get(handle, '(anchor)' if handle not in COPIES else ''):<10}"
              f"{r['rating']:>8.1f}{r['deviation']:>11.1f}{r['games']:>7}"
              f"{str(r['provisional']).lower():>13}")
    tau = kendall_tau({h: r["rating"] for h, r in members.items()})
    print(f"\nKendall tau over distinct strengths: {tau:.2f}  {'ok' if tau == 1 else 'MISS'} "
          "(target 1)")
    for copy, original in COPIES.items():
        gap = abs(members[copy]["rating"] - members[original]["rating"])
        within = gap <= members[copy]["deviation"]
        print(f"{copy} - {original}: {gap:.1f} points, deviation "
              f"{members[copy]['deviation']:.1f}  {'ok' if within else 'MISS'} "
              "(within one deviation)")
    worst = max(members[c]["deviation"] for c in COPIES)
    print(f"largest deviation {worst:.1f}  "
          f"{'ok' if worst < PROVISIONAL_DEVIATION else 'MISS'} (below {PROVISIONAL_DEVIATION:.0f})")


if __name__ == "__main__":
    main()
