"""The one meld model: what a valid set or run is, under every option.

A *set* is three or more cards of one rank, a *run* three or more cards of one suit
at consecutive positions of the aces rule (``low``, ``high``, ``both``, ``wrap``),
no position twice; wilds (printed jokers and wild-rank cards) stand for missing
cards, within ``max_wilds_per_meld`` and ``min_naturals_per_meld``, and a wild-rank
card may stand for itself (then it counts as a natural). Laying cards off onto a
table meld is valid when the union is one valid meld (``can_lay_off``).

Everything that needs meld validity asks here: the engine for explicit ``go_out``
melds, the solver for table melds and for the limits its group search enumerates
under (``Context``). Nothing here depends on more than the rules and the round's
wild rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product

from .cards import JOKER, rank_of, suit_of
from .rules import Rules

__all__ = ["BIG", "SCALE", "Context", "can_lay_off", "context", "kinds_of", "meld_kinds", "run_fits", "split"]

INF = 1 << 40
BIG = 1 << 20
#: Costs are ``penalty * SCALE + deadwood cards``; a hand has at most 30 cards.
SCALE = 64


@dataclass(frozen=True, slots=True)
class Context:
    """What the searches need from the rules and the wild rank.

    ``pt`` is each card's deadwood penalty; ``cost`` is what the searches minimise:
    ``pt * SCALE + 1``, so that among arrangements of equal penalty the one with the
    fewest deadwood cards wins. That matters when a card is worth 0 (a custom
    ``card_values`` or ``wild_penalty: 0``): going out needs *no* deadwood card, not
    a zero penalty, and this makes "no deadwood" exactly "cost 0".
    """

    pt: tuple[int, ...]
    cost: tuple[int, ...]
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


def context(rules: Rules, wild_rank: int | None) -> Context:
    """The meld limits and deadwood costs of a round under ``rules``."""
    m = rules.max_wilds_per_meld
    pt = rules.penalty_table(wild_rank)
    return Context(
        pt=pt,
        cost=tuple(v * SCALE + 1 for v in pt),
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
    """``(naturals, wild-rank cards, number of printed jokers)`` of ``cards``."""
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
    """The kinds the cards (already ``split``) form as one meld under ``ctx``."""
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


def can_lay_off(
    table_meld: Sequence[int], cards: Sequence[int], wild_rank: int | None, rules: Rules
) -> bool:
    """Whether ``cards`` may be laid off onto ``table_meld``: the union is one valid meld.

    The union may be read as another kind than the table meld alone (a run of one
    rank's wilds may become a set): only the meld as it then lies must be valid.
    """
    return bool(cards) and bool(meld_kinds([*table_meld, *cards], wild_rank, rules))
