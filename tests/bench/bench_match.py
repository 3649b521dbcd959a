"""``make bench-match``: bot-vs-bot tournament throughput over HTTP.

Starts Redis and a 2-worker gunicorn (``service.match.local``), then measures in
the same run:

1. **Floor** (what the API can do at best for moves): clients that hold every
   seat's token of their game post actions back to back (``If-Match`` +
   ``Idempotency-Key``, draw from the stock then discard the first card, the next
   seat read from the response), ``--floor-games`` games at once. No waiting,
   no thinking: the compare-and-set action rate.
2. **One game:** a full 4-player, 11-round game between greedy bots, alone
   (target: under 2 s).
3. **Tournament:** ``--games`` 4-player greedy games, ``--concurrency`` at once,
   each bot an independent client that claims its seat and long-polls: games/min,
   actions/s, p50/p99 action latency, and actions/s as a share of the floor
   (target: at least 0.8); then the same with 2-player games.

Why the tournament trails the floor: every move wakes every waiting seat's
long-poll (the API has no "wait for my turn"), so a 4-player game makes about
four requests per move, a 2-player game about two.

Bots run in this process (threads); on a small machine they share the CPU with
the server, which the numbers include.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
import uuid
from typing import Any

from service.client import Client, ClientStats
from service.match.local import local_service
from service.match.runner import run_match


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def floor(url: str, games: int, seconds: float) -> dict[str, float]:
    """Back-to-back actions on ``games`` games at once for ``seconds``."""
    stats = ClientStats()
    stop = time.monotonic() + seconds

    def driver(i: int) -> None:
        client = Client(url, stats=stats)
        game = client.create_game(["a", "b", "c", "d"], seed=f"floor-{i}")
        tokens = [s["token"] for s in game.seats]
        view: dict[str, Any] = dict(game.state)
        while time.monotonic() < stop:
            rnd = view["round"]
            seat = rnd["current_seat"]
            if rnd["phase"] in ("draw", "final_draw"):
                action: dict[str, Any] = {"type": "draw", "source": "stock"}
            else:
                action = {"type": "discard", "card": view["you"]["hand"][0]}
            view = client.request(
                "POST", f"/v1/games/{game.game_id}/actions", body=action, token=tokens[seat],
                headers={"If-Match": f'"{view["version"]}"', "Idempotency-Key": uuid.uuid4().hex},
                kind="act",
            ).body
        client.close()

    threads = [threading.Thread(target=driver, args=(i,)) for i in range(games)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    lat = stats.action_seconds
    return {"actions_per_s": stats.actions / elapsed, "p50_ms": 1000 * _percentile(lat, 0.5),
            "p99_ms": 1000 * _percentile(lat, 0.99)}


def tournament(url: str, games: int, concurrency: int, players: int = 4) -> dict[str, float]:
    stats = ClientStats()
    result = run_match(url, ["greedy"], games, players=players, concurrency=concurrency,
                       seed="bench", stats=stats)
    wall = result.wall_seconds
    lat = stats.action_seconds
    return {
        "games": games,
        "wall_s": wall,
        "games_per_min": 60 * games / wall,
        "actions_per_s": stats.actions / wall,
        "p50_ms": 1000 * _percentile(lat, 0.5),
        "p99_ms": 1000 * _percentile(lat, 0.99),
        "mean_game_s": statistics.mean(g.seconds for g in result.games),
        "requests_per_action": stats.requests / max(1, stats.actions),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=16)
    p.add_argument("--concurrency", type=int, default=4)
    p.add_argument("--floor-games", type=int, default=4)
    p.add_argument("--floor-seconds", type=float, default=5.0)
    p.add_argument("--url", help="an already running service (default: start one)")
    args = p.parse_args()

    def run(url: str) -> None:
        run_match(url, ["greedy"], 1, players=4, seed="warm")  # warm the workers
        fl = floor(url, args.floor_games, args.floor_seconds)
        single = tournament(url, 1, 1)
        tour = tournament(url, args.games, args.concurrency)
        duel = tournament(url, args.games, args.concurrency, players=2)
        print("bench-match (2 gunicorn workers, bots in this process)")
        print(f"{'':34} {'actions/s':>10} {'p50 ms':>8} {'p99 ms':>8}")
        print(f"{'floor: CAS actions, ' + str(args.floor_games) + ' games':34} "
              f"{fl['actions_per_s']:>10.0f} {fl['p50_ms']:>8.1f} {fl['p99_ms']:>8.1f}")
        print(f"{'one 4-player greedy game':34} {single['actions_per_s']:>10.0f} "
              f"{single['p50_ms']:>8.1f} {single['p99_ms']:>8.1f}")
        label = f"{tour['games']} games, {args.concurrency} at once"
        print(f"{'tournament: ' + label:34} {tour['actions_per_s']:>10.0f} "
              f"{tour['p50_ms']:>8.1f} {tour['p99_ms']:>8.1f}")
        label = f"{duel['games']} 2-player games, {args.concurrency} at once"
        print(f"{label:34} {duel['actions_per_s']:>10.0f} "
              f"{duel['p50_ms']:>8.1f} {duel['p99_ms']:>8.1f}")
        print()
        print(f"one full 4-player 11-round greedy game: {single['wall_s']:.2f} s wall "
              "(target < 2 s)")
        print(f"tournament: {tour['games_per_min']:.1f} games/min, "
              f"{tour['actions_per_s']:.0f} actions/s = "
              f"{tour['actions_per_s'] / fl['actions_per_s']:.2f} x the floor (target >= 0.8), "
              f"mean game {tour['mean_game_s']:.2f} s, "
              f"{tour['requests_per_action']:.1f} requests per action")
        print(f"2-player tournament: {duel['games_per_min']:.1f} games/min, "
              f"{duel['actions_per_s'] / fl['actions_per_s']:.2f} x the floor, "
              f"{duel['requests_per_action']:.1f} requests per action")

    if args.url:
        run(args.url)
    else:
        with local_service(workers=2) as service:
            run(service.url)


if __name__ == "__main__":
    main()
