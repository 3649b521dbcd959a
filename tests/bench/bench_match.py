"""``make bench-match``: bot-vs-bot tournament throughput over HTTP.

Starts Redis and a 2-worker gunicorn (``service.match.local``), then measures in
the same run:

0. **The API benchmark's compare-and-set floors** (``make bench-api``'s bare Flask +
   Redis Lua compare-and-set on 6 KB of JSON, 2 sync workers, loaded by wrk; with the
   standard ``json``, the yardstick of the target, tournament actions/s ≥ 0.8 × it,
   and with orjson for comparison).
1. **Product action floor** (what the API can do at best for moves): clients that hold every
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

4. **Server-side bot seats:** the same games with every seat a bot seat
   (``{"bot": "greedy"}``): one request creates each game and the service plays it to
   the end by itself (``service/play/autoplay.py``); a spectator's ``wait=turn``
   long-poll waits for the end. games/min and moves/s, next to the HTTP bots' rows.

Why the tournament trails the floors: a bot waits for its turn with one
``?wait=turn`` long-poll per turn (about 1.5 requests per action: draw, discard,
and one wait per two actions), and every move still wakes the other seats'
waits inside the server, which re-read the game; a full action also runs the
engine, the going-out test and the view, which the bare compare-and-set does
not; and the bots (greedy ones run the solver on every decision) share the
machine's two cores with the server. The table prints the CPU per action of
each part so the gap can be read off.

Bots run in this process (threads); on a small machine they share the CPU with
the server, which the numbers include.
"""

from __future__ import annotations

import argparse
import os
import statistics
import threading
import time
import uuid
from typing import Any

from service.client import Client, ClientStats
from service.match.local import local_service
from service.match.runner import run_match
from tests.bench.procs import percentile, tree_cpu_seconds


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
    lat = sorted(stats.action_seconds)
    return {"actions_per_s": stats.actions / elapsed, "p50_ms": 1000 * percentile(lat, 0.5),
            "p99_ms": 1000 * percentile(lat, 0.99)}


def cas_floors(redis_url: str) -> tuple[float, float]:
    """``make bench-api``'s compare-and-set floors (bare Flask with the standard ``json``,
    and with orjson), measured now: its floor app under gunicorn (2 sync workers) on the
    tournament's Redis, loaded by wrk."""
    from tests.bench.bench_api import CAS_JSON_LUA, CAS_LUA, ensure_wrk, run_wrk, serve
    from tests.conftest import free_port

    wrk = ensure_wrk()
    port = free_port()
    env = {**os.environ, "REDIS_URL": redis_url}
    proc = serve("tests.bench.floor_app:create_app()", port, env)
    try:
        base = f"http://127.0.0.1:{port}"
        return (run_wrk(wrk, f"{base}/cas-json", CAS_JSON_LUA, 4, 4, env)[0],
                run_wrk(wrk, f"{base}/cas", CAS_LUA, 4, 4, env)[0])
    finally:
        proc.terminate()
        proc.wait(10)


def tournament(url: str, games: int, concurrency: int, players: int = 4,
               server_pid: int = 0, redis_pid: int = 0) -> dict[str, float]:
    stats = ClientStats()
    cpu0 = (time.process_time(), tree_cpu_seconds(server_pid), tree_cpu_seconds(redis_pid))
    result = run_match(url, ["greedy"], games, players=players, concurrency=concurrency,
                       seed="bench", stats=stats)
    wall = result.wall_seconds
    lat = sorted(stats.action_seconds)
    actions = max(1, stats.actions)
    bots_ms = 1000 * (time.process_time() - cpu0[0]) / actions
    server_ms = 1000 * (tree_cpu_seconds(server_pid) - cpu0[1]) / actions
    redis_ms = 1000 * (tree_cpu_seconds(redis_pid) - cpu0[2]) / actions
    return {
        "bots_ms": bots_ms,
        "server_ms": server_ms,
        "redis_ms": redis_ms,
        "games": games,
        "wall_s": wall,
        "games_per_min": 60 * games / wall,
        "actions_per_s": stats.actions / wall,
        "p50_ms": 1000 * percentile(lat, 0.5),
        "p99_ms": 1000 * percentile(lat, 0.99),
        "mean_game_s": statistics.mean(g.seconds for g in result.games),
        "requests_per_action": stats.requests / max(1, stats.actions),
    }


def server_bots(url: str, games: int, concurrency: int, players: int = 4,
                bot: str = "greedy", server_pid: int = 0,
                redis_pid: int = 0) -> dict[str, float]:
    """``games`` games of ``players`` server-side ``bot`` seats, ``concurrency`` at once:
    each is one creation request, then a spectator long-polls until it is finished."""
    stats = ClientStats()
    pending = list(range(games))
    lock = threading.Lock()
    moves: list[int] = []
    seconds: list[float] = []

    def runner() -> None:
        client = Client(url, stats=stats)
        while True:
            with lock:
                if not pending:
                    break
                i = pending.pop()
            started = time.perf_counter()
            body = {"players": [{"bot": bot}] * players, "seed": f"server-bots-{i}"}
            game = client.request("POST", "/v1/games", body=body, kind="create").body
            view = game["state"]
            while view["status"] != "finished":
                view = client.request("GET", f"/v1/games/{game['game_id']}",
                                      query={"wait": "turn", "timeout": 30}, timeout=40,
                                      kind="poll").body
            with lock:
                moves.append(view["version"])
                seconds.append(time.perf_counter() - started)
        client.close()

    cpu0 = (tree_cpu_seconds(server_pid), tree_cpu_seconds(redis_pid))
    threads = [threading.Thread(target=runner) for _ in range(concurrency)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    total = max(1, sum(moves))
    return {"games": games, "wall_s": wall, "games_per_min": 60 * games / wall,
            "actions_per_s": total / wall, "mean_game_s": statistics.mean(seconds),
            "server_ms": 1000 * (tree_cpu_seconds(server_pid) - cpu0[0]) / total,
            "redis_ms": 1000 * (tree_cpu_seconds(redis_pid) - cpu0[1]) / total}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=32)
    p.add_argument("--concurrency", type=int, default=16)  # 16 games at once: 64 waiting bots
    p.add_argument("--floor-games", type=int, default=4)
    p.add_argument("--floor-seconds", type=float, default=5.0)
    p.add_argument("--url", help="an already running service (default: start one)")
    p.add_argument("--redis-url", help="with --url: its Redis, for the compare-and-set floor")
    args = p.parse_args()

    def run(url: str, redis_url: str | None, server_pid: int = 0, redis_pid: int = 0) -> None:
        run_match(url, ["greedy"], 1, players=4, seed="warm")  # warm the workers
        cas, cas_orjson = cas_floors(redis_url) if redis_url else (float("nan"),) * 2
        fl = floor(url, args.floor_games, args.floor_seconds)
        single = tournament(url, 1, 1)
        pids = {"server_pid": server_pid, "redis_pid": redis_pid}
        tour = tournament(url, args.games, args.concurrency, **pids)
        duel = tournament(url, args.games, args.concurrency, players=2, **pids)
        seated = server_bots(url, args.games, args.concurrency, **pids)
        seated_duel = server_bots(url, args.games, args.concurrency, players=2, **pids)
        print("bench-match (2 gunicorn workers, bots in this process)")
        print(f"{'':36} {'actions/s':>10} {'p50 ms':>7} {'p99 ms':>7} {'req/act':>8} "
              f"{'CPU ms per action: server':>26} {'bots':>5} {'redis':>6}")
        print(f"{'API floor: bare CAS 6 KB, json':36} {cas:>10.0f}")
        print(f"{'API floor: bare CAS 6 KB, orjson':36} {cas_orjson:>10.0f}")
        print(f"{'product actions back to back':36} "
              f"{fl['actions_per_s']:>10.0f} {fl['p50_ms']:>7.1f} {fl['p99_ms']:>7.1f}")
        print(f"{'one 4-player greedy game':36} {single['actions_per_s']:>10.0f} "
              f"{single['p50_ms']:>7.1f} {single['p99_ms']:>7.1f}")
        for label, row in ((f"{tour['games']} 4-player games, {args.concurrency} at once", tour),
                           (f"{duel['games']} 2-player games, {args.concurrency} at once", duel)):
            print(f"{label:36} {row['actions_per_s']:>10.0f} {row['p50_ms']:>7.1f} "
                  f"{row['p99_ms']:>7.1f} {row['requests_per_action']:>8.2f} "
                  f"{row['server_ms']:>26.2f} {row['bots_ms']:>5.2f} {row['redis_ms']:>6.2f}")
        for label, row in (
                (f"{seated['games']} 4-player bot-seat games, {args.concurrency} at once",
                 seated),
                (f"{seated_duel['games']} 2-player bot-seat games, {args.concurrency} at once",
                 seated_duel)):
            print(f"{label:36} {row['actions_per_s']:>10.0f} {'':>7} {'':>7} {'':>8} "
                  f"{row['server_ms']:>26.2f} {'-':>5} {row['redis_ms']:>6.2f}")
        print()
        print(f"one full 4-player 11-round greedy game: {single['wall_s']:.2f} s wall "
              "(target < 2 s)")
        print(f"4-player tournament: {tour['games_per_min']:.1f} games/min, "
              f"{tour['actions_per_s']:.0f} actions/s = "
              f"{tour['actions_per_s'] / cas:.2f} x the API's CAS floor (target >= 0.8; "
              f"{tour['actions_per_s'] / cas_orjson:.2f} x its orjson variant), "
              f"{tour['actions_per_s'] / fl['actions_per_s']:.2f} x the product's own action "
              f"rate, mean game {tour['mean_game_s']:.2f} s")
        print(f"2-player tournament: {duel['games_per_min']:.1f} games/min, "
              f"{duel['actions_per_s'] / cas:.2f} x the API's CAS floor, "
              f"{duel['actions_per_s'] / fl['actions_per_s']:.2f} x the product's action rate")
        for players, row, http in ((4, seated, tour), (2, seated_duel, duel)):
            print(f"{players}-player games of server-side bot seats (greedy): "
                  f"{row['games_per_min']:.1f} games/min ({http['games_per_min']:.1f} with "
                  f"HTTP bots), {row['actions_per_s']:.0f} moves/s, mean game "
                  f"{row['mean_game_s']:.2f} s")

    if args.url:
        run(args.url, args.redis_url)
    else:
        with local_service(workers=2) as service:
            run(service.url, service.redis_url, service.server_pid, service.redis_pid)


if __name__ == "__main__":
    main()
