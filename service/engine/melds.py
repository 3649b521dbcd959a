"""Meld rules in one place: the solving context, meld validation, groups, table melds.

Everything here depends only on the rules and the round's wild rank. Both searches
(``group_search`` and ``rank_dp``) and the public ``meld_kinds`` use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product

from .cards import JOKER, rank_of, suit_of
from .rules import Rules

INF = 1 << 40
BIG = 1 << 20


@dataclass(frozen=True, slots=True)
class Context:
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
def context(rules: Rules, wild_rank: int | None) -> Context:
    m = rules.max_wilds_per_meld
    return Context(
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


def split(cards: Iterable[int], wild_rank: int | None) -> tuple[list[int], list[int], int]:
    naturals, wild_rank_cards, jokers = [], [], 0
    for c in cards:
        if c == JOKER:
            jokers += 1
        elif rank_of(c) == wild_rank:
            wild_rank_cards.append(c)
        else:
            naturals.append(c)
    return naturals, wild_rank_cards, jokers


def run_fits(ctx: Context, nat_positions: list[int], total: int) -> bool:
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


def kinds_of(ctx: Context, naturals: list[int], wrc: list[int], jokers: int) -> frozenset[str]:
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
                    if run_fits(ctx, list(pos), total):
                        kinds.add("run")
                        break
                if "run" in kinds:
                    break
            if "run" in kinds:
                break
    return frozenset(kinds)


def meld_kinds(cards: Sequence[int], wild_rank: int | None, rules: Rules) -> frozenset[str]:
    """Which kinds (``"set"``, ``"run"``) ``cards`` form as one valid meld; empty if none."""
    ctx = context(rules, wild_rank)
    return kinds_of(ctx, *split(cards, wild_rank))


@dataclass(frozen=True, slots=True)
class Group:
    """A chosen group: naturals (card ints), wilds it needs, kind, display hints."""

    kind: str  # "set" | "run" | "layoff"
    naturals: tuple[int, ...]
    wilds: int
    spare: int
    layout: tuple[int | None, ...] = ()  # runs: card per position, None = a wild
    table: int = -1


class TableMeld:
    """A meld on the table, interpreted for lay-offs."""

    def __init__(self, ctx: Context, cards: Sequence[int]) -> None:
        self.cards = tuple(cards)
        naturals, wrc, jokers = split(cards, ctx.wild_rank)
        self.naturals = naturals
        self.wrc = wrc
        self.jokers = jokers
        kinds = kinds_of(ctx, naturals, wrc, jokers)
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
                        if run_fits(ctx, list(pos), self.size):
                            self.runs.append((s, tuple(pos), wild))

    def spare(self, ctx: Context) -> int:
        """How many more wilds this meld can take, unchanged otherwise."""
        best = 0
        for _r, _nat, wild in self.sets:
            best = max(best, ctx.max_wilds - wild)
        for _s, _pos, wild in self.runs:
            best = max(best, min(ctx.max_wilds - wild, 13 - self.size))
        return max(best, 0)
