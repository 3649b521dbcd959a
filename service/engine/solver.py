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

from .arrangement import Analysis, Arrangement
from .cards import JOKER, rank_of, suit_of
from .group_search import GroupSearch
from .melds import SCALE, Context, TableMeld, context, meld_kinds, split
from .rank_dp import RankDP
from .rules import Rules

__all__ = ["MAX_HAND", "analyze", "meld_kinds", "solve"]

MAX_HAND = 30


#: Which search serves a hand: "auto" picks by size; tests force either one.
SEARCH = "auto"


def _use_rank_dp(ctx: Context, table: list[TableMeld], naturals: list[int]) -> bool:
    if table or ctx.aces == "wrap":
        return False
    return SEARCH == "rank"


class _Problem:
    """A hand prepared for searching.

    Naturals that cannot belong to any group of the whole hand are *forced deadwood*:
    they are deadwood in every arrangement of the hand and of every part of it, so they
    are set aside before the search and only added back to the results.
    """

    def __init__(
        self,
        ctx: Context,
        hand: Sequence[int],
        table: list[TableMeld],
        contract: tuple[int, int] | None,
    ) -> None:
        self.ctx = ctx
        naturals, wrc, jokers = split(hand, ctx.wild_rank)
        self.wrc = sorted(wrc)
        self.jokers = jokers
        self.table = table
        self.contract = contract
        ids = sorted(set(naturals), key=lambda c: (rank_of(c), suit_of(c)))
        probe = None
        if table or ctx.min_nat > 1:
            probe = GroupSearch(ctx, ids, jokers, len(wrc), table, contract)
            meldable = probe.meldable(self._counts(probe, naturals, wrc))
        else:
            meldable = _meldable_fast(ctx, naturals, wrc, jokers)
        self.forced = sorted(c for c in naturals if c not in meldable)
        self.forced_cost = sum(ctx.cost[c] for c in self.forced)
        self.naturals = [c for c in naturals if c in meldable]
        core = [c for c in ids if c in meldable]
        self.search: GroupSearch | RankDP
        if _use_rank_dp(ctx, table, self.naturals):
            self.search = RankDP(ctx, self.naturals, self.wrc, jokers, contract)
        elif probe is not None and len(core) == len(ids):
            self.search = probe
        else:
            self.search = GroupSearch(ctx, core, jokers, len(wrc), table, contract)

    @staticmethod
    def _counts(
        search: GroupSearch, naturals: Iterable[int], wrc: Iterable[int]
    ) -> tuple[int, ...]:
        cnt = [0] * (search.n + 4)
        for c in naturals:
            cnt[search.index[c]] += 1
        for c in wrc:
            cnt[search.n + suit_of(c)] += 1
        return tuple(cnt)

    def state(self) -> tuple:
        need = (0, 0) if self.contract is None else self.contract
        s = self.search
        if isinstance(s, RankDP):
            return s.initial(need)
        return (self._counts(s, self.naturals, self.wrc), self.jokers, 0, 0, need)

    def best(self, state: tuple) -> tuple[int, list[int]]:
        s = self.search
        return s.best(state) if isinstance(s, RankDP) else s.best(*state)

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
        return Arrangement(
            a.melds, deadwood, a.penalty + sum(self.ctx.pt[c] for c in forced), a.layoffs
        )


def _meldable_fast(ctx: Context, naturals: list[int], wrc: list[int], jokers: int) -> set[int]:
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


def _prepare_table(ctx: Context, table: Sequence[Sequence[int]]) -> list[TableMeld]:
    if not ctx.lay_off or not table:
        return []
    melds = [TableMeld(ctx, m) for m in table]
    return [m if m.valid else TableMeld(ctx, ()) for m in melds]


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
    ctx = context(rules, wild_rank)
    problem = _Problem(ctx, hand, _prepare_table(ctx, table), None)
    state = problem.state()
    problem.best(state)
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
    ``GroupSearch.best``). With a contract, the go-out candidates are checked by a
    contract-aware search.
    """
    _check_hand(hand)
    ctx = context(rules, wild_rank)
    tmelds = _prepare_table(ctx, table)
    problem = _Problem(ctx, hand, tmelds, None)
    state = problem.state()
    value, without = problem.best(state)
    best = problem.arrangement(state)
    base = value + problem.forced_cost

    # costs are penalty * SCALE + deadwood cards (see melds.Context): cost 0 = all melded
    costs: dict[int, int] = {}
    for card in set(hand):
        slot = problem.slot(card)
        if slot is None:  # forced deadwood: the rest is unchanged
            costs[card] = base - ctx.cost[card]
        else:
            costs[card] = without[slot] + problem.forced_cost
    discards = tuple(
        sorted(((c, v // SCALE) for c, v in costs.items()), key=lambda cv: (cv[1], cv[0]))
    )

    go_out: dict[int, Arrangement] = {}
    for card in sorted(c for c, v in costs.items() if v == 0):
        if contract is not None:
            cp = _Problem(ctx, _without(hand, card), tmelds, contract)
            cstate = cp.state()
            if cp.best(cstate)[0] + cp.forced_cost == 0:
                go_out[card] = cp.arrangement(cstate)
        else:
            go_out[card] = problem.arrangement(state, card)
    return Analysis(best=best, go_out=go_out, discards=discards)
