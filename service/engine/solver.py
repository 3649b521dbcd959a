"""The optimal meld solver: the exact minimum-deadwood arrangement of a hand.

It decides every score, the going-out test and the legal ``go_out`` actions, and it
is what ``POST /v1/solve`` serves. Public: :func:`analyze`, :func:`solve`,
:func:`meld_kinds`.

Algorithm
---------
Cards are split into *naturals* (not of the wild rank), *wild-rank cards* and
printed jokers. Jokers and wild-rank cards form the wild pool; when a wild limit is
in force (``max_wilds_per_meld`` or ``min_naturals_per_meld``) a wild-rank card may
also stand for itself inside a meld, so it then takes part as a natural too.

1. *Forced deadwood.* A natural that belongs to no meld of the whole hand (no
   partner within reach and too few wilds) is deadwood in every arrangement of the
   hand and of every part of it: it is set aside. Random hands keep a core of a few
   cards.
2. *Group search* (``group_search``). A memoised search takes the lowest remaining
   natural (by rank, then suit) and tries every way to dispose of it: deadwood, or
   the lowest natural of a group (a set of its rank, a run of its suit, a lay-off
   onto one table meld) taking exactly the wilds it needs. A group's spare room for
   more wilds is summed into a capacity; when no natural is left, ``wildpool``
   places the pool: into that room, into melds of its own, the rest into deadwood,
   cheapest first. The state is ``(remaining multiset, wild balance, capacity, used
   table melds, contract counts needed)``; the multiset is one integer of 6-bit
   counts with guard bits, so removing a group is one subtraction. Without wild
   limits, spare room beyond two is the same state (two leftover wilds fit in any
   room of two, three or more meld on their own).
3. *Every discard in the same search.* Each state also returns, for each kind of
   card, the cost of the state without one such card: the options of ``S - c`` are
   the options of ``S`` that leave a copy of ``c`` behind. So the penalty of the
   hand without each card, and thus the go-out discards, cost no extra search; a
   go-out arrangement is read back from the memo. That vector is one integer as
   well (a field per card kind), merged by an element-wise minimum of a few integer
   operations (SWAR).
4. *What is minimised* is ``penalty * 64 + deadwood cards``, so going out means no
   deadwood card at all (cards worth 0 included), and among equal penalties the
   arrangement with fewer deadwood cards wins.

Pruning that keeps it exact: a run never leaves out an available natural of a
position it spans unless it is long enough that its spare room could be full, or
the natural is held once (then the hand without it needs that run); likewise a set
that takes a wild never leaves out two or more cards of its rank it could take. By
an exchange argument (swap the natural in, its other meld takes the wild) nothing
is lost. A state whose cost and every per-card cost reach 0 stops trying options;
without wild limits a state holding more than two wilds per natural is all 0 at
once (each natural takes two wilds in a set, the rest meld or fill room).

Constant factors: the multiset's slots are the same for every hand (a natural's
slot is its place in the search order, the wild-rank cards take four more), so a
group removes the same integer from every hand. The group enumerations (which sets
and runs a card can start, given the cards of its rank and the cards of its suit
within a run's reach) are therefore shared by all hands under the same rules (and
wild rank, under wild limits) as they are, in bounded caches: per part, and per
whole neighbourhood of a card in the form the search loop reads; so are the wild
pool's placements of hands with no table meld. The cyclic garbage collector is
paused while a search runs (it allocates no cycles, and on a large heap the
collections it triggered cost more than the search).

Complexity: exponential in the worst case (the problem generalises exact cover),
bounded in practice by the memo: the states are sub-multisets reachable by removing
whole groups lowest card first, times the wild balance and capacity (at most
``(wilds + 1)^2`` pairs; ``3 (wilds + 1)`` without wild limits). ``make bench-solve`` measures it: random 14-card hands take
under half a millisecond, random 30-card hands a few milliseconds (tens at worst,
with six or more wilds), and the inputs built to run it away (30 wilds, 30 cards
of one suit, 8 identical cards) at most a few tens of milliseconds.

Tie-break
---------
Among optimal arrangements (equal penalty and equal number of deadwood cards) the
search keeps, for the lowest card, the first option that reaches the minimum in its
fixed order (deadwood, then runs, then sets, each larger first, then lay-offs), and
the read-back follows the same order; so the result depends only on the hand as a
multiset, never on the order the cards were given in.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from .arrangement import Analysis, Arrangement
from .cards import JOKER, rank_of, suit_of
from .errors import InvalidInputError
from .group_search import SLOT, GroupSearch
from .melds import INF, SCALE, Context, TableMeld, context, meld_kinds, split
from .rules import Rules

__all__ = ["MAX_HAND", "analyze", "meld_kinds", "solve"]

MAX_HAND = 30

#: The search order of the naturals: by rank, then suit.


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
        ids = sorted(set(naturals), key=SLOT.__getitem__)
        probe = None
        if table or ctx.min_nat > 1:
            probe = GroupSearch(ctx, ids, jokers, len(wrc), table, contract)
            meldable = probe.meldable(probe.decode(probe.start(naturals, wrc)))
        else:
            meldable = _meldable_fast(ctx, naturals, wrc, jokers)
        self.forced = sorted(c for c in naturals if c not in meldable)
        self.forced_cost = sum(ctx.cost[c] for c in self.forced)
        self.naturals = [c for c in naturals if c in meldable]
        core = [c for c in ids if c in meldable]
        if probe is not None and len(core) == len(ids):
            self.search = probe
        else:
            self.search = GroupSearch(ctx, core, jokers, len(wrc), table, contract)

    def state(self) -> tuple:
        need = (0, 0) if self.contract is None else self.contract
        return (self.search.start(self.naturals, self.wrc), self.jokers, 0, 0, need)

    def best(self, state: tuple) -> tuple[int, list[int]]:
        return self.search.best(*state)

    def slot(self, card: int) -> int | None:
        """The card's field in the search's ``without`` vectors, or None for forced deadwood."""
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
    if ctx.aces != "wrap":
        return _meldable_windows(ctx, naturals, wrc, lim)
    # wrapping aces: positions on a circle of 13
    by_rank: dict[int, int] = {}
    by_suit: dict[int, set[int]] = {0: set(), 1: set(), 2: set(), 3: set()}
    for c in naturals:
        by_rank[rank_of(c)] = by_rank.get(rank_of(c), 0) + 1
        by_suit[suit_of(c)].update(ctx.positions(rank_of(c)))
    if ctx.limits and ctx.wild_rank is not None:
        for c in wrc:
            by_suit[suit_of(c)].update(ctx.positions(ctx.wild_rank))
    by_suit = {k: {(p - 1) % 13 for p in v} for k, v in by_suit.items()}
    found: set[int] = set()
    for c in set(naturals):
        r = rank_of(c)
        if by_rank[r] + lim >= 3:
            found.add(c)
            continue
        have = by_suit[suit_of(c)]
        for p0 in ctx.positions(r):
            p0 = (p0 - 1) % 13
            if any(sum(1 for q in range(lo, lo + 3) if q % 13 not in have) <= lim
                   for lo in (p0 - 2, p0 - 1, p0)):
                found.add(c)
                break
    return found


def _meldable_windows(ctx: Context, naturals: list[int], wrc: list[int], lim: int) -> set[int]:
    """``_meldable_fast`` without wrapping aces: the positions held in a suit as bits."""
    per_rank = [0] * 13
    bits = [0, 0, 0, 0]
    positions = ctx.positions
    pos_bits = _POSITION_BITS.get(ctx.aces)
    if pos_bits is None:
        pos_bits = [sum(1 << p for p in positions(r + 1)) for r in range(13)]
        _POSITION_BITS[ctx.aces] = pos_bits
    for c in naturals:
        r = c % 13
        per_rank[r] += 1
        bits[c // 13] |= pos_bits[r]
    if ctx.limits and ctx.wild_rank is not None:
        for c in wrc:
            bits[c // 13] |= pos_bits[ctx.wild_rank - 1]
    need = 3 - lim  # naturals a set needs, and positions a three-card window must hold
    lo, hi = ctx.lo, ctx.hi
    found: set[int] = set()
    for c in set(naturals):
        r = c % 13
        if per_rank[r] >= need:
            found.add(c)
            continue
        have = bits[c // 13]
        for p0 in positions(r + 1):
            for w in (p0 - 2, p0 - 1, p0):
                if lo <= w and w + 2 <= hi and (have >> w & 7).bit_count() >= need:
                    found.add(c)
                    break
    return found


#: Per ace rule, each rank's run positions as bits (filled on first use).
_POSITION_BITS: dict[str, list[int]] = {}


def _check_hand(hand: Sequence[int]) -> None:
    if len(hand) > MAX_HAND:
        raise InvalidInputError(f"a hand has at most {MAX_HAND} cards, not {len(hand)}")


def _prepare_table(ctx: Context, table: Sequence[Sequence[int]]) -> list[TableMeld]:
    if not ctx.lay_off or not table:
        return []
    melds = [TableMeld(ctx, m) for m in table]
    return [m if m.valid else TableMeld(ctx, ()) for m in melds]


def _without(cards: Sequence[int], card: int) -> list[int]:
    out = list(cards)
    out.remove(card)
    return out


@contextmanager
def _no_gc() -> Iterator[None]:
    """The cyclic garbage collector paused while a search runs.

    A search allocates many small tuples and no reference cycles (its memo is freed by
    reference counting when it returns), but the allocations trigger collections that
    walk the whole heap of the process: with a large heap that cost more than the
    search itself. Nesting and threads are safe: only the outermost caller that found
    the collector enabled enables it again.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def solve(
    hand: Sequence[int],
    wild_rank: int | None,
    rules: Rules,
    table: Sequence[Sequence[int]] = (),
) -> Arrangement:
    """The optimal arrangement of ``hand`` (lay-offs onto ``table`` when ``rules.lay_off``)."""
    _check_hand(hand)
    with _no_gc():
        return _solve(hand, wild_rank, rules, table)


def _solve(hand, wild_rank, rules, table) -> Arrangement:
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
    # ``_no_gc`` inlined: a generator context manager costs about 2 us, 1% of a solve
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _analyze(hand, wild_rank, rules, table, contract)
    finally:
        if enabled:
            gc.enable()


def _analyze(hand, wild_rank, rules, table, contract) -> Analysis:
    ctx = context(rules, wild_rank)
    tmelds = _prepare_table(ctx, table)
    problem = _Problem(ctx, hand, tmelds, None)
    state = problem.state()
    value, without = problem.best(state)
    best = problem.arrangement(state)
    base = value + problem.forced_cost

    # costs are penalty * SCALE + deadwood cards (see melds.Context): cost 0 = all melded
    costs: dict[int, int] = {}
    search = problem.search
    index, n, wr = search.index, search.n, ctx.wild_rank
    fw, fmask, finf, forced_cost = search.fw, search.fmask, search.finf, problem.forced_cost
    for card in set(hand):
        # ``problem.slot`` and ``search.entry``, inlined
        if card == JOKER:
            slot = n + 4
        elif card % 13 + 1 == wr:
            slot = n + card // 13
        else:
            slot = index.get(card)
            if slot is None:  # forced deadwood: the rest is unchanged
                costs[card] = base - ctx.cost[card]
                continue
        v = (without >> fw * slot) & fmask
        costs[card] = (INF if v >= finf else v) + forced_cost
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
