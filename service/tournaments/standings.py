"""Standings: a tournament's points and tie-breaks, from its games' records (pure).

**Places.** A game's places come from its final totals, lower first, as the engine
ranks its ``winners``: a player who resigned places below every one who did not, and
under ``tie_break: zero_rounds`` (classic) more rounds scored 0 places higher among
equal totals; players still equal share their places. An aborted game (it has no
result) counts as everyone sharing every place.

**Points.** A game gives each player one point per opponent placed below it and half a
point per opponent it shares a place with: at a table of N, N - 1 for first, then
N - 2, down to 0 for last, ties sharing (two tied for first of four get 2.5 each). A
bye is worth the average of a place, (N - 1) / 2, as if it shared every place of a
table.

**Order.** Points, then the Buchholz score (the sum, over every opponent of every game
played, of that opponent's points: who was met counts), then the sum of the player's
final totals in its games (lower first), then the handle.

Everything here is a function of a game's *result* (:class:`Result`), which is read
from the record alone (:func:`result_of`), so the standings the service shows
(:func:`standings` of the results it kept) are the standings anyone rebuilds from the
records (:func:`standings_from_records`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.engine import standing_places

from .pairing import History, pair_key

__all__ = ["Result", "Standing", "history", "points", "result_of", "standings",
           "standings_from_records"]


@dataclass(frozen=True, slots=True)
class Result:
    """What a tournament needs of a finished game: its accounts by seat, their final
    totals, who resigned, their rounds scored 0 (for ``zero_rounds``), whether the game
    was aborted, and which seat moved first."""

    game_id: str
    handles: tuple[str, ...]
    totals: tuple[int, ...]
    resigned: tuple[bool, ...]
    zero_rounds: tuple[int, ...]
    zero_rounds_break_ties: bool
    aborted: bool
    first_seat: int

    def to_json(self) -> dict[str, Any]:
        return {"game_id": self.game_id, "handles": list(self.handles),
                "totals": list(self.totals), "resigned": list(self.resigned),
                "zero_rounds": list(self.zero_rounds),
                "zero_rounds_break_ties": self.zero_rounds_break_ties,
                "aborted": self.aborted, "first_seat": self.first_seat}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Result:
        return cls(data["game_id"], tuple(data["handles"]), tuple(data["totals"]),
                   tuple(data["resigned"]), tuple(data["zero_rounds"]),
                   data["zero_rounds_break_ties"], data["aborted"], data["first_seat"])


def result_of(record: Mapping[str, Any]) -> Result:
    """The result of a game from its record (``GET /v1/games/{id}/record``)."""
    players = record["players"]
    n = len(players)
    zeros = [0] * n
    for scored in record["rounds"]:
        for row in scored.get("results", ()):
            zeros[row["seat"]] += row["score"] == 0
    return Result(
        game_id=record["game_id"],
        handles=tuple(p["account"] for p in players),
        totals=tuple(record["totals"]),
        resigned=tuple(p["kind"] == "resigned" for p in players),
        zero_rounds=tuple(zeros),
        zero_rounds_break_ties=record["rules"]["tie_break"] == "zero_rounds",
        aborted=record["finish_reason"] == "aborted",
        first_seat=(record["first_dealer"] + 1) % n,
    )


def points(result: Result) -> dict[str, float]:
    """Each player's points for the game (see the module's docstring)."""
    n = len(result.handles)
    if result.aborted:
        return dict.fromkeys(result.handles, (n - 1) / 2)

    # the engine's places (the record's ``places``), from the same facts
    place = standing_places(result.totals, result.resigned,
                            result.zero_rounds if result.zero_rounds_break_ties else None)
    got = dict.fromkeys(result.handles, 0.0)
    for a, b in itertools.combinations(range(n), 2):
        ra, rb = place[a], place[b]
        if ra == rb:
            got[result.handles[a]] += 0.5
            got[result.handles[b]] += 0.5
        else:
            got[result.handles[a if ra < rb else b]] += 1.0
    return got


@dataclass(frozen=True, slots=True)
class Standing:
    """One entrant's line of the standings."""

    place: int
    handle: str
    points: float
    buchholz: float
    total: int
    games: int
    byes: int
    first_seats: int

    def to_json(self) -> dict[str, Any]:
        return {"place": self.place, "handle": self.handle, "points": self.points,
                "buchholz": self.buchholz, "total": self.total, "games": self.games,
                "byes": self.byes, "first_seats": self.first_seats}


def standings(entrants: Sequence[str], seats: int, results: Iterable[Result],
              byes: Iterable[str] = ()) -> list[Standing]:
    """The standings of ``entrants`` after the games ``results`` and the ``byes`` given
    (one entry per bye, a handle), best first."""
    results = list(results)
    score = dict.fromkeys(entrants, 0.0)
    total = dict.fromkeys(entrants, 0)
    games = dict.fromkeys(entrants, 0)
    firsts = dict.fromkeys(entrants, 0)
    bye_count = dict.fromkeys(entrants, 0)
    for handle in byes:
        bye_count[handle] += 1
        score[handle] += (seats - 1) / 2
    for result in results:
        for handle, got in points(result).items():
            score[handle] += got
        for handle, final in zip(result.handles, result.totals, strict=True):
            total[handle] += final
            games[handle] += 1
        firsts[result.handles[result.first_seat]] += 1
    buchholz = dict.fromkeys(entrants, 0.0)
    for result in results:
        for handle in result.handles:
            buchholz[handle] += sum(score[o] for o in result.handles if o != handle)
    order = sorted(entrants, key=lambda h: (-score[h], -buchholz[h], total[h], h))
    return [Standing(i + 1, h, score[h], buchholz[h], total[h], games[h], bye_count[h],
                     firsts[h]) for i, h in enumerate(order)]


def standings_from_records(entrants: Sequence[str], seats: int,
                           records: Iterable[Mapping[str, Any]],
                           byes: Iterable[str] = ()) -> list[Standing]:
    """The standings rebuilt from the games' records (and the byes the rounds list)."""
    return standings(entrants, seats, (result_of(r) for r in records), byes)


def history(results: Iterable[Result], byes: Iterable[str] = ()) -> History:
    """What the pairing needs of the games played: who met whom, who had the first seat,
    and the byes."""
    met: dict[tuple[str, str], int] = {}
    firsts: dict[str, int] = {}
    bye_count: dict[str, int] = {}
    for result in results:
        first = result.handles[result.first_seat]
        firsts[first] = firsts.get(first, 0) + 1
        for a, b in itertools.combinations(result.handles, 2):
            met[pair_key(a, b)] = met.get(pair_key(a, b), 0) + 1
    for handle in byes:
        bye_count[handle] = bye_count.get(handle, 0) + 1
    return History(met, firsts, bye_count)
