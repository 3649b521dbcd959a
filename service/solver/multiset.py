"""The cards left in a search state as one integer: a 6-bit field per slot.

Why: the search memoises on the multiset of cards still to place and removes whole
groups of cards at a time. One integer is a cheap, hashable memo key, removing a
group is one subtraction, and ``fits`` tells in one mask whether the group's cards
were all there.

Slots are the same for every hand. A natural's slot is its place in the search
order, rank then suit (``rank_index * 4 + suit``, 0..51); the wild-rank cards of
each suit take slots 52..55 (``WILD_RANK_SLOT + suit``). Each field holds
``count + 32``: the 32 is a guard bit that a subtraction borrowing from the field
clears.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = [
    "CARD",
    "GUARD",
    "NATURAL_SLOTS",
    "ONE",
    "SLOT",
    "SLOTS",
    "WILD_RANK_SLOT",
    "count",
    "counts",
    "delta",
    "fits",
    "from_counts",
    "lowest_natural",
    "natural_count",
    "wild_rank_count",
]

NATURAL_SLOTS = 52
WILD_RANK_SLOT = NATURAL_SLOTS
SLOTS = NATURAL_SLOTS + 4
_BITS = 6
_BIAS = 32

#: card (0..51) -> its natural slot, and natural slot -> card
SLOT: tuple[int, ...] = tuple((c % 13) * 4 + c // 13 for c in range(52))
CARD: tuple[int, ...] = tuple(sorted(range(52), key=SLOT.__getitem__))
#: a slot's 1 in the integer form
ONE: tuple[int, ...] = tuple(1 << _BITS * j for j in range(SLOTS))
#: the guard bits of every slot: also the integer of the empty multiset
GUARD = _BIAS * sum(ONE)
_NATURAL_COUNTS = (_BIAS - 1) * sum(ONE[:NATURAL_SLOTS])
_FIELD = (1 << _BITS) - 1


def from_counts(per_slot: Sequence[int]) -> int:
    """The integer of a count per slot (``SLOTS`` counts, or fewer: the rest are 0)."""
    return GUARD + sum(n << _BITS * j for j, n in enumerate(per_slot))


_SHIFTS = tuple(_BITS * j for j in range(SLOTS))


def counts(x: int) -> tuple[int, ...]:
    """The count of every slot, ``from_counts`` read back."""
    return tuple([(x >> shift & _FIELD) - _BIAS for shift in _SHIFTS])


def count(x: int, slot: int) -> int:
    return ((x >> _BITS * slot) & _FIELD) - _BIAS


def delta(slots: Iterable[int]) -> int:
    """What to subtract to remove one card of each listed slot (repeats count twice)."""
    return sum(ONE[j] for j in slots)


def fits(x: int) -> bool:
    """Whether ``x`` came from subtracting cards that were all held (no guard borrowed)."""
    return x & GUARD == GUARD


def lowest_natural(x: int) -> int:
    """The lowest natural slot still held, or ``NATURAL_SLOTS`` when none is."""
    held = (x ^ GUARD) & _NATURAL_COUNTS
    if not held:
        return NATURAL_SLOTS
    return ((held & -held).bit_length() - 1) // _BITS


#: multiplying the natural counts by this sums them into the field of the last natural slot
_SUM_NATURALS = sum(ONE[:NATURAL_SLOTS])
_TOP = _BITS * (NATURAL_SLOTS - 1)


def natural_count(x: int) -> int:
    """How many naturals are held (at most 63: a hand has at most 30 cards)."""
    return (((x ^ GUARD) & _NATURAL_COUNTS) * _SUM_NATURALS >> _TOP) & _FIELD


def wild_rank_count(x: int) -> int:
    """How many wild-rank cards are held (the four fields from ``WILD_RANK_SLOT``)."""
    v = x >> _BITS * WILD_RANK_SLOT
    return sum(v >> _BITS * s & _FIELD for s in range(4)) - 4 * _BIAS
