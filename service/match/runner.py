"""Play many bot-vs-bot games over HTTP and gather their results.

Each game is created with every seat open; then each bot, as its own
:class:`~service.client.Client` (its own connection, its own thread), claims its
seat and plays. So the runner exercises exactly what two independent bots on
different machines would: claiming, long-polling for turns, acting with
``If-Match``. Several games run at once (``concurrency``). Seats rotate from
game to game so no bot always sits first.

After a game the runner reads the public event log as a spectator and checks
the scores (see :func:`check_game`), so a match doubles as an end-to-end test.
"""

from __future__ import annotations

import importlib
import math
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from service.bots import Bot, make_bot
from service.client import Client, ClientStats, Event, GameView

__all__ = ["EntrantStats", "GameResult", "MatchResult", "build_bot", "check_game", "play_game",
           "run_match"]


@dataclass
class GameResult:
    """One finished game, per seat: who played it and how it went."""

    game_id: str
    entrants: list[str]  # label of the entrant in each seat
    totals: list[int]
    round_scores: list[list[int]]  # [seat][round]
    went_out: list[int | None]  # per round
    winners: list[int]
    actions: int
    seconds: float


@dataclass
class EntrantStats:
    label: str
    games: int = 0
    wins: float = 0.0
    totals: list[int] = field(default_factory=list)
    round_sums: list[float] = field(default_factory=list)
    round_counts: list[int] = field(default_factory=list)
    rounds_played: int = 0
    went_out: int = 0

    def as_dict(self) -> dict[str, Any]:
        n = len(self.totals)
        mean = sum(self.totals) / n if n else 0.0
        std = math.sqrt(sum((t - mean) ** 2 for t in self.totals) / (n - 1)) if n > 1 else 0.0
        return {
            "bot": self.label,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.wins / self.games if self.games else 0.0,
            "mean_total": mean,
            "std_total": std,
            "mean_score_per_round": [
                s / c if c else None for s, c in zip(self.round_sums, self.round_counts, strict=True)
            ],
            "going_out_rate": self.went_out / self.rounds_played if self.rounds_played else 0.0,
        }


@dataclass
class MatchResult:
    games: list[GameResult]
    entrants: list[str]
    wall_seconds: float
    preset: str

    def summary(self) -> dict[str, Any]:
        stats = {label: EntrantStats(label) for label in self.entrants}
        for g in self.games:
            share = 1.0 / len(g.winners) if g.winners else 0.0
            for seat, label in enumerate(g.entrants):
                st = stats[label]
                st.games += 1
                st.totals.append(g.totals[seat])
                if seat in g.winners:
                    st.wins += share
                for r, score in enumerate(g.round_scores[seat]):
                    while len(st.round_sums) <= r:
                        st.round_sums.append(0.0)
                        st.round_counts.append(0)
                    st.round_sums[r] += score
                    st.round_counts[r] += 1
                st.rounds_played += len(g.went_out)
                st.went_out += sum(1 for w in g.went_out if w == seat)
        n = len(self.games)
        return {
            "preset": self.preset,
            "games": n,
            "wall_seconds": self.wall_seconds,
            "mean_game_actions": sum(g.actions for g in self.games) / n if n else 0.0,
            "mean_game_seconds": sum(g.seconds for g in self.games) / n if n else 0.0,
            "bots": [stats[label].as_dict() for label in self.entrants],
        }


def build_bot(spec: str, seed: str) -> Bot:
    """A reference bot by name, or any bot by ``"package.module:ClassName"`` (a class of
    :class:`~service.bots.Bot` made from its seed, playing through the same client), so
    a bot author's own program enters a match as the reference bots do."""
    if ":" not in spec:
        return make_bot(spec, seed=seed)
    module, _, name = spec.partition(":")
    cls = getattr(importlib.import_module(module), name)
    bot = cls(seed)
    if not isinstance(bot, Bot):
        raise TypeError(f"{spec} is not a service.bots.Bot")
    return bot


def labels_of(bots: Sequence[str]) -> list[str]:
    """Entrant labels: the bot name, numbered when a bot plays several seats."""
    seen: dict[str, int] = {}
    out = []
    for b in bots:
        seen[b] = seen.get(b, 0) + 1
        out.append(b if seen[b] == 1 else f"{b}#{seen[b]}")
    return out


def check_game(final: GameView, events: Sequence[Event]) -> list[int | None]:
    """Check a finished game's scores against its event log; return who went out per round.

    Valid means: every round has one score per player, the one who went out scored 0,
    no score is negative, each total is the sum of its rounds, the round results in
    the log agree with the final view, and the winners hold the lowest total.
    """
    assert final["status"] == "finished", final["status"]
    players = final["players"]
    rounds = final["round"]["rounds"]
    ended = [e for e in events if e["type"] == "round_ended"]
    assert len(ended) == rounds, f"{len(ended)} rounds ended, expected {rounds}"
    went_out: list[int | None] = []
    for r, e in enumerate(ended):
        assert e["number"] == r + 1
        scores = {res["seat"]: res["score"] for res in e["results"]}
        assert sorted(scores) == list(range(len(players)))
        for seat, score in scores.items():
            assert score >= 0, (r, seat, score)
            assert players[seat]["round_scores"][r] == score, (r, seat)
        if e["went_out"] is not None:
            assert scores[e["went_out"]] == 0
        went_out.append(e["went_out"])
    totals = [p["total"] for p in players]
    for p in players:
        assert len(p["round_scores"]) == rounds
        assert p["total"] == sum(p["round_scores"])
    winners = final.get("winners", [])
    assert winners, "a finished game names its winners"
    assert all(totals[w] == min(totals) for w in winners)
    finished = [e for e in events if e["type"] == "game_finished"]
    assert len(finished) == 1 and finished[0]["totals"] == totals
    return went_out


def play_game(
    url: str,
    bots: Sequence[str],
    labels: Sequence[str],
    *,
    rules: dict[str, Any],
    seed: str | None = None,
    bot_seed: str = "0",
    stats: ClientStats | None = None,
    deadline_seconds: float = 600.0,
) -> GameResult:
    """Create a game with open seats, let each bot claim one and play; check the result."""
    started = time.perf_counter()
    creator = Client(url, stats=stats)
    game = creator.create_game([None] * len(bots), rules=rules, seed=seed)
    deadline = time.monotonic() + deadline_seconds
    finals: list[GameView | None] = [None] * len(bots)
    actions = [0] * len(bots)
    errors: list[BaseException] = []

    def seat_worker(seat: int) -> None:
        client = Client(url, stats=stats)  # an independent HTTP client per bot
        try:
            me = client.claim(game.game_id, seat, f"{labels[seat]}")
            finals[seat] = me.play(build_bot(bots[seat], f"{bot_seed}:{seat}"),
                                   deadline=deadline)
            actions[seat] = me.actions
        except BaseException as exc:  # reported by the caller's thread
            errors.append(exc)
        finally:
            client.close()

    threads = [threading.Thread(target=seat_worker, args=(s,), daemon=True)
               for s in range(len(bots))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(deadline_seconds + 30)
    if errors:
        raise errors[0]
    if any(f is None for f in finals):
        raise TimeoutError(f"game {game.game_id} did not finish")
    final = creator.view(game.game_id)  # spectator view: everyone's scores
    events, _ = creator.events(game.game_id)
    went_out = check_game(final, events)
    creator.close()
    return GameResult(
        game_id=game.game_id,
        entrants=list(labels),
        totals=[p["total"] for p in final["players"]],
        round_scores=[list(p["round_scores"]) for p in final["players"]],
        went_out=went_out,
        winners=list(final.get("winners", [])),
        actions=sum(actions),
        seconds=time.perf_counter() - started,
    )


def run_match(
    url: str,
    bots: Sequence[str],
    games: int,
    *,
    preset: str = "classic",
    rules: dict[str, Any] | None = None,
    players: int | None = None,
    concurrency: int = 4,
    seed: str | None = None,
    stats: ClientStats | None = None,
    progress: Callable[[int, GameResult], None] | None = None,
) -> MatchResult:
    """Play ``games`` games between ``bots`` (cycled to ``players`` seats), ``concurrency`` at
    once. Seats rotate each game. With ``seed``, game ``i`` is dealt from ``f"{seed}-{i}"``."""
    n = players or len(bots)
    if not 2 <= n <= 8:
        raise ValueError("a game has 2 to 8 players")
    entrants = [bots[i % len(bots)] for i in range(n)]
    labels = labels_of(entrants)
    spec = {"preset": preset, **(rules or {})}
    done = 0
    lock = threading.Lock()

    def one(i: int) -> GameResult:
        nonlocal done
        shift = i % n
        order = [(s + shift) % n for s in range(n)]  # seat s plays entrant order[s]
        result = play_game(
            url, [entrants[k] for k in order], [labels[k] for k in order], rules=spec,
            seed=None if seed is None else f"{seed}-{i}", bot_seed=f"{seed or 'x'}-{i}",
            stats=stats,
        )
        with lock:
            done += 1
            if progress is not None:
                progress(done, result)
        return result

    started = time.perf_counter()
    with ThreadPoolExecutor(max(1, concurrency)) as pool:
        results = list(pool.map(one, range(games)))
    return MatchResult(results, labels, time.perf_counter() - started, preset)
