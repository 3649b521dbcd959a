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

from collections.abc import Sequence

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
    """``False`` only when no discard can leave the rest of ``hand`` entirely melded: at
    least two cards can never be melded (going out leaves one card, the discard).
    ``True`` means "ask the solver", not "yes". (``going_out`` answers the hands of a
    round exactly; this bound is what is left for the hands it leaves to the solver.)"""
    return deadwood_lower_bound(hand, wild_rank) < 2
