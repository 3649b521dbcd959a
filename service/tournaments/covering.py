"""The round robins that no exact design gives: a search for few rounds in which every
pair of players meets (pure: no I/O, and deterministic: the same sizes always give the
same schedule).

**How many rounds.** A player with a bye meets nobody that round, and at ``k``-seat
tables meets ``k - 1`` players a round otherwise; byes go round evenly, so the fewest
rounds in which everyone can meet everyone is the least ``R`` with
``R - ceil(R * byes / n) ≥ ceil((n - 1) / (k - 1))`` (:func:`least_rounds`). The search
starts there and adds a round at a time while some pair has not met.

**The search.** Rounds are first filled greedily (each table with the players who met
its members least), then improved by simulated annealing: swap two players between
tables of a round, or a player with one who has the round's bye (in two rounds at once
when a single swap would make the byes uneven). A schedule costs, for each pair, the
square of its meetings plus a penalty if it never meets, so with the rounds' seats
fixed the cheapest schedules have every pair meet and the meetings as even as they can
be (a pair meeting three times costs more than two pairs meeting twice). What is still
unmet after the annealing gets rounds built greedily to seat unmet pairs together (each
followed by a shorter annealing). A last annealing, in which an unmet pair costs little
more than a repeat so that it can pass through such schedules, keeps the most even
schedule it saw in which every pair met. The penalty of an unmet pair makes the search
cautious, so it can keep a pair that meets in most rounds where breaking it up would
leave others unmet (large tables with few tables a round). When fewer rounds are allowed than
coverage needs (:data:`service.play.tournaments.MAX_ROUNDS`), only repeats cost: as many
pairs meet as the search finds.

**Byes** go to the players who had fewest, in a fixed rotation among equals; the swaps
that move a bye keep every player's byes within one of every other's.

The random choices come from a generator seeded by the sizes, and the number of steps is
fixed (never a clock), so a schedule depends on nothing but ``(n, k)`` and the rounds
already given.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

__all__ = ["Plan", "cover", "least_rounds"]

#: A schedule of players ``0 … n - 1``: each round's tables and its byes.
Plan = list[tuple[list[tuple[int, ...]], tuple[int, ...]]]

#: Steps of the main annealing, and of each after a round was added, at 3-seat tables
#: (fewer at larger ones, whose steps cost more). A step takes a few microseconds in
#: CPython, so a schedule takes under a second (0.2 to 0.7 s measured for 64 players).
STEPS = 150_000
POLISH = 30_000
#: What a pair that never meets costs more than its square while the repeats are evened.
_SOFT = 6
#: More rounds than any schedule has (so more meetings than any pair has).
_MOST = 256


def least_rounds(n: int, k: int) -> int:
    """The fewest rounds in which every pair of ``n`` players at ``k``-seat tables can
    meet, with byes spread evenly (see the module)."""
    byes = n % k
    need = -(-(n - 1) // (k - 1))
    rounds = need
    while rounds - -(-rounds * byes // n) < need:
        rounds += 1
    return rounds


class _Annealer:
    """The schedule under search: its rounds (those from ``fixed`` on may change), how
    often each pair met and each player had a bye."""

    def __init__(self, n: int, k: int, plan: Plan, cover: bool, seed: int) -> None:
        self.n, self.k = n, k
        self.rng = random.Random(seed)
        self.cover = cover
        self.fixed = len(plan)
        self.penalize(4 * k * k if cover else 0)
        self.load(plan)

    def load(self, plan: Plan) -> None:
        """Take ``plan`` as the schedule."""
        n = self.n
        self.tables = [[list(t) for t in tables] for tables, _ in plan]
        self.byes = [list(out) for _, out in plan]
        self.met = [[0] * n for _ in range(n)]
        self.bye_count = [0] * n
        for tables, out in plan:
            for table in tables:
                self._count(table)
            for p in out:
                self.bye_count[p] += 1
        #: the pairs that never met, and the sum of the squares of all pairs' meetings
        self.zeros = sum(row[i + 1:].count(0) for i, row in enumerate(self.met))
        self.squares = sum(c * c for i, row in enumerate(self.met) for c in row[i + 1:])

    def penalize(self, unmet: int) -> None:
        """Make a pair that never meets cost ``unmet`` more than its square."""
        costs = [c * c + (unmet if c == 0 else 0) for c in range(_MOST + 2)]
        #: what one more (``up``) or one fewer (``down``) meeting of a pair that met
        #: ``c`` times costs
        self.up = [costs[c + 1] - costs[c] for c in range(_MOST + 1)]
        self.down = [0] + [costs[c - 1] - costs[c] for c in range(1, _MOST + 1)]

    def _count(self, table: Sequence[int]) -> None:
        met = self.met
        for i, a in enumerate(table):
            for b in table[i + 1:]:
                met[a][b] += 1
                met[b][a] += 1

    def add_round(self) -> None:
        """A round built greedily: the byes to those who had fewest (of those, the ones
        with fewest unmet pairs, in rotation), then each table opened by the player with
        most unmet pairs and filled with whoever adds least cost to it."""
        n, k, met, up = self.n, self.k, self.met, self.up
        unmet = [row.count(0) - 1 for row in met]
        turn = len(self.tables)
        order = sorted(range(n), key=lambda p: (self.bye_count[p], unmet[p], (p - turn) % n))
        out = sorted(order[:n % k])
        for p in out:
            self.bye_count[p] += 1
        left = [p for p in range(n) if p not in out]
        self.rng.shuffle(left)
        tables: list[list[int]] = []
        while left:
            head = max(left, key=unmet.__getitem__)
            left.remove(head)
            table = [head]
            added = {q: up[met[q][head]] for q in left}
            while len(table) < k:
                q = min(left, key=added.__getitem__)
                left.remove(q)
                del added[q]
                table.append(q)
                for r in left:
                    added[r] += up[met[r][q]]
            self._count(table)
            self.zeros -= sum(self.met[a][b] == 1 for i, a in enumerate(table)
                              for b in table[i + 1:])
            self.squares += sum(2 * self.met[a][b] - 1 for i, a in enumerate(table)
                                for b in table[i + 1:])
            tables.append(table)
        self.tables.append(tables)
        self.byes.append(out)

    def _swap_delta(self, table: list[int], old: int, new: int) -> int:
        """What replacing ``old`` by ``new`` at ``table`` costs (``new`` not at it)."""
        met_old, met_new, up, down = self.met[old], self.met[new], self.up, self.down
        delta = 0
        for a in table:
            if a != old:
                delta += down[met_old[a]] + up[met_new[a]]
        return delta

    def _replace(self, table: list[int], i: int, new: int) -> None:
        met, old = self.met, table[i]
        for a in table:
            if a != old:
                c, d = met[old][a], met[new][a]
                self.zeros += (c == 1) - (d == 0)
                self.squares += 2 * (d - c) + 2
                met[old][a] = met[a][old] = c - 1
                met[new][a] = met[a][new] = d + 1
        table[i] = new

    def _accept(self, delta: int, heat: float) -> bool:
        return delta <= 0 or self.rng.random() < math.exp(-delta / heat)

    def _bye_move(self, r: int, heat: float) -> None:
        """A player with round ``r``'s bye takes a seat, its holder the bye; if that would
        make the byes uneven, the two trade back in another round where they can."""
        rng, tables, byes, count = self.rng, self.tables, self.byes, self.bye_count
        bi, t = rng.randrange(len(byes[r])), rng.randrange(len(tables[r]))
        table = tables[r][t]
        x, i = byes[r][bi], rng.randrange(self.k)
        y = table[i]
        delta = self._swap_delta(table, y, x)
        if count[x] > count[y]:
            if self._accept(delta, heat):
                self._replace(table, i, x)
                byes[r][bi] = y
                count[x] -= 1
                count[y] += 1
            return
        back = [s for s in range(self.fixed, len(tables)) if s != r and y in byes[s]
                and x not in byes[s]]
        if not back:
            return
        s = back[rng.randrange(len(back))]
        seat = next((u, row.index(x)) for u, row in enumerate(tables[s]) if x in row)
        self._replace(table, i, x)
        delta += self._swap_delta(tables[s][seat[0]], x, y)
        if self._accept(delta, heat):
            self._replace(tables[s][seat[0]], seat[1], y)
            byes[r][bi] = y
            byes[s][byes[s].index(y)] = x
        else:
            self._replace(table, i, y)

    def anneal(self, fixed: int, steps: int, hot: float, cold: float,
               keep_best: bool = False) -> None:
        """``steps`` moves in the rounds from ``fixed`` on, the temperature falling from
        ``hot`` to ``cold``; ``keep_best``: end on the schedule with the least sum of
        squares among those in which every pair met (looked at every so often)."""
        self.fixed = fixed
        rounds = len(self.tables) - fixed
        rng, tables, k, met, up, down = self.rng, self.tables, self.k, self.met, self.up, self.down
        m, with_byes = len(tables[-1]), bool(self.byes[-1])
        if rounds <= 0 or (m < 2 and not with_byes):
            return
        randrange, random_, exp = rng.randrange, rng.random, math.exp
        ratio = cold / hot
        if m < 2:  # one table a round (fewer than two tables' players): only byes move,
            steps //= 5  # and a bye move costs several swaps
        best = (self.squares, self.plan()) if keep_best and not self.zeros else None
        for step in range(steps):
            if best is not None and not step % 256 and not self.zeros and self.squares < best[0]:
                best = (self.squares, self.plan())
            heat = hot * ratio ** (step / steps)
            r = fixed + randrange(rounds)
            if with_byes and (m < 2 or random_() < 0.2):
                self._bye_move(r, heat)
                continue
            a = randrange(m)
            ta, tb = tables[r][a], tables[r][(a + 1 + randrange(m - 1)) % m]
            i, j = randrange(k), randrange(k)
            x, y = ta[i], tb[j]
            mx, my = met[x], met[y]
            delta = 0
            for p in ta:
                if p != x:
                    delta += down[mx[p]] + up[my[p]]
            for p in tb:
                if p != y:
                    delta += down[my[p]] + up[mx[p]]
            if delta <= 0 or random_() < exp(-delta / heat):
                self._replace(ta, i, y)
                self._replace(tb, j, x)
        if best is not None and (self.zeros or self.squares > best[0]):
            self.load(best[1])

    def plan(self) -> Plan:
        return [([tuple(t) for t in tables], tuple(sorted(out)))
                for tables, out in zip(self.tables, self.byes, strict=True)]


def cover(n: int, k: int, given: Plan | None = None, limit: int | None = None) -> Plan:
    """A schedule of ``n`` players at ``k``-seat tables that starts with the rounds
    ``given`` (kept as they are) and adds the fewest rounds the search finds for every
    pair to meet, at most ``limit`` rounds in all (see the module)."""
    given = list(given or ())
    least = max(least_rounds(n, k), len(given))
    rounds = least if limit is None else min(least, limit)
    search = _Annealer(n, k, given, rounds == least, seed=n * 100 + k)
    if given and not search.zeros:
        return search.plan()
    for _ in range(rounds - len(given)):
        search.add_round()
    scale = 3 / k
    search.anneal(len(given), int(STEPS * scale), 2.0, 0.05)
    while search.cover and search.zeros and (limit is None or len(search.tables) < limit):
        search.add_round()
        search.anneal(len(given), int(POLISH * scale), 1.0, 0.05)
    if search.cover and not search.zeros:
        # the repeats evened out: a pair that never meets costs little more than one
        # that meets twice, so that the annealing can pass through such schedules
        search.penalize(_SOFT)
        search.anneal(len(given), int(POLISH * scale), 1.0, 0.05, keep_best=True)
    return search.plan()
