"""Every feature of the service checked across the shards of a Redis Cluster, over HTTP.

Shared by ``make bench-cluster`` (tests/bench/bench_cluster.py prints the rows as a table)
and tests/cluster/test_features_across_shards.py (asserts every row is ``ok``). Each
feature is one function from a :class:`Played` (the service's URL, a cluster client and
the games played on it) to a :class:`Row`, listed in :data:`FEATURES`; a feature the
running service does not offer (its path is not in the served OpenAPI document) gives a
row with ``ok=None`` saying so, so adding a feature is adding one function.

Why per shard: on a cluster each game lives on the one primary that owns its hash tag's
slot, so "works across the shards" means every row shows every primary serving it.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis
import requests

from service.client.http import ClientStats
from service.match.local import ROOT
from service.match.runner import GameResult, play_game
from tests.bench.procs import percentile
from tests.conftest import PATIENCE, free_port, scraped
from tests.faults.waiters import KINDS, Game, park

__all__ = ["FEATURES", "Played", "Row", "chi_square_sf", "play_games"]


@dataclass
class Played:
    """What the feature checks read: the service, the cluster, and the finished games."""

    base: str
    store: redis.RedisCluster
    games: list[GameResult]
    stats: ClientStats
    seconds: float
    paths: set[str] = field(default_factory=set)

    def shard_of(self, game_id: str) -> str:
        """The primary (``host:port``) that holds the game's keys."""
        return str(self.store.get_node_from_key(f"ttt:{{{game_id}}}:game").name)

    def primaries(self) -> list[str]:
        return sorted(n.name for n in self.store.get_primaries())


@dataclass
class Row:
    """One feature: whether it works on every shard (None: not offered), the figures."""

    feature: str
    ok: bool | None
    detail: str
    per_shard: dict[str, int] = field(default_factory=dict)


def play_games(base: str, store: redis.RedisCluster, count: int, rules: dict[str, Any],
               *, parallel: int = 8) -> Played:
    """Play ``count`` 2-player games of greedy bots as the project's client does (every
    seat its own client, ``If-Match`` and ``Idempotency-Key`` on every action), ``parallel``
    at a time; :func:`play_game` checks each result against its event log."""
    stats = ClientStats()
    started = time.perf_counter()

    def one(n: int) -> GameResult:
        return play_game(base, ["greedy", "greedy"], ["a", "b"], rules=rules,
                         seed=f"cluster-{n}", bot_seed=str(n), stats=stats)

    with ThreadPoolExecutor(parallel) as pool:
        games = list(pool.map(one, range(count)))
    document = requests.get(f"{base}/openapi.json", timeout=10).json()
    return Played(base, store, games, stats, time.perf_counter() - started,
                  set(document["paths"]))


def chi_square_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for a chi-square variable with ``df`` degrees of freedom (exact:
    the closed forms for whole and half-whole ``df / 2``), so no SciPy is needed."""
    half = statistic / 2
    if df % 2 == 0:
        return math.exp(-half) * sum(half**i / math.factorial(i) for i in range(df // 2))
    tail = math.erfc(math.sqrt(half))
    return tail + math.exp(-half) * sum(half ** (i - 0.5) / math.gamma(i + 0.5)
                                        for i in range(1, (df + 1) // 2))


def _slots_by_primary(store: redis.RedisCluster) -> dict[str, int]:
    owned: Counter[str] = Counter()
    for (first, last), nodes in store.cluster_slots().items():
        primary = nodes["primary"]
        owned[f"{primary[0]}:{primary[1]}"] += last - first + 1
    return dict(owned)


def spread(played: Played) -> Row:
    """Games per primary against its share of the 16384 slots: the chi-square test of
    "each game picks a slot uniformly" (it fails, p below 1e-4, one time in 10,000 when
    ids are uniform; a skew fails it every time), the max/min ratio of
    games per primary, and the keys each primary holds (``DBSIZE``)."""
    games = Counter(played.shard_of(g.game_id) for g in played.games)
    slots = _slots_by_primary(played.store)
    total = sum(games.values())
    expected = {node: total * owned / 16384 for node, owned in slots.items()}
    statistic = sum((games.get(node, 0) - e) ** 2 / e for node, e in expected.items())
    p = chi_square_sf(statistic, len(expected) - 1)
    ratio = max(games.values()) / max(1, min(games.get(n, 0) for n in expected))
    keys = {node.name: int(played.store.get_redis_connection(node).dbsize())
            for node in played.store.get_primaries()}
    detail = (f"{total} games; chi2={statistic:.2f} (df={len(expected) - 1}) p={p:.3f}; "
              f"max/min={ratio:.2f}; keys (DBSIZE) "
              f"{[keys[n] for n in played.primaries()]}")
    return Row("spread", set(games) == set(expected) and p > 1e-4, detail, dict(games))


def actions(played: Played) -> Row:
    """Every game played to its end on every primary (scores checked against the event
    log by the runner), with the action rate and latency the client saw."""
    by_shard = Counter(played.shard_of(g.game_id) for g in played.games)
    ordered = sorted(played.stats.action_seconds)
    count = sum(g.actions for g in played.games)
    done = all(g.winners for g in played.games)
    detail = (f"{count} actions in {played.seconds:.1f} s ({count / played.seconds:.0f}/s); "
              f"p50 {percentile(ordered, 0.5) * 1000:.1f} ms, "
              f"p99 {percentile(ordered, 0.99) * 1000:.1f} ms; retries {played.stats.retries}")
    return Row("actions", done and set(by_shard) == set(played.primaries()), detail,
               dict(by_shard))


def streams(played: Played, waiters_per_game: int = 8) -> Row:
    """A game on each primary, ``waiters_per_game`` waiters on each (NDJSON streams and
    the long-polls, in turn), one move per game: every waiter answered with its game's
    new version; the slowest wake-up after the moves."""
    games: dict[str, Game] = {}
    for i in range(200):
        game = Game.create(played.base, f"stream-{i}")
        games.setdefault(played.shard_of(game.game_id), game)
        if len(games) == len(played.primaries()):
            break
    waiters = {}
    for game in games.values():
        game.to_a_discard()
        waiters[game.game_id] = [list(KINDS.values())[i % len(KINDS)](game, 20)
                                 for i in range(waiters_per_game)]
    threads = park(played.base, [w for ws in waiters.values() for w in ws], 25)
    time.sleep(0.5)  # parked on the hub (the stream has sent its first view)
    moved_at = time.monotonic()
    after = {game.game_id: game.discard() for game in games.values()}
    for t in threads:
        t.join(PATIENCE)
    woken = {shard: sum(w.status == 200 and w.version == after[g.game_id]
                        for w in waiters[g.game_id]) for shard, g in games.items()}
    answered = [w.answered_at for ws in waiters.values() for w in ws if w.answered_at]
    slowest = (max(answered) - moved_at) * 1000 if answered else float("nan")
    ok = (set(games) == set(played.primaries())
          and all(n == waiters_per_game for n in woken.values()))
    return Row("streams", ok, f"{waiters_per_game} waiters ({', '.join(KINDS)}) on a game per "
               f"primary, woken by its move; slowest {slowest:.0f} ms", woken)


def _not_offered(feature: str, path: str) -> Row:
    return Row(feature, None, f"not on this build: the service has no {path}")


SEEKS = "/v1/seeks"


def seeks(played: Played, pairs: int = 12, most: int = 40) -> Row:
    """``pairs`` pairs of seekers with the same short rules (more, up to ``most``, until
    every primary has one of their games: 12 random games miss a shard of 3 one time in
    40), each pair matched into a new game (``POST /v1/seeks?timeout``: both answered
    with one game, each its own seat); the games spread over the primaries and each is
    playable by its seats."""
    if SEEKS not in played.paths:
        return _not_offered("seeks", SEEKS)
    rules = {"preset": "classic", "hand_sizes": [3]}
    answers: list[dict[str, Any]] = []
    lock = threading.Lock()

    def seek(n: int) -> None:
        r = requests.post(f"{played.base}{SEEKS}?timeout=15", timeout=30,
                          json={"rules": rules, "players": 2, "name": f"s{n}"})
        with lock:
            answers.append(r.json() if r.status_code in (200, 201) else {"error": r.text})

    def shards() -> set[str]:
        return {played.shard_of(a["game_id"]) for a in answers if a.get("status") == "matched"}

    for n in range(most):  # a pair at a time, so each pair meets itself
        threads = [threading.Thread(target=seek, args=(2 * n + i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(PATIENCE)
        if n + 1 >= pairs and shards() == set(played.primaries()):
            break
    pairs = len(answers) // 2
    matched: dict[str, set[int]] = {}
    for answer in answers:
        if answer.get("status") == "matched":
            matched.setdefault(answer["game_id"], set()).add(answer["seat"])
    by_shard = Counter(played.shard_of(g) for g in matched)
    playable = 0
    for answer in answers:
        if answer.get("status") == "matched":
            r = requests.get(f"{played.base}/v1/games/{answer['game_id']}", timeout=10,
                             headers={"Authorization": f"Bearer {answer['token']}"})
            playable += r.status_code == 200 and r.json()["you"]["seat"] == answer["seat"]
    ok = (len(matched) == pairs and all(s == {0, 1} for s in matched.values())
          and playable == 2 * pairs and set(by_shard) == set(played.primaries()))
    return Row("seeks", ok, f"{2 * pairs} seekers matched into {len(matched)} games; "
               f"{playable} seat tokens read their seat", dict(by_shard))


RECORD = "/v1/games/{game_id}/record"
RATINGS = "/v1/accounts/{handle}/ratings/{preset}"


def records(played: Played, per_shard: int = 3) -> Row:
    """``per_shard`` finished games on each primary: the record as JSON and as the text
    score sheet, and ``python -m service.verify`` accepting the JSON."""
    if RECORD not in played.paths:
        return _not_offered("records", RECORD)
    chosen: dict[str, list[str]] = {}
    for game in played.games:
        picked = chosen.setdefault(played.shard_of(game.game_id), [])
        if len(picked) < per_shard:
            picked.append(game.game_id)
    good: Counter[str] = Counter()
    sizes = []
    with tempfile.TemporaryDirectory() as tmp:
        for shard, ids in chosen.items():
            for game_id in ids:
                url = played.base + RECORD.format(game_id=game_id)
                as_json = requests.get(url, timeout=10)
                text = requests.get(url, timeout=10, headers={"Accept": "text/plain"})
                path = Path(tmp) / f"{game_id}.json"
                path.write_bytes(as_json.content)
                verified = subprocess.run([sys.executable, "-m", "service.verify", str(path)],
                                          capture_output=True, timeout=60, cwd=ROOT
                                          ).returncode == 0
                sizes.append(len(as_json.content))
                good[shard] += (as_json.status_code == 200 and text.status_code == 200
                                and text.headers["Content-Type"].startswith("text/plain")
                                and json.loads(as_json.content) is not None and verified)
    ok = (set(chosen) == set(played.primaries())
          and all(good[s] == len(ids) for s, ids in chosen.items()))
    mean = sum(sizes) / max(1, len(sizes))
    return Row("records", ok, f"{sum(good.values())}/{len(sizes)} records served (JSON "
               f"{mean:.0f} B on average, text) and verified", dict(good))


def movers(played: Played, games: int = 12, most: int = 40) -> Row:
    """Clocked games (1 s a turn) that nobody plays or reads, finished by two more move
    workers (``python -m service.workers``) on the cluster: the schedule is one key on
    one shard, the games on every shard (more than ``games``, up to ``most``, until each
    has one). Read from Redis (a game's record is written by the save that finishes it)."""
    node = played.store.get_default_node()
    url = f"redis+cluster://{node.host}:{node.port}"
    ids: list[str] = []
    while len(ids) < most and (len(ids) < games or {
            played.shard_of(g) for g in ids} != set(played.primaries())):
        r = requests.post(f"{played.base}/v1/games", timeout=10, json={
            "players": [{"name": "a"}, {"name": "b"}], "rules": {"hand_sizes": [3]},
            "seed": f"clocked-{len(ids)}", "turn_seconds": 1})
        ids.append(r.json()["game_id"])
    games = len(ids)
    ports = [free_port(), free_port()]
    procs = [subprocess.Popen([sys.executable, "-m", "service.workers",
                               "--metrics-port", str(port)],
                              cwd=ROOT, env={**os.environ, "REDIS_URL": url,
                                             "LOG_LEVEL": "warning"})
             for port in ports]
    started = time.monotonic()
    finished: Counter[str] = Counter()
    try:
        pending = set(ids)
        while pending and time.monotonic() - started < 60:
            for game_id in list(pending):
                if played.store.exists(f"ttt:{{{game_id}}}:record"):  # saved as it finished
                    pending.discard(game_id)
                    finished[played.shard_of(game_id)] += 1
            time.sleep(0.2)
        seconds = time.monotonic() - started
        # their metrics read the schedule's one key on its shard once a second:
        # nothing due once the games are over (a finished game's entry goes at the
        # worker's next visit of it; on a loaded machine that took more than 5 s once)
        settled = time.monotonic() + PATIENCE
        while (due := max(scraped(f"http://127.0.0.1:{p}/metrics", "ttt_worker_due_games")
                          for p in ports)) != 0 and time.monotonic() < settled:
            time.sleep(0.2)
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(PATIENCE)
    ok = (sum(finished.values()) == games and set(finished) == set(played.primaries())
          and due == 0)
    return Row("movers", ok, f"{sum(finished.values())}/{games} clocked games nobody "
               f"played finished by the move workers in {seconds:.1f} s, {due:.0f} overdue",
               dict(finished))


def ratings(played: Played, per_shard: int = 2) -> Row:
    """Rated games between accounts on different shards (``per_shard`` accounts on each
    primary, each playing the next one round the ring), ended by a resignation, rated by
    the service's move worker (its rating thread): every account's profile counts its
    games and its history holds one point each, whichever shards its opponents are on."""
    if RATINGS not in played.paths:
        return _not_offered("ratings", RATINGS)
    keys: dict[str, str] = {}
    by_shard: Counter[str] = Counter()
    n = 0
    while len(by_shard) < len(played.primaries()) or min(by_shard.values()) < per_shard:
        handle = f"rater{n}"
        n += 1
        shard = str(played.store.get_node_from_key(f"ttt:{{acct:{handle}}}:account").name)
        if by_shard[shard] >= per_shard:
            continue
        made = requests.post(f"{played.base}/v1/accounts", timeout=10,
                             json={"handle": handle, "bot": False}).json()
        keys[handle] = made["key"]
        by_shard[shard] += 1
    handles = sorted(keys, key=lambda h: str(played.store.get_node_from_key(
        f"ttt:{{acct:{h}}}:account").name))  # neighbours round the ring: other shards
    auth = {h: {"Authorization": f"Bearer {k}"} for h, k in keys.items()}
    expected: Counter[str] = Counter()
    for one, other in zip(handles, handles[1:] + handles[:1], strict=True):
        made = requests.post(f"{played.base}/v1/challenges", headers=auth[one], timeout=10,
                             json={"to": [other], "rules": {"preset": "classic"},
                                   "turn_seconds": 60, "rated": True}).json()
        game = requests.post(f"{played.base}/v1/challenges/{made['challenge_id']}/accept",
                             headers=auth[other], timeout=10).json()["game_id"]
        requests.post(f"{played.base}/v1/games/{game}/actions", headers=auth[other],
                      timeout=10, json={"type": "resign"}).raise_for_status()
        expected[one] += 1
        expected[other] += 1

    def rated() -> Counter[str]:
        counts: Counter[str] = Counter()
        for h in handles:
            shard = str(played.store.get_node_from_key(f"ttt:{{acct:{h}}}:account").name)
            page = requests.get(f"{played.base}/v1/accounts/{h}/ratings/classic",
                                timeout=10).json()
            counts[shard] += (page["rating"]["games"] == expected[h] == len(page["history"]))
        return counts

    deadline = time.monotonic() + PATIENCE
    while sum((done := rated()).values()) < len(handles) and time.monotonic() < deadline:
        time.sleep(0.3)
    ok = sum(done.values()) == len(handles)
    return Row("ratings", ok, f"{sum(done.values())}/{len(handles)} accounts rated for "
               f"{sum(expected.values()) // 2} rated games between shards", dict(done))


#: Every feature checked across the shards, in the table's order.
FEATURES: list[Callable[[Played], Row]] = [spread, actions, streams, seeks, records, movers,
                                           ratings]
