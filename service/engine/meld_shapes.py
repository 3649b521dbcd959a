"""The melds a hand's naturals can make, enumerated once per shape and shared by every hand.

Why: the going-out search (``going_out``) needs, for the lowest natural left, every
meld it can start, and its bound needs each natural's cheapest meld. Enumerating
them per hand cost more than the search itself, but they depend on little: the
runs of a suit only on which ranks of the suit are held (with the wilds and the
aces rule), the sets of a rank only on how many of each suit are held. Both are
cached under that shape, and shared by every hand and every suit or rank.

Rules without wild limits are assumed (see ``going_out``): a meld is a set or a run
of naturals with exactly the wilds that make it valid.
"""

from __future__ import annotations

from itertools import combinations, product

from .memo import Memo

__all__ = ["SCALE", "UNMELDABLE", "run_shape", "set_cover", "sets_by_low", "spread"]

#: (the integer that removes its naturals, wilds needed)
Meld = tuple[int, int]
#: (rank mask, wilds needed, mask of the held ranks it puts a wild in place of)
Run = tuple[int, int, int]
RunShape = tuple[dict[int, list[Run]], tuple[int, ...]]

#: The fixed-point unit of the covers: divisible by every meld size up to 14.
SCALE = 360360
#: The cover of a natural that is in no meld at all.
UNMELDABLE = 1 << 40

#: Bounded caches (cleared when full): a shape's enumeration is a few dozen melds.
_RUN_SHAPES: Memo[tuple[str, int, int], RunShape] = Memo(50_000)
_SETS: Memo[tuple[tuple[int, ...], int, int], dict[int, list[Meld]]] = Memo(50_000)
_SPREADS: dict[int, list[int]] = {}

#: Per aces rule, the run positions of each rank index 0..12 (ace first).
_POSITIONS: dict[str, list[tuple[int, ...]]] = {
    "low": [(r,) for r in range(1, 14)],
    "high": [(14,)] + [(r,) for r in range(2, 14)],
    "both": [(1, 14)] + [(r,) for r in range(2, 14)],
    "wrap": [(r,) for r in range(1, 14)],
}


def run_shape(aces: str, held: int, wilds: int) -> RunShape:
    """The runs of two or more naturals of a suit whose held ranks are the 13-bit mask
    ``held``: by the rank index of their lowest card, each as (rank mask, wilds needed,
    held ranks it skips), larger first; and per rank index its *cover*, the
    fewest wilds per natural (times ``SCALE``) of such a run through it, or
    ``UNMELDABLE``."""
    key = (aces, held, wilds)
    found = _RUN_SHAPES.get(key)
    if found is None:
        found = _run_shape(aces, held, wilds)
        _RUN_SHAPES.put(key, found)
    return found


def spread(width: int) -> list[int]:
    """Per 13-bit rank mask, the search integer of those ranks in suit 0 (a field of
    ``width`` bits per card, rank then suit): shift it by ``width * suit``."""
    table = _SPREADS.get(width)
    if table is None:
        table = [0] * (1 << 13)
        for mask in range(1, 1 << 13):
            low = mask & -mask
            table[mask] = table[mask ^ low] | 1 << width * 4 * (low.bit_length() - 1)
        _SPREADS[width] = table
    return table


def set_cover(held: int, wilds: int) -> int:
    """The fewest wilds per natural (times ``SCALE``) of a set through a natural of a rank
    of which ``held`` cards are held: three or more meld for free."""
    if held >= 3:
        return 0
    need = 3 - held
    return need * SCALE // held if need <= wilds else UNMELDABLE


def sets_by_low(counts: tuple[int, ...], wilds: int, width: int) -> dict[int, list[Meld]]:
    """The sets of a rank given how many of each suit are held, by the suit of their
    lowest card, each delta for rank index 0 (shift it by ``width * 4 * rank``).

    One to five naturals with the wilds that make three: a set of six or more splits
    into two sets, so it is never needed.
    """
    key = (counts, wilds, width)
    found = _SETS.get(key)
    if found is None:
        found = {}
        for take in product(*(range(c + 1) for c in counts)):
            t = sum(take)
            if t == 0 or t > 5 or 3 - t > wilds:
                continue
            delta = sum(a << width * s for s, a in enumerate(take))
            low = next(s for s, a in enumerate(take) if a)
            found.setdefault(low, []).append((delta, max(0, 3 - t)))
        for melds in found.values():
            melds.sort(key=lambda m: -sum(m[0] >> width * s & ((1 << width) - 1) for s in range(4)))
        _SETS.put(key, found)
    return found


def _run_shape(aces: str, held: int, wilds: int) -> RunShape:
    """Every window of run positions with held naturals at both ends that the wilds can
    fill, with every choice of the held naturals inside it (a wild each one skipped)."""
    points = sorted((p, r) for r in range(13) if held >> r & 1 for p in _POSITIONS[aces][r])
    wrap = aces == "wrap"
    if wrap:
        points += [(p + 13, r) for p, r in points]
    # (rank mask, held ranks skipped) -> wilds needed; of two windows with the same
    # cards (around the ace) the shorter needs fewer wilds, the rest fill its room
    found: dict[tuple[int, int], int] = {}
    cover = [UNMELDABLE] * 13
    count = len(points)
    for i in range(count):
        a, ra = points[i]
        if wrap and a > 13:
            break
        inside: list[int] = []  # the rank bits strictly inside the window
        mask = 1 << ra
        for j in range(i + 1, count):
            b, rb = points[j]
            span = b - a + 1
            if span > 13 or span - 2 - len(inside) > wilds:
                break
            base = max(span, 3) - 2 - len(inside)  # wilds when every inside natural is in
            if base <= wilds:
                full = mask | 1 << rb
                if base < found.get((full, 0), 14):
                    found[(full, 0)] = base
                # the cover: a run that skips naturals pays more wilds for fewer of them
                per = base * SCALE // (len(inside) + 2)
                for r in (ra, rb, *(bit.bit_length() - 1 for bit in inside)):
                    if per < cover[r]:
                        cover[r] = per
                for skip in range(1, min(wilds - base, len(inside)) + 1):
                    need = base + skip
                    for left in combinations(inside, skip):
                        skipped = sum(left)
                        key = (full ^ skipped, skipped)
                        if need < found.get(key, 14):
                            found[key] = need
            bit = 1 << rb
            inside.append(bit)
            mask |= bit
    by_low: dict[int, list[Run]] = {}
    for (mask, skipped), need in sorted(found.items(), key=lambda m: -m[0][0].bit_count()):
        by_low.setdefault((mask & -mask).bit_length() - 1, []).append((mask, need, skipped))
    return by_low, tuple(cover)
