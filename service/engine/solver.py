"""The optimal meld solver: the exact minimum-deadwood arrangement of a hand.

It decides every score, the going-out test and the legal ``go_out`` actions, and
it is what ``POST /v1/solve`` serves.

Algorithm
---------
Cards are split into *naturals* (not of the wild rank), *wild-rank cards* and
printed jokers. Wild-rank cards and jokers form a pool of wilds; when a wild
limit is in force (``max_wilds_per_meld`` or ``min_naturals_per_meld``) a
wild-rank card may instead stand for itself inside a meld, so it also takes part
in melds as a natural.

A memoised depth-first search takes the lowest remaining natural ``x`` (cards
ordered by suit, then rank) and tries every way to dispose of it: as deadwood,
or as the lowest natural of a *group* — a set of its rank, a run of its suit, or
a lay-off onto one table meld — built from ``x``, higher naturals and the
wild-rank cards, each group taking exactly the wilds it needs to become a valid
meld (a run's gaps plus padding to three cards). A group's spare room for more
wilds (limited by ``max_wilds_per_meld`` and a run's 13 ranks) is summed into a
capacity. When no natural is left, the remaining wilds are placed at best: into
that capacity, into melds of their own (wilds only, or wild-rank cards standing
for themselves as a set), and the rest are deadwood, the cheapest ones first.
Because the search state is only ``(remaining multiset, wild balance, capacity,
used table melds, contract counts still needed)``, equal sub-hands are solved
once. Runs take naturals upward from ``x`` and only wild-rank cards or
wrap-around cards below it, so a state is a "frontier" of the hand much like a
profile DP over ranks.

Complexity: the number of states is bounded by the sub-multisets reachable by
removing whole groups in order, times ``(wilds + 1)^2``; for the hands of this
game (at most 14 cards in play, 30 accepted) this stays in the low thousands.
Before searching, naturals that cannot belong to any meld (no partner within
reach and too few wilds) are set aside as forced deadwood, which leaves random
hands with a core of a few cards.

The discard analysis solves the hand without each distinct card, sharing the
memo table between those searches; a card set aside as forced deadwood costs no
search at all (its absence lowers the penalty by exactly its value).

Tie-break
---------
When several arrangements reach the minimum the search keeps the first one in
its fixed order: for the lowest card, sets before runs before lay-offs before
deadwood, smaller groups before larger ones; so the result is deterministic for
a given multiset, whatever order the hand was given in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

from .arrangement import Analysis, Arrangement
from .cards import JOKER, rank_of, suit_of
from .rules import Rules

__all__ = ["MAX_HAND", "analyze", "meld_kinds", "solve"]

MAX_HAND = 30
INF = 1 << 40
BIG = 1 << 20


# ---------------------------------------------------------------------------------
# Context: everything that depends on the rules and the wild rank only.
# ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Context:
    pt: tuple[int, ...]
    wild_rank: int | None
    aces: str
    max_wilds: int  # BIG when unlimited
    min_nat: int
    limits: bool
    lay_off: bool

    @property
    def lo(self) -> int:
        return 2 if self.aces == "high" else 1

    @property
    def hi(self) -> int:
        return 13 if self.aces == "low" else 14

    def positions(self, rank: int) -> tuple[int, ...]:
        """Run positions a card of ``rank`` may take (before wrap unrolling)."""
        if rank == 1:
            if self.aces == "high":
                return (14,)
            if self.aces == "both":
                return (1, 14)
        return (rank,)


@lru_cache(maxsize=256)
def _context(rules: Rules, wild_rank: int | None) -> _Context:
    m = rules.max_wilds_per_meld
    return _Context(
        pt=rules.penalty_table(wild_rank),
        wild_rank=wild_rank,
        aces=rules.aces,
        max_wilds=BIG if m is None else m,
        min_nat=rules.min_naturals_per_meld,
        limits=m is not None or rules.min_naturals_per_meld > 0,
        lay_off=rules.lay_off,
    )


# ---------------------------------------------------------------------------------
# Meld validation (used for explicit melds, table melds and results).
# ---------------------------------------------------------------------------------


def _split(cards: Iterable[int], wild_rank: int | None) -> tuple[list[int], list[int], int]:
    naturals, wild_rank_cards, jokers = [], [], 0
    for c in cards:
        if c == JOKER:
            jokers += 1
        elif rank_of(c) == wild_rank:
            wild_rank_cards.append(c)
        else:
            naturals.append(c)
    return naturals, wild_rank_cards, jokers


def _run_fits(ctx: _Context, nat_positions: list[int], total: int) -> bool:
    """Can naturals at these (already chosen) positions plus wilds make a run of ``total``?"""
    if total > 13:
        return False
    if ctx.aces == "wrap":
        nat_positions = [(p - 1) % 13 for p in nat_positions]
    if len(set(nat_positions)) != len(nat_positions):
        return False
    if not nat_positions:
        return True
    if ctx.aces == "wrap":
        ps = sorted(nat_positions)
        # smallest circular arc covering all positions
        gaps = [(ps[(k + 1) % len(ps)] - ps[k]) % 13 for k in range(len(ps))]
        span = 13 - max(gaps) + 1 if len(ps) > 1 else 1
        return span <= total
    lo, hi = min(nat_positions), max(nat_positions)
    return hi - lo + 1 <= total and hi - lo + 1 <= 13 and ctx.lo <= lo and hi <= ctx.hi


def _kinds_of(ctx: _Context, naturals: list[int], wrc: list[int], jokers: int) -> frozenset[str]:
    total = len(naturals) + len(wrc) + jokers
    if total < 3:
        return frozenset()
    kinds: set[str] = set()
    m, n = ctx.max_wilds, ctx.min_nat
    # Set: naturals all of one rank; wild-rank cards stand for themselves only in a set of their rank.
    ranks = {rank_of(c) for c in naturals}
    if len(ranks) <= 1:
        if not naturals and wrc:
            nat, wild = len(wrc), jokers  # a set of the wild rank: they stand for themselves
        else:
            nat, wild = len(naturals), len(wrc) + jokers
        if wild <= m and nat >= n:
            kinds.add("set")
    # Run: naturals of one suit, distinct positions; each wild-rank card of that suit may stand for itself.
    suits = {suit_of(c) for c in naturals}
    if len(suits) <= 1 and total <= 13:
        suit_options = list(suits) if suits else sorted({suit_of(c) for c in wrc}) or [0]
        for s in suit_options:
            own = [c for c in wrc if suit_of(c) == s]
            # at most one wild-rank card can stand for itself (one rank); try none or one
            for self_count in range(0, min(1, len(own)) + 1):
                nat_cards = naturals + own[:self_count]
                wild = total - len(nat_cards)
                if wild > m or len(nat_cards) < n:
                    continue
                for pos in product(*(ctx.positions(rank_of(c)) for c in nat_cards)):
                    if _run_fits(ctx, list(pos), total):
                        kinds.add("run")
                        break
                if "run" in kinds:
                    break
            if "run" in kinds:
                break
    return frozenset(kinds)


def meld_kinds(cards: Sequence[int], wild_rank: int | None, rules: Rules) -> frozenset[str]:
    """Which kinds (``"set"``, ``"run"``) ``cards`` form as one valid meld; empty if none."""
    ctx = _context(rules, wild_rank)
    return _kinds_of(ctx, *_split(cards, wild_rank))


# ---------------------------------------------------------------------------------
# The search.
# ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Group:
    """A chosen group: naturals (card ints), wilds it needs, kind, display hints."""

    kind: str  # "set" | "run" | "layoff"
    naturals: tuple[int, ...]
    wilds: int
    spare: int
    layout: tuple[int | None, ...] = ()  # runs: card per position, None = a wild
    table: int = -1


class _TableMeld:
    """A meld on the table, interpreted for lay-offs."""

    def __init__(self, ctx: _Context, cards: Sequence[int]) -> None:
        self.cards = tuple(cards)
        naturals, wrc, jokers = _split(cards, ctx.wild_rank)
        self.naturals = naturals
        self.wrc = wrc
        self.jokers = jokers
        kinds = _kinds_of(ctx, naturals, wrc, jokers)
        self.valid = bool(kinds)
        self.size = len(self.cards)
        # Interpretations as a set of some rank: (rank or None for any, nat, wild)
        self.sets: list[tuple[int | None, int, int]] = []
        # Interpretations as a run: (suit, frozenset natural positions, wild count)
        self.runs: list[tuple[int, tuple[int, ...], int]] = []
        if not self.valid:
            return
        ranks = {rank_of(c) for c in naturals}
        if "set" in kinds:
            if naturals:
                self.sets.append((ranks.pop(), len(naturals), len(wrc) + jokers))
            else:
                self.sets.append((ctx.wild_rank, len(wrc), jokers))  # a set of the wild rank
                self.sets.append((None, 0, len(wrc) + jokers))  # all wild: any rank
        if "run" in kinds:
            suits = {suit_of(c) for c in naturals}
            for s in list(suits) if suits else range(4):
                own = [c for c in wrc if suit_of(c) == s]
                for self_count in range(0, min(1, len(own)) + 1):
                    nat_cards = naturals + own[:self_count]
                    wild = self.size - len(nat_cards)
                    for pos in product(*(ctx.positions(rank_of(c)) for c in nat_cards)):
                        if _run_fits(ctx, list(pos), self.size):
                            self.runs.append((s, tuple(pos), wild))

    def spare(self, ctx: _Context) -> int:
        """How many more wilds this meld can take, unchanged otherwise."""
        best = 0
        for _r, _nat, wild in self.sets:
            best = max(best, ctx.max_wilds - wild)
        for _s, _pos, wild in self.runs:
            best = max(best, min(ctx.max_wilds - wild, 13 - self.size))
        return max(best, 0)


class _Search:
    """One search context: the distinct naturals of a hand, the jokers, the table, a contract."""

    def __init__(
        self,
        ctx: _Context,
        nat_ids: list[int],
        jokers: int,
        wr_total: int,
        table: list[_TableMeld],
        contract: tuple[int, int] | None,
    ) -> None:
        self.ctx = ctx
        self.ids = nat_ids
        self.n = len(nat_ids)
        self.jokers = jokers
        self.capmax = jokers + wr_total
        self.table = table
        self.contract = contract
        self.memo: dict[tuple, tuple[int, list[int], object]] = {}
        self.index = {c: i for i, c in enumerate(nat_ids)}
        self.pw = ctx.pt[0 if ctx.wild_rank is None else ctx.wild_rank - 1]
        self.pj = ctx.pt[JOKER]
        self.group_cache: dict[tuple, list[tuple[_Group, tuple[int, ...]]]] = {}
        self.run_table: dict[tuple[int, int], list[tuple[int, int]]] = {}
        # slots that can share a meld with each natural: same rank or same suit, later in
        # the order, plus the wild-rank cards of its suit
        ranks = [c % 13 for c in nat_ids]
        suits = [c // 13 for c in nat_ids]
        n = self.n
        self.related = [
            (*(j for j in range(i, n) if ranks[j] == ranks[i] or suits[j] == suits[i]), n + suits[i])
            for i in range(n)
        ]
        self.same_rank = [[j for j in range(i + 1, n) if ranks[j] == ranks[i]] for i in range(n)]

    # -- groups ------------------------------------------------------------------

    def _groups(self, cnt: tuple[int, ...], i: int, budget: int) -> list[tuple[_Group, tuple[int, ...]]]:
        """Every group whose lowest natural is ids[i], with the slots it uses (one per card).

        Cached on the counts of the cards that can share a meld with ids[i] only, so the
        same neighbourhood in different states is enumerated once.
        """
        budget = min(budget, 14)
        key = (i, budget, *(cnt[j] for j in self.related[i]))
        cached = self.group_cache.get(key)
        if cached is not None:
            return cached
        out: list[tuple[_Group, tuple[int, ...]]] = []
        self._set_groups(cnt, i, budget, out)
        self._run_groups(cnt, i, budget, out)
        self.group_cache[key] = out
        return out

    def _set_groups(self, cnt, i, budget, out) -> None:
        ctx = self.ctx
        others = [j for j in self.same_rank[i] if cnt[j]]
        choices = [range(1, cnt[i] + 1)] + [range(0, cnt[j] + 1) for j in others]
        idx = [i, *others]
        for take in product(*choices):
            k = sum(take)
            c = max(0, 3 - k)
            if k < ctx.min_nat or c > ctx.max_wilds or c > budget:
                continue
            delta: list[int] = []
            for j, t in zip(idx, take, strict=True):
                delta.extend([j] * t)
            nats = tuple(self.ids[j] for j in delta)
            out.append((_Group("set", nats, c, ctx.max_wilds - c), tuple(delta)))

    def _run_candidates(self, cnt, i, s, p0):
        """Positions (unrolled) around p0 where a natural of suit s is available: pos -> source."""
        key = (i, p0)
        table = self.run_table.get(key)
        if table is None:
            table = self.run_table[key] = self._run_positions(i, s, p0)
        n = self.n
        return {
            q: (("n", j) if j < n else ("w", j - n)) for q, j in table if cnt[j]
        }

    def _run_positions(self, i: int, s: int, p0: int) -> list[tuple[int, int]]:
        """Every (unrolled position, slot) that could join a run of suit s through p0."""
        ctx = self.ctx
        wrap = ctx.aces == "wrap"
        lo, hi = (p0 - 12, p0 + 12) if wrap else (max(ctx.lo, p0 - 12), min(ctx.hi, p0 + 12))
        out: list[tuple[int, int]] = []
        for j in range(i + 1, self.n):
            c = self.ids[j]
            if suit_of(c) == s and rank_of(c) != rank_of(self.ids[i]):
                for p in ctx.positions(rank_of(c)):
                    for q in ((p - 13, p, p + 13) if wrap else (p,)):
                        if lo <= q <= hi:
                            out.append((q, j))
        if ctx.limits and ctx.wild_rank is not None:
            for p in ctx.positions(ctx.wild_rank):
                for q in ((p - 13, p, p + 13) if wrap else (p,)):
                    if lo <= q <= hi and q != p0:
                        out.append((q, self.n + s))
        return out

    def _run_groups(self, cnt, i, budget, out) -> None:
        ctx = self.ctx
        x = self.ids[i]
        s = suit_of(x)
        limit = min(budget, ctx.max_wilds)
        single_ok = self.contract is not None  # a one-natural run is dominated by the set
        for p0 in ctx.positions(rank_of(x)):
            cand = self._run_candidates(cnt, i, s, p0)
            ups = sorted(q for q in cand if q > p0)
            downs = sorted((q for q in cand if q < p0), reverse=True)
            up_chains = self._chains(ups, p0, +1, limit)
            down_chains = self._chains(downs, p0, -1, limit)
            for up, ug, top in up_chains:
                for down, dg, bottom in down_chains:
                    gaps = ug + dg
                    span = top - bottom + 1
                    if span > 13:
                        continue
                    k = 1 + len(up) + len(down)
                    if k == 1 and not single_ok:
                        continue
                    pad = max(0, 3 - span)
                    c = gaps + pad
                    if c > limit or k < ctx.min_nat:
                        continue
                    length = span + pad
                    delta = [i]
                    placed: dict[int, int] = {p0: x}
                    for q in (*up, *down):
                        kind, j = cand[q]
                        if kind == "n":
                            delta.append(j)
                            placed[q] = self.ids[j]
                        else:
                            delta.append(self.n + j)
                            placed[q] = self._wr_card(j)
                    if len(set(delta)) == len(delta):
                        start = bottom
                        if pad:
                            # pad upward when the bounds allow, else downward
                            if ctx.aces == "wrap" or top + pad <= ctx.hi:
                                end = top + pad
                            else:
                                start, end = bottom - pad, top
                        else:
                            end = top
                        layout = tuple(placed.get(q) for q in range(start, end + 1))
                        nats = tuple(v for v in layout if v is not None)
                        group = _Group("run", nats, c, min(ctx.max_wilds - c, 13 - length), layout)
                        out.append((group, tuple(delta)))

    @staticmethod
    def _chains(cands: list[int], p0: int, step: int, limit: int):
        """All ways to pick positions going away from p0 with at most ``limit`` gaps."""
        result: list[tuple[tuple[int, ...], int, int]] = [((), 0, p0)]
        stack = [((), 0, p0, 0)]
        while stack:
            chosen, gaps, last, start = stack.pop()
            for k in range(start, len(cands)):
                q = cands[k]
                g = gaps + abs(q - last) - 1
                if g > limit or abs(q - p0) > 12:
                    break
                item = ((*chosen, q), g, q)
                result.append(item)
                stack.append((*item, k + 1))
        if step < 0:
            return [(ch, g, last) for ch, g, last in result]
        return result

    def _wr_card(self, suit: int) -> int:
        return suit * 13 + (self.ctx.wild_rank or 1) - 1

    def _layoff_groups(self, cnt, i, mask, budget):
        """Groups that lay x (and higher naturals) onto an unused table meld."""
        ctx = self.ctx
        x = self.ids[i]
        r, s = rank_of(x), suit_of(x)
        out = []
        for t, meld in enumerate(self.table):
            if mask >> t & 1:
                continue
            bit = 1 << t
            for rank, tnat, twild in meld.sets:
                if rank is not None and rank != r:
                    continue
                others = [j for j in range(i + 1, self.n) if cnt[j] and rank_of(self.ids[j]) == r]
                idx = [i, *others]
                choices = [range(1, cnt[i] + 1)] + [range(0, cnt[j] + 1) for j in others]
                for take in product(*choices):
                    k = sum(take)
                    if tnat + k < ctx.min_nat or twild > ctx.max_wilds:
                        continue
                    new = list(cnt)
                    nats: list[int] = []
                    for j, tk in zip(idx, take, strict=True):
                        new[j] -= tk
                        nats.extend([self.ids[j]] * tk)
                    g = _Group("layoff", tuple(nats), 0, ctx.max_wilds - twild, table=t)
                    out.append((g, tuple(new), bit))
            for suit, fixed, twild in meld.runs:
                if suit != s:
                    continue
                for p0 in ctx.positions(r):
                    if p0 in fixed:
                        continue
                    cand = self._run_candidates(cnt, i, s, p0)
                    free = sorted(q for q in cand if q not in fixed)
                    for m in range(0, 1 << len(free)):
                        picked = [free[b] for b in range(len(free)) if m >> b & 1]
                        nat_pos = [*fixed, p0, *picked]
                        natc = len(nat_pos)
                        for c in range(0, max(0, min(budget, ctx.max_wilds - twild)) + 1):
                            total = natc + twild + c
                            if natc < ctx.min_nat or twild + c > ctx.max_wilds:
                                continue
                            if not _run_fits(ctx, nat_pos, total):
                                continue
                            new = list(cnt)
                            new[i] -= 1
                            nats = [x]
                            ok = True
                            for q in picked:
                                kind, j = cand[q]
                                slot = j if kind == "n" else self.n + j
                                new[slot] -= 1
                                ok = ok and new[slot] >= 0
                                nats.append(self.ids[j] if kind == "n" else self._wr_card(j))
                            if ok:
                                spare = min(ctx.max_wilds - twild - c, 13 - total)
                                g = _Group("layoff", tuple(nats), c, spare, table=t)
                                out.append((g, tuple(new), bit))
                            break  # the fewest wilds that fit is enough; more go via spare
        return out

    def meldable(self, cnt: tuple[int, ...]) -> set[int]:
        """Naturals that belong to at least one group (meld or lay-off) of this hand."""
        found: set[int] = set()
        budget = self.capmax
        cur = list(cnt)
        for i in range(self.n):
            if not cur[i]:
                continue
            state = tuple(cur)
            for group, _delta in self._groups(state, i, budget):
                found.update(group.naturals)
            if self.table and self.ctx.lay_off:
                for group, _new, _bit in self._layoff_groups(state, i, 0, budget):
                    found.update(group.naturals)
            cur[i] = 0
        return found

    # -- recursion ---------------------------------------------------------------

    def best(self, cnt: tuple[int, ...], wb: int, cap: int, mask: int, need: tuple[int, int]):
        """``(value, without)``: the minimum penalty of this state, and for every slot the
        minimum penalty of the state with one card of that slot removed (INF if none).

        The second part is what makes the discard analysis one search instead of one per
        card: the options of ``S - c`` are exactly the options of ``S`` that leave a copy of
        ``c`` behind, and ``S - x`` (x the lowest card) is the deadwood option's successor.
        The memo also keeps, per slot, the option that reached ``without`` so that an
        arrangement of ``S - c`` can be read back without searching again.
        """
        key = (cnt, wb, cap, mask, need)
        hit = self.memo.get(key)
        if hit is not None:
            return hit[0], hit[1]
        n = self.n
        size = len(cnt)
        i = 0
        while i < n and not cnt[i]:
            i += 1
        if i == n:
            value, choice = self._final(cnt, wb, cap, mask, need)
            without = [INF] * (size + 1)
            if any(cnt[n:]):
                less, _ = self._final_less_wr(cnt, wb, cap, mask, need)
                for k in range(n, size):
                    if cnt[k]:
                        without[k] = less
            if self.jokers:
                without[size] = self._final(cnt, wb - 1, cap, mask, need, self.jokers - 1)[0]
            self.memo[key] = (value, without, choice, None)
            return value, without
        ctx = self.ctx
        active = [k for k in range(size) if cnt[k]]
        if self.jokers:
            active.append(size)  # the joker pseudo-slot: one printed joker fewer
        budget = wb + sum(cnt[n:])
        best_value, best_choice = INF, None
        without = [INF] * (size + 1)
        wch: list = [None] * (size + 1)
        ns, nr = need
        options = []
        for group, delta in self._groups(cnt, i, budget):
            if group.wilds > budget:
                continue
            new = list(cnt)
            for j in delta:
                new[j] -= 1
            if min(new) < 0:
                continue
            ncap = min(cap + group.spare, self.capmax)
            nneed = (max(0, ns - 1), nr) if group.kind == "set" else (ns, max(0, nr - 1))
            options.append((group, tuple(new), wb - group.wilds, ncap, mask, nneed))
        if self.table and ctx.lay_off:
            for group, new, bit in self._layoff_groups(cnt, i, mask, budget):
                ncap = min(cap + group.spare, self.capmax)
                options.append((group, new, wb - group.wilds, ncap, mask | bit, need))
        x = self.ids[i]
        dnew = list(cnt)
        dnew[i] -= 1
        dt = tuple(dnew)
        dv, dw = self.best(dt, wb, cap, mask, need)
        px = ctx.pt[x]
        dead = (None, dt, wb, cap, mask, need)
        best_value, best_choice = px + dv, dead
        for k in active:
            if (k == size or dt[k]) and px + dw[k] < without[k]:
                without[k] = px + dw[k]
                wch[k] = dead
        for option in options:
            new = option[1]
            v, wv = self.best(*option[1:])
            if v <= best_value:
                best_value, best_choice = v, option
            for k in active:
                if (k == size or new[k]) and wv[k] < without[k]:
                    without[k] = wv[k]
                    wch[k] = option
        without[i] = dv
        wch[i] = None
        self.memo[key] = (best_value, without, best_choice, wch)
        return best_value, without

    def _final_less_wr(self, cnt, wb, cap, mask, need):
        lst = list(cnt)
        k = next(k for k in range(self.n, len(cnt)) if cnt[k])
        lst[k] -= 1
        return self._final(tuple(lst), wb, cap, mask, need)

    def _final(self, cnt, wb, cap, mask, need, jokers: int | None = None):
        """Place the wild pool once every natural is disposed of."""
        rest_wr = sum(cnt[self.n:])
        total = rest_wr + wb
        if total < 0:
            return INF, None
        j = self.jokers if jokers is None else jokers
        table_spare = sum(
            m.spare(self.ctx) for t, m in enumerate(self.table) if not mask >> t & 1
        ) if self.ctx.lay_off else 0
        room = min(cap + table_spare, self.capmax)
        best = (INF, None)
        for xj in range(max(0, total - rest_wr), min(j, total) + 1):
            y = total - xj
            v, plan = _place(self.ctx, xj, y, room, need, self.pj, self.pw)
            if v < best[0]:
                best = (v, (xj, y, plan))
        return best

    # -- reconstruction ----------------------------------------------------------

    def arrangement(
        self, state: tuple, wr_cards: list[int], jokers: int, target: int | None = None
    ) -> Arrangement:
        """Walk the memo from a solved state and lay the cards out.

        With ``target`` (a slot), lay out the state with one card of that slot removed,
        following the options recorded for ``without[target]``.
        """
        groups: list[_Group] = []
        deadwood: list[int] = []
        n = self.n
        while True:
            _value, _without, choice, wch = self.memo[state]
            cnt = state[0]
            i = next((k for k in range(n) if cnt[k]), n)
            if i == n:
                if target is None:
                    final = choice
                elif target == len(cnt):
                    cnt_, wb_, cap_, mask_, need_ = state
                    final = self._final(cnt_, wb_ - 1, cap_, mask_, need_, self.jokers - 1)[1]
                    jokers -= 1
                else:
                    final = self._final_less_wr(*state)[1]
                break
            if target is None:
                option = choice
            elif target == i:
                dnew = list(cnt)
                dnew[i] -= 1
                state = (tuple(dnew), *state[1:])
                target = None
                continue
            else:
                option = wch[target]
            group = option[0]
            if group is None:
                deadwood.append(self.ids[i])
            else:
                groups.append(group)
            state = tuple(option[1:])
        xj, y, plan = final
        return _layout(self.ctx, groups, deadwood, wr_cards, jokers, xj, y, plan, self.table)


@lru_cache(maxsize=4096)
def _leftover(ctx: _Context, x: int, y: int, need: tuple[int, int], pj: int, pw: int):
    """Melds made only of x jokers and y wild-rank cards, then deadwood: (penalty, melds)."""
    ns, nr = need
    best_v = INF if ns or nr else x * pj + y * pw
    best_plan: tuple = ()
    m, n = ctx.max_wilds, ctx.min_nat
    for size in range(3, x + y + 1):
        for yy in range(max(0, size - x), min(y, size) + 1):
            xx = size - yy
            as_set = xx <= m and yy >= n
            as_run = size <= 13 and (
                (yy >= 1 and size - 1 <= m and n <= 1) or (n == 0 and size <= m)
            )
            for kind, ok in (("set", as_set), ("run", as_run)):
                if not ok:
                    continue
                nn = (max(0, ns - 1), nr) if kind == "set" else (ns, max(0, nr - 1))
                v, plan = _leftover(ctx, x - xx, y - yy, nn, pj, pw)
                if v < best_v:
                    best_v, best_plan = v, ((kind, xx, yy), *plan)
    return best_v, best_plan


def _place(ctx, xj, y, room, need, pj, pw):
    """Best use of a pool of ``xj`` jokers and ``y`` wild-rank cards: absorb, meld, or deadwood."""
    best = (INF, None)
    for aj in range(0, min(xj, room) + 1):
        for ay in range(0, min(y, room - aj) + 1):
            v, plan = _leftover(ctx, xj - aj, y - ay, need, pj, pw)
            if v < best[0]:
                best = (v, (aj, ay, plan))
    return best


def _layout(ctx, groups, deadwood, wr_cards, jokers, xj, y, plan, table) -> Arrangement:
    """Turn chosen groups and the wild plan into concrete melds with real wild cards."""
    aj, ay, leftover = plan
    used_wr = []
    for g in groups:
        used_wr.extend(c for c in g.naturals if c != JOKER and rank_of(c) == ctx.wild_rank)
    free_wr = list(wr_cards)
    for c in used_wr:
        free_wr.remove(c)
    # The pool: y wild-rank cards and xj jokers are left after the groups' needs.
    # Groups consume the rest (jokers first are kept cheapest-last by the search's choice).
    pool_j, pool_w = jokers, list(free_wr)
    group_j = jokers - xj
    group_w = len(pool_w) - y
    spend: list[int] = [JOKER] * group_j + pool_w[:group_w]
    left_w = pool_w[group_w:]
    left_j = xj
    del pool_j
    melds: list[tuple[int, ...]] = []
    layoffs: list[tuple[int, tuple[int, ...]]] = []
    extra_j, extra_w = aj, ay
    extra = [JOKER] * extra_j + left_w[:extra_w]
    left_w = left_w[extra_w:]
    left_j -= extra_j
    for g in groups:
        wilds = [spend.pop() for _ in range(g.wilds)]
        more = []
        while extra and len(more) < g.spare:
            more.append(extra.pop())
        if g.kind == "layoff":
            layoffs.append((g.table, tuple(g.naturals) + tuple(wilds) + tuple(more)))
        elif g.kind == "run":
            it = iter(wilds)
            cards = [next(it) if v is None else v for v in g.layout]
            cards.extend(more)
            melds.append(tuple(cards))
        else:
            melds.append(tuple(g.naturals) + tuple(wilds) + tuple(more))
    if extra and table:
        # remaining absorbed wilds go onto the unused table melds with room
        used_tables = {g.table for g in groups if g.kind == "layoff"}
        for t, m in enumerate(table):
            if t in used_tables:
                continue
            room = m.spare(ctx)
            taken = []
            while extra and len(taken) < room:
                taken.append(extra.pop())
            if taken:
                layoffs.append((t, tuple(taken)))
    for _kind, xx, yy in leftover:
        melds.append(tuple(left_w[:yy]) + (JOKER,) * xx)
        left_w = left_w[yy:]
        left_j -= xx
    deadwood = list(deadwood) + left_w + [JOKER] * left_j
    penalty = sum(ctx.pt[c] for c in deadwood)
    merged: dict[int, tuple[int, ...]] = {}
    for t, cards in layoffs:
        merged[t] = merged.get(t, ()) + cards
    return Arrangement(
        melds=tuple(melds),
        deadwood=tuple(sorted(deadwood)),
        penalty=penalty,
        layoffs=tuple(sorted(merged.items())),
    )


# ---------------------------------------------------------------------------------
# Public entry points.
# ---------------------------------------------------------------------------------


class _Problem:
    """A hand prepared for searching.

    Naturals that cannot belong to any group of the whole hand are *forced deadwood*:
    they are deadwood in every arrangement of the hand and of every part of it, so they
    are set aside before the search and only added back to the results.
    """

    def __init__(
        self,
        ctx: _Context,
        hand: Sequence[int],
        table: list[_TableMeld],
        contract: tuple[int, int] | None,
    ) -> None:
        self.ctx = ctx
        naturals, wrc, jokers = _split(hand, ctx.wild_rank)
        self.wrc = sorted(wrc)
        self.jokers = jokers
        self.table = table
        self.contract = contract
        ids = sorted(set(naturals), key=lambda c: (rank_of(c), suit_of(c)))
        probe = None
        if table or ctx.min_nat > 1:
            probe = _Search(ctx, ids, jokers, len(wrc), table, contract)
            meldable = probe.meldable(self._counts(probe, naturals, wrc))
        else:
            meldable = _meldable_fast(ctx, naturals, wrc, jokers)
        self.forced = sorted(c for c in naturals if c not in meldable)
        self.forced_penalty = sum(ctx.pt[c] for c in self.forced)
        self.naturals = [c for c in naturals if c in meldable]
        core = [c for c in ids if c in meldable]
        if probe is not None and len(core) == len(ids):
            self.search = probe
        else:
            self.search = _Search(ctx, core, jokers, len(wrc), table, contract)

    @staticmethod
    def _counts(search: _Search, naturals: Iterable[int], wrc: Iterable[int]) -> tuple[int, ...]:
        cnt = [0] * (search.n + 4)
        for c in naturals:
            cnt[search.index[c]] += 1
        for c in wrc:
            cnt[search.n + suit_of(c)] += 1
        return tuple(cnt)

    def state(self, naturals: Iterable[int] | None = None, wrc: Iterable[int] | None = None,
              jokers: int | None = None) -> tuple:
        s = self.search
        cnt = self._counts(s, self.naturals if naturals is None else naturals,
                           self.wrc if wrc is None else wrc)
        need = (0, 0) if self.contract is None else self.contract
        return (cnt, self.jokers if jokers is None else jokers, 0, 0, need)

    def slot(self, card: int) -> int | None:
        """The search slot of a card, or None for a joker or forced deadwood."""
        if card == JOKER:
            return self.search.n + 4
        if rank_of(card) == self.ctx.wild_rank:
            return self.search.n + suit_of(card)
        return self.search.index.get(card)

    def arrangement(self, state: tuple, target_card: int | None = None) -> Arrangement:
        """Read an arrangement back from the memo, with one ``target_card`` left out."""
        wrc = self.wrc
        forced = list(self.forced)
        target = None
        if target_card is not None:
            target = self.slot(target_card)
            if target is None:
                forced.remove(target_card)
            elif target_card != JOKER and target >= self.search.n:
                wrc = _without(wrc, target_card)
        a = self.search.arrangement(state, wrc, self.jokers, target)
        if not forced:
            return a
        deadwood = tuple(sorted((*a.deadwood, *forced)))
        return Arrangement(a.melds, deadwood, a.penalty + sum(self.ctx.pt[c] for c in forced),
                           a.layoffs)


def _meldable_fast(ctx: _Context, naturals: list[int], wrc: list[int], jokers: int) -> set[int]:
    """Naturals that can be in some meld, by looking at three-card windows only.

    Valid when no table is involved and at most one natural is required per meld: then
    a natural belongs to some meld iff it belongs to one of three cards (a sub-window of
    any run through it has no more gaps, and a set needs at most three cards).
    """
    lim = min(jokers + len(wrc), ctx.max_wilds)
    if lim >= 2:
        return set(naturals)
    by_rank: dict[int, int] = {}
    by_suit: dict[int, set[int]] = {0: set(), 1: set(), 2: set(), 3: set()}
    wrap = ctx.aces == "wrap"
    for c in naturals:
        by_rank[rank_of(c)] = by_rank.get(rank_of(c), 0) + 1
        by_suit[suit_of(c)].update(ctx.positions(rank_of(c)))
    if ctx.limits and ctx.wild_rank is not None:
        for c in wrc:
            by_suit[suit_of(c)].update(ctx.positions(ctx.wild_rank))
    if wrap:
        by_suit = {k: {(p - 1) % 13 for p in v} for k, v in by_suit.items()}
    found: set[int] = set()
    for c in set(naturals):
        r = rank_of(c)
        if by_rank[r] + lim >= 3:
            found.add(c)
            continue
        have = by_suit[suit_of(c)]
        for p0 in ctx.positions(r):
            if wrap:
                p0 = (p0 - 1) % 13
            for lo in (p0 - 2, p0 - 1, p0):
                window = range(lo, lo + 3)
                if wrap:
                    missing = sum(1 for q in window if q % 13 not in have)
                elif lo < ctx.lo or lo + 2 > ctx.hi:
                    continue
                else:
                    missing = sum(1 for q in window if q not in have)
                if missing <= lim:
                    found.add(c)
                    break
            if c in found:
                break
    return found


def _check_hand(hand: Sequence[int]) -> None:
    if len(hand) > MAX_HAND:
        raise ValueError(f"a hand has at most {MAX_HAND} cards")


def _prepare_table(ctx: _Context, table: Sequence[Sequence[int]]) -> list[_TableMeld]:
    if not ctx.lay_off or not table:
        return []
    melds = [_TableMeld(ctx, m) for m in table]
    return [m if m.valid else _TableMeld(ctx, ()) for m in melds]


def _without(cards: Sequence[int], card: int) -> list[int]:
    out = list(cards)
    out.remove(card)
    return out


def solve(
    hand: Sequence[int],
    wild_rank: int | None,
    rules: Rules,
    table: Sequence[Sequence[int]] = (),
) -> Arrangement:
    """The optimal arrangement of ``hand`` (lay-offs onto ``table`` when ``rules.lay_off``)."""
    _check_hand(hand)
    ctx = _context(rules, wild_rank)
    problem = _Problem(ctx, hand, _prepare_table(ctx, table), None)
    state = problem.state()
    problem.search.best(*state)
    return problem.arrangement(state)


def analyze(
    hand: Sequence[int],
    wild_rank: int | None,
    rules: Rules,
    table: Sequence[Sequence[int]] = (),
    contract: tuple[int, int] | None = None,
) -> Analysis:
    """Best arrangement, go-out discards and the penalty after each possible discard.

    One search gives the penalty of the hand and of the hand without each card (see
    ``_Search.best``). With a contract, the go-out candidates are checked by a
    contract-aware search.
    """
    _check_hand(hand)
    ctx = _context(rules, wild_rank)
    tmelds = _prepare_table(ctx, table)
    problem = _Problem(ctx, hand, tmelds, None)
    state = problem.state()
    value, without = problem.search.best(*state)
    best = problem.arrangement(state)
    base = value + problem.forced_penalty

    discards: list[tuple[int, int]] = []
    for card in sorted(set(hand)):
        slot = problem.slot(card)
        if slot is None:  # forced deadwood: the rest is unchanged
            v = base - ctx.pt[card]
        else:
            v = without[slot] + problem.forced_penalty
        discards.append((card, v))
    discards.sort(key=lambda cv: (cv[1], cv[0]))

    go_out: dict[int, Arrangement] = {}
    for card, v in discards:
        if v != 0:
            break
        if contract is not None:
            cp = _Problem(ctx, _without(hand, card), tmelds, contract)
            cstate = cp.state()
            if cp.search.best(*cstate)[0] + cp.forced_penalty == 0:
                go_out[card] = cp.arrangement(cstate)
        else:
            go_out[card] = problem.arrangement(state, card)
    return Analysis(best=best, go_out=dict(sorted(go_out.items())), discards=tuple(discards))
