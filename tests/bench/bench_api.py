"""API benchmark (``make bench-api``): req/s and latency of the product against two floors.

Not a test: it starts a redis-server, the harness's floor app and the product, each
under gunicorn with 2 *sync* workers, loads them with ``wrk`` (installed with apt
when missing) one endpoint at a time, prints a table and exits 0.

The machine is shared and noisy, so every endpoint is measured in several rounds
(3 by default), each round running all endpoints one after another on fresh games.
The table gives each endpoint's median req/s and latencies over the rounds, and the
median of its per-round ratio to its floor: a floor and a product endpoint measured
seconds apart in the same round share the machine's state of the moment.

Endpoints, all in one run:

* ``hello``: a bare Flask endpoint (floor for reads),
* ``cas``: bare Flask + Redis: read a 6 KB JSON value, bump it, write it back with a
  Lua compare-and-set, return it (floor for writes), twice: with the standard
  library's ``json`` as a bare Flask app has it (the target's yardstick) and with
  orjson (shown for comparison: the stricter floor),
* ``GET view``: ``GET /v1/games/{id}`` with a seat token,
* ``action POST``: ``POST /v1/games/{id}/actions``, every request a legal move
  (each wrk thread plays its own game, taking the next move from the last reply; a
  13-card round, so each reply after a draw carries the 14-card going-out analysis),
* ``solve``: ``POST /v1/solve`` on random 14-card hands with a random wild rank.

Usage: ``python -m tests.bench.bench_api [seconds per endpoint and round] [rounds]``
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

from tests.conftest import ROOT, free_port, redis_binary

SECONDS = 6  # per endpoint (and round)
ROUNDS = 3
GUNICORN = str(Path(sys.prefix) / "bin" / "gunicorn")

ACTION_LUA = r"""
local threads = {}
local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end
function init(args)
  local games = {}
  for line in io.lines(os.getenv("BENCH_GAMES")) do table.insert(games, line) end
  local gid, a, b, first = games[id]:match("(%S+) (%S+) (%S+) (%d)")
  game, tokens, seat, step, card = gid, {a, b}, tonumber(first), 0, nil
end
function request()
  local body
  if step == 0 then body = '{"type":"draw","source":"stock"}'
  else body = '{"type":"discard","card":"' .. card .. '"}' end
  return wrk.format("POST", "/v1/games/" .. game .. "/actions",
    {["Authorization"] = "Bearer " .. tokens[seat + 1],
     ["Content-Type"] = "application/json"}, body)
end
function response(status, headers, body)
  if status ~= 200 then errors = (errors or 0) + 1; return end
  if step == 0 then
    card = body:match('"type":"discard","card":"(%w%w)"'); step = 1
  else
    step = 0; seat = 1 - seat
  end
end
"""

SOLVE_LUA = r"""
local ranks = {"A","2","3","4","5","6","7","8","9","T","J","Q","K"}
local suits = {"S","H","D","C"}
math.randomseed(os.time() + (id or 0))
function request()
  local cards = {}
  for i = 1, 14 do
    cards[i] = '"' .. ranks[math.random(13)] .. suits[math.random(4)] .. '"'
  end
  local body = '{"hand":[' .. table.concat(cards, ",") .. '],"wild_rank":"' ..
    ranks[math.random(13)] .. '"}'
  return wrk.format("POST", "/v1/solve", {["Content-Type"] = "application/json"}, body)
end
"""

CAS_LUA = r"""
local counter = 0
function setup(thread) counter = counter + 1; thread:set("id", counter) end
function request() return wrk.format("POST", "/cas/" .. id) end
"""
CAS_JSON_LUA = CAS_LUA.replace('"/cas/"', '"/cas-json/"')


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    print("installing wrk with apt …", file=sys.stderr)
    subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=False,
                   stdout=subprocess.DEVNULL)
    found = shutil.which("wrk")
    if not found:
        sys.exit("wrk is needed: apt-get install wrk")
    return found


def serve(app: str, port: int, env: dict[str, str]) -> subprocess.Popen:
    proc = subprocess.Popen(
        [GUNICORN, "-k", "sync", "-w", "2", "-b", f"127.0.0.1:{port}", "--log-level",
         "warning", app], cwd=ROOT, env=env)
    for _ in range(100):
        try:
            requests.get(f"http://127.0.0.1:{port}/healthz" if "service" in app
                         else f"http://127.0.0.1:{port}/hello", timeout=1)
            return proc
        except (requests.ConnectionError, requests.Timeout):  # not up yet, or still booting
            time.sleep(0.1)
    raise RuntimeError(f"{app} did not start")


def _ms(text: str) -> float:
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", text).groups()  # type: ignore[union-attr]
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def run_wrk(wrk: str, url: str, script: str | None, threads: int, conns: int,
            env: dict[str, str], seconds: int = SECONDS) -> tuple[float, float, float, int]:
    cmd = [wrk, f"-t{threads}", f"-c{conns}", f"-d{seconds}s", "--latency", url]
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as f:
        f.write(script or "")
    if script:
        cmd[1:1] = ["-s", f.name]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = _ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))  # type: ignore[union-attr]
    bad = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    return rps, p50, p99, int(bad.group(1)) if bad else 0


def create_games(base: str, n: int) -> str:
    lines = []
    for i in range(n):
        r = requests.post(f"{base}/v1/games", json={
            "players": [{"name": "a"}, {"name": "b"}],
            "rules": {"preset": "classic", "hand_sizes": [13]}, "seed": f"bench-{i}"})
        body = r.json()
        tokens = [s["token"] for s in body["seats"]]
        lines.append(f"{body['game_id']} {tokens[0]} {tokens[1]} "
                     f"{body['state']['round']['current_seat']}")
    path = Path(tempfile.mkstemp(suffix=".txt")[1])
    path.write_text("\n".join(lines) + "\n")
    return str(path)


FLOORS = ("hello", "cas 6 KB json", "cas 6 KB orjson")
#: Each product endpoint's floor, and its guard rail where it has one (docs/performance.md).
TARGETS = {"GET view": ("hello", None), "action POST": ("cas 6 KB json", 0.7),
           "solve 14 cards": ("hello", None)}


def main() -> None:
    args = [a for a in sys.argv[1:] if a.isdigit()]
    seconds = int(args[0]) if args else SECONDS
    rounds = int(args[1]) if len(args) > 1 else ROUNDS
    wrk = ensure_wrk()
    redis_port, floor_port, api_port = free_port(), free_port(), free_port()
    redis_proc = subprocess.Popen(
        [redis_binary(), "--port", str(redis_port), "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL)
    env = {**os.environ, "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0", "ACCESS_LOG": "",
           "RATE_LIMIT": "off", "RATE_LIMIT_PER_ADDRESS": "off",
           "CREATION_LIMIT_PER_ADDRESS": "off"}  # wrk is one address
    procs = [redis_proc]
    runs: dict[str, list[tuple[float, float, float, int]]] = {}
    try:
        time.sleep(0.5)
        procs.append(serve("tests.bench.floor_app:create_app()", floor_port, env))
        procs.append(serve("service.app:create_app()", api_port, env))
        floor, api = f"http://127.0.0.1:{floor_port}", f"http://127.0.0.1:{api_port}"
        for _ in range(rounds):
            games = create_games(api, 4)  # fresh games: each wrk thread starts with a draw
            first = Path(games).read_text().split()
            view_lua = f'wrk.headers["Authorization"] = "Bearer {first[1]}"\n'
            wenv = {**os.environ, "BENCH_GAMES": games}
            endpoints = [
                ("hello", f"{floor}/hello", None, 2, 8),
                ("cas 6 KB json", f"{floor}/cas-json", CAS_JSON_LUA, 4, 4),
                ("cas 6 KB orjson", f"{floor}/cas", CAS_LUA, 4, 4),
                ("GET view", f"{api}/v1/games/{first[0]}", view_lua, 2, 8),
                ("action POST", api, ACTION_LUA, 4, 4),
                ("solve 14 cards", api, SOLVE_LUA, 2, 8),
            ]
            for name, url, script, threads, conns in endpoints:
                runs.setdefault(name, []).append(
                    run_wrk(wrk, url, script, threads, conns, wenv, seconds))
    finally:
        for p in reversed(procs):
            p.terminate()
            p.wait(10)
    print(f"\n2 sync gunicorn workers, wrk {seconds} s per endpoint, {rounds} rounds "
          f"(medians over the rounds)\n")
    print(f"{'endpoint':<18}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'non-2xx':>9}"
          f"  ratio to floor (guard rail), per round")
    for name, results in runs.items():
        rps, p50, p99 = (statistics.median(r[i] for r in results) for i in range(3))
        bad = sum(r[3] for r in results)
        ratio = "  (floor)" if name in FLOORS else ""
        if name in TARGETS:
            floor_name, target = TARGETS[name]
            per_round = [r[0] / f[0] for r, f in zip(results, runs[floor_name], strict=True)]
            rail = f" (≥ {target}x)" if target is not None else ""
            ratio = (f"  {statistics.median(per_round):.2f}x {floor_name}{rail}; "
                     + " ".join(f"{x:.2f}" for x in per_round))
            if name == "action POST":
                orjson_floor = [r[0] / f[0] for r, f in
                                zip(results, runs["cas 6 KB orjson"], strict=True)]
                ratio += f"; {statistics.median(orjson_floor):.2f}x cas orjson"
        print(f"{name:<18}{rps:>9.0f}{p50:>9.2f}{p99:>9.2f}{bad:>9}{ratio}")


if __name__ == "__main__":
    main()
