"""A cheap lower bound on how many cards of a hand stay unmelded.

Why: after every draw, ``legal_actions`` must say whether the hand can go out,
and on most hands the answer is plainly "no". The exact answer needs the
solver's full search (about half a millisecond on 14 cards); this bound needs a
few microseconds and settles most hands: going out means discarding one card
and melding every other, so a hand with at least two cards that can never be
melded cannot go out.

The bound solves a *relaxed* game, so it never overstates: every wild (a printed
joker or a card of the wild rank) may stand for any card in any meld, there is
no limit on wilds per meld and no minimum of naturals, sets take any cards of
one rank, and runs may wrap around the ace. Whatever a real arrangement melds,
the relaxed game melds too.

In the relaxed game, call two naturals *partners* when they could sit in one
meld next to each other: the same rank (a set), or the same suit with at most
``wilds`` ranks between them (a run whose gap the wilds fill). Every meld's
naturals then lie in one connected group of partners. A natural with no partner
needs a meld of its own with two wilds; a group of exactly two needs at least
one wild to meld both, and two to meld one. Groups of three or more are assumed
to meld for free. Spending the wilds where they save the most (one wild per
pair saves two cards, two wilds per loner save one) gives the bound.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .melds import split

__all__ = ["deadwood_lower_bound", "may_go_out"]


def deadwood_lower_bound(hand: Sequence[int], wild_rank: int | None) -> int:
    """At most this many fewer cards than the hand can ever be melded (see the module)."""
    return _lower_bound(*_naturals_and_wilds(hand, wild_rank))


def _naturals_and_wilds(hand: Sequence[int], wild_rank: int | None) -> tuple[list[int], int]:
    """The naturals, sorted, and how many wilds (jokers and wild-rank cards) the hand has:
    in the relaxed game a wild-rank card is always a wild."""
    naturals, wild_rank_cards, jokers = split(hand, wild_rank)
    return sorted(naturals), len(wild_rank_cards) + jokers


def _lower_bound(naturals: list[int], wilds: int) -> int:
    n = len(naturals)
    reach = wilds + 1  # the farthest apart two run neighbours can be
    group = list(range(n))

    def root(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    for i in range(n):
        a = naturals[i]
        rank_a, suit_a = a % 13, a // 13
        for j in range(i + 1, n):
            b = naturals[j]
            rank_b = b % 13
            if rank_a != rank_b:
                if suit_a != b // 13:
                    continue
                gap = (rank_a - rank_b) % 13
                if min(gap, 13 - gap) > reach:
                    continue
            ri, rj = root(i), root(j)
            if ri != rj:
                group[ri] = rj
    sizes: dict[int, int] = {}
    for i in range(n):
        r = root(i)
        sizes[r] = sizes.get(r, 0) + 1
    loners = sum(1 for size in sizes.values() if size == 1)
    pairs = sum(1 for size in sizes.values() if size == 2)
    on_pairs = min(wilds, pairs)
    saved = 2 * on_pairs + min(loners, (wilds - on_pairs) // 2)
    return loners + 2 * pairs - saved


def may_go_out(hand: Sequence[int], wild_rank: int | None) -> bool:
    """``False`` only when no discard can leave the rest of ``hand`` entirely melded.

    First the group bound above; when it cannot decide, an exact search of the
    same relaxed game asks whether at most one natural can stay unmelded (going
    out leaves one card, the discard; a discarded wild only makes it easier).
    Leftover wilds cost nothing in the relaxed game (they could join a set, which
    has no size limit). ``True`` means "ask the solver", not "yes".
    """
    naturals, wilds = _naturals_and_wilds(hand, wild_rank)
    if _lower_bound(naturals, wilds) >= 2:
        return False
    if len(hand) > MAX_SEARCHED_HAND or wilds > MAX_SEARCHED_WILDS:
        return True
    try:
        return _meldable(tuple(naturals), wilds, 1, {})
    except _GaveUp:
        return True


#: The relaxed search is for hands of a round (up to 14 cards after the draw) with a
#: few wilds; larger hands, hands rich in wilds (which mostly can go out anyway) and
#: searches past MAX_STATES states are left to the solver undecided.
MAX_SEARCHED_HAND = 15
MAX_SEARCHED_WILDS = 4
MAX_STATES = 200


class _GaveUp(Exception):
    """The relaxed search grew past MAX_STATES: the solver decides instead."""


def _meldable(
    pool: tuple[int, ...], wilds: int, spare: int, memo: dict[tuple[tuple[int, ...], int, int], bool]
) -> bool:
    """Whether ``pool`` (sorted naturals) melds with ``wilds`` wilds, leaving at most
    ``spare`` naturals out, in the relaxed game. Lowest card first: it is left out,
    or it is in a set, or it is in a run; every such meld is tried."""
    if len(pool) <= spare:
        return True
    key = (pool, wilds, spare)
    found = memo.get(key)
    if found is not None:
        return found
    if len(memo) >= MAX_STATES:
        raise _GaveUp
    first, rest = pool[0], pool[1:]
    rank, suit = first % 13, first // 13
    result = spare > 0 and _meldable(rest, wilds, spare - 1, memo)
    if not result:
        result = any(
            _meldable(remaining, wilds - need, spare, memo)
            for remaining, need in _melds_of_first(first, rest, rank, suit, wilds)
        )
    memo[key] = result
    return result


def _melds_of_first(
    first: int, rest: tuple[int, ...], rank: int, suit: int, wilds: int
) -> list[tuple[tuple[int, ...], int]]:
    """Every relaxed meld holding ``first``: what remains of ``rest`` and the wilds it
    needs. Sets take any cards of the rank; runs are arcs of the suit's 13 ranks
    (wrapping, so every aces rule is included), each rank once, wilds in the gaps."""
    out: list[tuple[tuple[int, ...], int]] = []
    same = [i for i, c in enumerate(rest) if c % 13 == rank]
    seen: set[tuple[int, ...]] = set()
    for mask in range(1 << len(same)):
        taken = [same[k] for k in range(len(same)) if mask >> k & 1]
        need = max(0, 2 - len(taken))
        if need > wilds:
            continue
        cards = tuple(rest[i] for i in taken)
        if cards in seen:
            continue
        seen.add(cards)
        out.append((_without(rest, taken), need))
    # runs: arcs of the suit's ranks through the first card, as one chain of other
    # ranks going up from it and one going down (around the ace), gaps paid in wilds
    index_at: dict[int, int] = {}  # offset above the first rank (1..12) -> index in rest
    for i, c in enumerate(rest):
        if c // 13 == suit and c % 13 != rank:
            index_at.setdefault((c % 13 - rank) % 13, i)
    offsets = sorted(index_at)
    ups = list(_chains(offsets, wilds))
    downs = list(_chains([13 - d for d in reversed(offsets)], wilds))
    for up, up_top, up_gaps in ups:
        for down, down_top, down_gaps in downs:
            span = up_top + down_top + 1
            if not down or (span <= 13 and up_top < 13 - down_top):
                need = up_gaps + down_gaps + max(0, 3 - span)
                if (up or down) and need <= wilds:
                    chosen = [index_at[d] for d in up] + [index_at[13 - e] for e in down]
                    out.append((_without(rest, chosen), need))
    # a run of the first card alone with two wilds (any position)
    if wilds >= 2:
        out.append((rest, 2))
    return out


def _chains(offsets: list[int], wilds: int) -> Iterator[tuple[list[int], int, int]]:
    """Every chain of ``offsets`` (ascending, from 0) whose skipped positions cost at most
    ``wilds``: (chosen offsets, the last one, positions skipped), the empty chain first."""
    stack: list[tuple[list[int], int, int, int]] = [([], 0, 0, 0)]
    while stack:
        chosen, top, gaps, start = stack.pop()
        yield chosen, top, gaps
        for k in range(start, len(offsets)):
            d = offsets[k]
            cost = gaps + d - top - 1
            if cost > wilds:
                break
            stack.append(([*chosen, d], d, cost, k + 1))


def _without(pool: tuple[int, ...], indices: list[int]) -> tuple[int, ...]:
    drop = set(indices)
    return tuple(c for i, c in enumerate(pool) if i not in drop)
