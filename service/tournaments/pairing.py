"""Pairing: who sits at which table in a round, and in which seat (pure: no I/O).

A tournament plays at tables of ``seats`` players (2 to 8). Two systems:

* **Swiss** (:func:`pair_swiss`): each round is paired from the standings as they are.
  The players are taken in standing order; the best one left opens a table and fills it
  with the next players in that order who have not met anyone at it yet, with a
  depth-first search that backtracks when a later table cannot be filled without a
  repeat. So tables hold players of like standing, and no two players meet again while a
  pairing without a repeat exists (the search is exhaustive up to :data:`SEARCH_BUDGET`
  tables tried; past it, the fewest repeats it found).
* **Round robin** (:func:`round_robin`): the whole schedule is made at the start, from
  the sizes alone (:func:`_skeleton`), then dealt to the entrants. Where an exact design
  exists (:mod:`.designs`: two seats, Kirkman triple systems, the affine geometries, the
  4-seat designs), every pair meets exactly once. With one player fewer than such a
  design, the design is played with that player's tablemates sitting out, and the pairs
  it kept apart get the last rounds. Otherwise :mod:`.covering` searches for few rounds
  in which every pair meets, the repeats spread evenly.

**Byes.** Every table has exactly ``seats`` players, so when the players are not a
multiple of it the rest sit the round out with a bye (worth the average points of a
place: :mod:`.standings`). A bye goes to whoever had the fewest: the lowest in the
standings first (Swiss); in a round robin every player's byes are within one of every
other's.

**First seat.** Who moves first in a game is a matter of the deal (the seat left of the
first dealer; the deal then moves round the table), so being first is an edge. In Swiss,
each table's *first seat* is given to the player who had it least often (the first by
name among equals: a choice the look-ahead can foresee); the search also prefers tables
that each hold one of the players who had it least, so over the tournament the counts
stay within one of each other. A round robin gives the first seats once its schedule is
made (:func:`_first_seats`): each player's count within one of every other's over the
schedule, and which entrant gets which part of the schedule is drawn from a generator
seeded with the entrants, so neither names nor entry order decide who has the one first
seat (or bye) more when they cannot all be equal. A table is returned in turn order,
its first-seat player first; the caller seats it from the seat the game's deal makes
first (:func:`service.play.tournaments`).
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from .covering import Plan, cover
from .designs import resolvable

__all__ = ["SEARCH_BUDGET", "History", "Round", "pair_key", "pair_swiss", "round_robin",
           "round_robin_rounds"]

#: How many tables the Swiss search may try in one round before it settles for the best
#: pairing it found (an exhaustive search of 16 players at 4-seat tables is millions).
SEARCH_BUDGET = 50_000
#: A repeat weighs more than any imbalance of first seats (at most 32 tables a round).
_REPEAT = 1_000


def pair_key(a: str, b: str) -> tuple[str, str]:
    """The key of a pair of players, whoever is named first."""
    return (a, b) if a < b else (b, a)


@dataclass(frozen=True, slots=True)
class History:
    """What the earlier rounds did: how often each pair met, how often each player had
    the first seat, and how many byes each had."""

    met: Mapping[tuple[str, str], int] = field(default_factory=dict)
    firsts: Mapping[str, int] = field(default_factory=dict)
    byes: Mapping[str, int] = field(default_factory=dict)

    def meetings(self, table: Sequence[str]) -> int:
        """How much the pairs of ``table`` met before (0: all new), each pair weighing the
        square of its meetings, so a third meeting costs more than two second ones."""
        return sum(self.met.get(pair_key(a, b), 0) ** 2 for a, b in itertools.combinations(table, 2))


@dataclass(frozen=True, slots=True)
class Round:
    """A round's pairing: each table in turn order (first seat first), and the byes."""

    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...] = ()


def _byes(order: Sequence[str], seats: int, history: History) -> list[str]:
    """Who sits out: as many as are left over, the fewest byes first, lowest standing
    first among equals."""
    left_over = len(order) % seats
    if not left_over:
        return []
    bottom_up = list(reversed(order))
    return sorted(bottom_up, key=lambda p: history.byes.get(p, 0))[:left_over]


def _first_seat(table: Sequence[str], history: History) -> tuple[str, ...]:
    """``table`` in turn order: the player who had the first seat least first (among
    equals, the first by name: a choice the standings do not move, so the look-ahead
    foresees it), then the others as they sit in the standings."""
    first = min(table, key=lambda p: (history.firsts.get(p, 0), p))
    rest = [p for p in table if p != first]
    return (first, *rest)


class _Budget:
    """The tables a round's search (and its look-ahead) may still try."""

    def __init__(self, tables: int) -> None:
        self.left = tables


def _played(history: History, tables: Sequence[Sequence[str]]) -> History:
    """``history`` after a round of ``tables`` (each in turn order)."""
    met, firsts = dict(history.met), dict(history.firsts)
    for table in tables:
        firsts[table[0]] = firsts.get(table[0], 0) + 1
        for a, b in itertools.combinations(table, 2):
            met[pair_key(a, b)] = met.get(pair_key(a, b), 0) + 1
    return History(met, firsts, history.byes)


class _Search:
    """The depth-first search of one round's tables (see the module's docstring).

    A pairing's cost is its repeats (each weighing :data:`_REPEAT`) and the tables that
    lack one of the players who had the first seat least when there were enough of them
    to go round. With ``ahead`` rounds still to come, a pairing of cost 0 is taken only
    if ``ahead`` more rounds of cost 0 can follow it (a look-ahead by the same search):
    greedy rounds can leave the last ones no way round a repeat (16 players at 4-seat
    tables: most greedy third rounds do), which the look-ahead steers clear of. A search
    ``zero_only`` looks only for such rounds."""

    def __init__(self, players: Sequence[str], seats: int, history: History, budget: _Budget,
                 ahead: int = 0, zero_only: bool = False) -> None:
        self.players = tuple(players)
        self.seats = seats
        self.history = history
        self.budget = budget
        self.ahead = ahead
        counts = [history.firsts.get(p, 0) for p in players]
        least = min(counts) if counts else 0
        self.least = {p for p, c in zip(players, counts, strict=True) if c == least}
        tables = len(players) // seats
        # tables that may lack one of those who had the first seat least: there are too
        # few of them to go round
        self.may_lack = tables - min(len(self.least), tables)
        self.best: list[tuple[str, ...]] | None = None
        #: what a pairing must cost less than to be worth extending
        self.limit: float = 1 if zero_only else float("inf")

    def run(self) -> list[tuple[str, ...]] | None:
        """The pairing found (in turn order), ``None`` if none below the limit."""
        self._step(self.players, [], 0, 0)
        return self.best

    def _seated(self, tables: Sequence[tuple[str, ...]]) -> list[tuple[str, ...]]:
        return [_first_seat(t, self.history) for t in tables]

    def _complete(self, tables: list[tuple[str, ...]], cost: int) -> bool:
        """Keep a complete pairing if it is the best yet; ``True`` to stop the search."""
        seated = self._seated(tables)
        if cost > 0:
            self.best, self.limit = seated, cost
            return False
        if self.ahead > 0 and self.budget.left > 0:
            follow = _Search(self.players, self.seats, _played(self.history, seated),
                             self.budget, self.ahead - 1, zero_only=True)
            if follow.run() is None and self.budget.left > 0:
                if self.limit > 1:  # a dead end, but still the best yet: keep it
                    self.best, self.limit = seated, 1
                return False
        self.best = seated
        return True

    def _step(self, left: tuple[str, ...], tables: list[tuple[str, ...]], cost: int,
              lacking: int) -> bool:
        """Extend ``tables`` with tables of ``left``; ``True`` stops the search (a
        pairing of cost 0 found, or the budget spent)."""
        if not left:
            return self._complete(tables, cost)
        head, rest = left[0], left[1:]
        if self.limit <= _REPEAT:  # only repeat-free tables are worth trying now
            rest_met = self.history.met
            rest = tuple(p for p in rest if pair_key(head, p) not in rest_met)
        for others in itertools.combinations(rest, self.seats - 1):
            if self.budget.left <= 0:
                return True  # out of time: keep the best found
            self.budget.left -= 1
            table = (head, *others)
            lacks = lacking + (not self.least.intersection(table))
            more = (_REPEAT * self.history.meetings(table)
                    + (lacks > self.may_lack) - (lacking > self.may_lack))
            if cost + more >= self.limit:
                continue
            taken = set(table)
            if self._step(tuple(p for p in left if p not in taken), [*tables, table],
                          cost + more, lacks):
                return True
        return False


def pair_swiss(order: Sequence[str], seats: int, history: History, rounds_after: int = 0,
               budget: int = SEARCH_BUDGET) -> Round:
    """The next Swiss round of the players ``order`` (best standing first), with
    ``rounds_after`` rounds still to come after it (looked ahead to when no one has a
    bye)."""
    rank = {p: i for i, p in enumerate(order)}
    byes = _byes(order, seats, history)
    playing = [p for p in order if p not in byes]
    ahead = rounds_after if not byes else 0
    spend = _Budget(budget)
    # cheapest first: a search for cost 0 prunes every repeat at once; only when there
    # is none (or none that the rounds after can follow) is the fewest repeats looked for
    tables = (_Search(playing, seats, history, spend, ahead, zero_only=True).run()
              or _Search(playing, seats, history, _Budget(budget)).run())
    assert tables is not None
    return Round(tuple(tables), tuple(sorted(byes, key=rank.__getitem__)))


def _skeleton(n: int, k: int, limit: int | None) -> Plan:
    """The round robin of players ``0 … n - 1``: an exact design if there is one; one
    for a player more, that player's tablemates sitting out while it would play (every
    pair meets at most once, every player sits out once), with the rounds that seat the
    pairs it kept apart; otherwise the search's. At most ``limit`` rounds."""
    design = resolvable(n, k)
    if design is not None:
        plan: Plan = [(tables, ()) for tables in design]
    elif (bigger := resolvable(n + 1, k)) is not None:
        plan = [([t for t in tables if n not in t],
                 next(tuple(p for p in t if p != n) for t in tables if n in t))
                for tables in bigger]
        if k > 2:
            plan = cover(n, k, plan[:limit], limit)
    else:
        plan = cover(n, k, None, limit)
    return plan[:limit]


def _first_seats(plan: Plan, n: int) -> list[list[int]]:
    """Who has the first seat at each table of ``plan`` (by round, then table): each
    table's player who had it least so far, then moved along chains of tables (a player
    who had it least takes a table from one of its tablemates, who takes another, …,
    from one who had it two or more times more) until every player's count is within one
    of every other's, or no chain is left."""
    count = [0] * n
    first: list[list[int]] = []
    for tables, _ in plan:
        first.append([])
        for table in tables:
            p = min(table, key=count.__getitem__)
            first[-1].append(p)
            count[p] += 1
    seated: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for r, (tables, _) in enumerate(plan):
        for t, table in enumerate(tables):
            for p in table:
                seated[p].append((r, t))
    while max(count) - min(count) > 1:
        least = min(count)
        came: dict[int, tuple[int, tuple[int, int]] | None] = {
            p: None for p in range(n) if count[p] == least}
        queue, end = list(came), None
        for u in queue:
            if count[u] >= least + 2:
                end = u
                break
            for r, t in seated[u]:
                owner = first[r][t]
                if owner not in came:
                    came[owner] = (u, (r, t))
                    queue.append(owner)
        if end is None:
            break
        count[end] -= 1
        while (step := came[end]) is not None:
            end, (r, t) = step
            first[r][t] = end
        count[end] += 1
    return first


def round_robin_rounds(players: int, seats: int) -> int:
    """How many rounds the round robin of ``players`` at ``seats``-seat tables has."""
    return len(_skeleton(players, seats, None))


def round_robin(players: Sequence[str], seats: int, max_rounds: int | None = None) -> list[Round]:
    """The whole round robin of ``players`` (in entry order) at ``seats``-seat tables, at
    most ``max_rounds`` rounds of it. Which entrant plays which part of the schedule is
    drawn by a generator seeded with the entrants, so that neither the entry order nor
    the names choose who sits out more, or has the first seat more, when those cannot be
    equal."""
    n = len(players)
    plan = _skeleton(n, seats, max_rounds)
    first = _first_seats(plan, n)
    names = list(players)
    random.Random(hashlib.sha256("\n".join(players).encode()).digest()).shuffle(names)
    entry = {p: i for i, p in enumerate(players)}
    schedule: list[Round] = []
    for (tables, out), firsts in zip(plan, first, strict=True):
        seated = tuple((names[f], *(names[p] for p in table if p != f))
                       for table, f in zip(tables, firsts, strict=True))
        schedule.append(Round(seated, tuple(sorted((names[p] for p in out),
                                                   key=entry.__getitem__))))
    return schedule
