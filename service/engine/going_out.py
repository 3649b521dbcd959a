"""The go-out discards of a hand, by a feasibility search instead of the solver.

Why: after every draw ``legal_actions`` needs the cards whose discard leaves the rest
of the hand entirely melded. The solver (``solver.analyze``) answers that as a side
product of an optimisation over every arrangement, about half a millisecond on 14
cards. Asking only "which single card can stay out while everything else melds?" is
a far smaller question: most hands fail a cheap bound, and in the search a branch
dies as soon as a second card cannot be melded.

Exact for rules *without wild limits* (no ``max_wilds_per_meld``, no
``min_naturals_per_meld``) and without a contract: there jokers and wild-rank cards
are interchangeable wilds. Under other rules it is a relaxation (every meld of those
rules is a meld here, its wild-rank cards read as wilds; a contract only refuses
more), so an empty answer is exact there too and the caller confirms the rest.

The model, as the solver's: a meld is a set (naturals of one rank and any number of
wilds) or a run (naturals of one suit at distinct positions of the aces rule, gaps
and short ends filled by wilds, at most 13 cards). Going out leaves no card
unmelded. Wilds left over once every natural is placed never stand in the way when
some natural is melded: a set takes any number, a run of up to 11 cards takes two
more, and a run of 12 or 13 splits into two runs with room. Without a natural
melded, wilds meld alone when three or more.

1. *Cover bound.* In any arrangement a natural's meld spends its wilds on its
   naturals, so each natural costs at least its cheapest share (wilds / naturals)
   over the melds through it (``meld_shapes``). A natural may stay out only if the
   others' shares fit in the wilds, a wild only if all shares fit in one fewer.
2. *A wild out means every card.* If the hand without a wild melds, so does the hand
   without any natural: put the wild in that natural's place (without wild limits
   any meld stays valid). So that is asked first, and answers for every card.
3. *Search.* Otherwise a memoised depth-first search takes the lowest natural left
   (rank, then suit) and either leaves it out (once on a path, if the bound allows)
   or melds it with one of the melds it is lowest in, and returns the bitmask of the
   naturals that can stay out. The naturals are one integer (a field of counts per
   card under a guard bit, as in ``group_search``): a meld is one subtraction and
   ``z & guard == guard`` says it fitted. The state is ``(naturals, wilds)``.

Exact pruning: a run never skips (puts a wild in place of) a natural still left in
the state. Such a natural ends in a later meld, where a wild can take its place
while it joins the run (no meld changes size); were it the card left out, the hand
without a wild would meld (step 2 would have answered).
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import JOKER
from .group_search import SLOT
from .meld_shapes import SCALE, run_shape, set_cover, sets_by_low, spread

__all__ = ["MAX_CARDS", "MAX_WILDS", "go_out_discards"]

#: Hands with more wilds than this are left to the solver: the runs that skip a held
#: natural (a wild each) multiply with the wilds, and such hands are rare.
MAX_WILDS = 4
#: Likewise hands larger than a round's hand after the draw.
MAX_CARDS = 16


def go_out_discards(hand: Sequence[int], wild_rank: int | None, aces: str) -> frozenset[int] | None:
    """The cards whose discard leaves the rest of ``hand`` melded, without wild limits and
    without a contract (see the module); ``None`` when the hand is left to the solver."""
    is_wild = _IS_WILD.get(wild_rank, _IS_WILD[None])  # no card has a rank out of 1..13
    naturals = [c for c in hand if not is_wild[c]]
    wilds = len(hand) - len(naturals)
    if wilds > MAX_WILDS or len(hand) > MAX_CARDS:
        return None
    found = _discards(naturals, wilds, aces)
    if not found:
        return _NONE
    out = {c for c in hand if is_wild[c] or found >> SLOT[c] & 1}
    if not found >> _WILD_BIT & 1:
        out = {c for c in out if not is_wild[c]}
    return frozenset(out)


#: A natural's field in the search's integer is its solver slot (rank then suit,
#: ``group_search.SLOT``); the result bit that stands for "a wild stays out":
_WILD_BIT = 52
_EVERY_CARD = (1 << 53) - 1
_NONE: frozenset[int] = frozenset()
#: Per wild rank (or None), whether each card 0..52 is a wild.
_IS_WILD = {
    w: tuple(c == JOKER or c % 13 + 1 == w for c in range(JOKER + 1)) for w in (None, *range(1, 14))
}
#: Per wild count (up to MAX_WILDS), ``set_cover`` by the number held of a rank.
_SET_COVERS = [
    [0] + [set_cover(held, w) for held in range(1, MAX_CARDS + 1)] for w in range(MAX_WILDS + 1)
]


def _discards(naturals: Sequence[int], wilds: int, aces: str) -> int:
    """The search of the module: bit ``field`` for each natural that can stay out, bit
    ``_WILD_BIT`` when a wild can."""
    if len(naturals) < 2:
        # Nothing to meld a natural with but wilds, and wilds alone meld three or more.
        # (Once some natural is melded, leftover wilds always find room: a set takes
        # any number, and a run of 12 or 13 cards splits in two with room to spare.)
        if not naturals:
            return _EVERY_CARD if wilds == 1 or wilds >= 4 else 0
        if wilds >= 3:
            return _EVERY_CARD  # the natural with two wilds and the rest, or the wilds
        return 0 if wilds else 1 << SLOT[naturals[0]]
    counts: dict[int, int] = {}  # field -> copies held
    suits = [0, 0, 0, 0]  # per suit, the ranks held (13 bits)
    per_rank = [0] * 13
    for c in naturals:
        f = SLOT[c]
        counts[f] = counts.get(f, 0) + 1
        suits[f & 3] |= 1 << (f >> 2)
        per_rank[f >> 2] += 1
    # The cover bound: each natural pays at least its cheapest share of a meld's wilds.
    covers = [run_shape(aces, held, wilds)[1] if held else () for held in suits]
    by_set = _SET_COVERS[wilds]
    share: dict[int, int] = {}
    total = 0
    for f, n in counts.items():
        h = covers[f & 3][f >> 2]
        if by_set[per_rank[f >> 2]] < h:
            h = by_set[per_rank[f >> 2]]
        share[f] = h
        total += h * n
    budget = wilds * SCALE
    # a natural may stay out only if the others' shares fit in the wilds
    may_stay = 0
    for f, h in share.items():
        if total - h <= budget:
            may_stay |= 1 << f
    wild_may_stay = wilds and total <= budget - SCALE
    if not may_stay and not wild_may_stay:
        return 0
    width = max(counts.values()).bit_length() + 1
    top = 1 << (width - 1)
    guard = _GUARDS.get(width)
    if guard is None:
        guard = _GUARDS[width] = sum(top << width * f for f in range(52))
    start = guard
    for f, n in counts.items():
        start += n << width * f
    # the field of a state's lowest natural, from the lowest bit of its counts
    low_of = _LOW_OF.get(width)
    if low_of is None:
        low_of = _LOW_OF[width] = {
            1 << (width * f + b): f for f in range(52) for b in range(width - 1)
        }
    melds_of: dict[int, list[tuple[int, int, int]]] = {}
    ranks = spread(width)
    count_bits = top - 1

    def melds(f: int) -> list[tuple[int, int, int]]:
        """The melds whose lowest natural is field ``f`` as (delta, wilds needed, the
        count bits of the naturals it skips), filled on first use."""
        found = melds_of.get(f)
        if found is None:
            rank, suit = f >> 2, f & 3
            shift = width * suit
            found = [
                (ranks[mask] << shift, need, ranks[skipped] * count_bits << shift)
                for mask, need, skipped in run_shape(aces, suits[suit], wilds)[0].get(rank, ())
            ]
            shift = width * 4 * rank
            held = tuple(counts.get(rank * 4 + s, 0) for s in range(4))
            sets = sets_by_low(held, wilds, width)
            found += [(delta << shift, need, 0) for delta, need in sets.get(suit, ())]
            melds_of[f] = found
        return found

    memo0: dict[tuple[int, int], bool] = {}
    memo1: dict[tuple[int, int], int] = {}

    def fits(x: int, w: int) -> bool:
        """Whether the naturals ``x`` (some left) meld with ``w`` wilds."""
        key = (x, w)
        hit = memo0.get(key)
        if hit is not None:
            return hit
        y = x ^ guard
        result = False
        for delta, need, skips in melds(low_of[y & -y]):
            if need <= w and not x & skips:
                z = x - delta
                if z & guard == guard and (z == guard or fits(z, w - need)):
                    result = True
                    break
        memo0[key] = result
        return result

    def one_out(x: int, w: int) -> int:
        """The naturals of ``x`` (some left; a bit per field) that can stay out while
        the others meld with ``w`` wilds, some meld having been made already."""
        key = (x, w)
        hit = memo1.get(key)
        if hit is not None:
            return hit
        y = x ^ guard
        f = low_of[y & -y]
        result = 0
        if may_stay >> f & 1:
            z = x - (1 << width * f)
            if z == guard or fits(z, w):
                result = 1 << f
        for delta, need, skips in melds(f):
            if need <= w and not x & skips:
                z = x - delta
                if z & guard == guard and z != guard:
                    result |= one_out(z, w - need)
        memo1[key] = result
        return result

    if wild_may_stay and fits(start, wilds - 1):
        return _EVERY_CARD
    return one_out(start, wilds)


#: Per field width: the guard bits of all 52 fields, and the lowest-bit -> field table.
_GUARDS: dict[int, int] = {}
_LOW_OF: dict[int, dict[int, int]] = {}
