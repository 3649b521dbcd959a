"""The groups a search may take for its lowest natural: sets and runs, with their wilds.

A *group* is the part of a meld that the search commits to at once: the lowest
natural left, some higher naturals (and, under wild limits, wild-rank cards
standing for themselves), and exactly the wilds that make them a valid meld. A
group's spare room for more wilds is summed into the search's capacity; the wild
pool fills it at the end (``wildpool``). Limits come from the one meld model
(``service.core.melds.Context``).

Pruning that keeps the search exact (an exchange argument: swap a natural in for a
wild; the natural's other meld takes the wild, or, if it was deadwood, the freed
wild goes into this group's room):

* without wild limits a run never leaves out an available natural of a position it
  spans, unless it is long enough that its room could be full
  (``length + wilds held - its own wilds >= 13``), or leaves out one card held once
  (the hand without that card, for the discard analysis, needs the run as it is);
* likewise a set that takes a wild never leaves out two or more cards of its rank.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import product

from service.core.cards import rank_of
from service.core.melds import Context

from .budget import Budget
from .multiset import CARD, NATURAL_SLOTS, WILD_RANK_SLOT

__all__ = ["Group", "GroupMaker"]


@dataclass(frozen=True, slots=True)
class Group:
    """A chosen group: its cards, the wilds it needs, its kind and how to lay it out."""

    kind: str  # "set" | "run" | "layoff"
    naturals: tuple[int, ...]
    wilds: int
    spare: int
    layout: tuple[int | None, ...] = ()  # runs: the card at each position, None = a wild
    table: int = -1  # lay-offs: the index of the table meld


#: Per natural slot: the later slots of its rank, and the later slots of its suit.
SAME_RANK = tuple(tuple(range(i + 1, (i | 3) + 1)) for i in range(NATURAL_SLOTS))
LATER_OF_SUIT = tuple(tuple(range(i + 4, NATURAL_SLOTS, 4)) for i in range(NATURAL_SLOTS))

#: (group, the slots it removes)
Candidate = tuple[Group, tuple[int, ...]]

#: A way to pick run positions (``GroupMaker.chains``): (positions, gaps, far end,
#: candidates left out).
Chain = tuple[tuple[int, ...], int, int, tuple[int, ...]]


class GroupMaker:
    """Enumerates the groups of one search (its rules, wild pool size and contract)."""

    def __init__(self, ctx: Context, pool: int, contract: bool, budget: Budget) -> None:
        self.ctx = ctx
        self.budget = budget  # every candidate considered is a step
        self.pool = pool  # every wild the hand holds: jokers and wild-rank cards
        self.contract = contract
        self._chains: dict[tuple[tuple[int, ...], int, int], list[Chain]] = {}
        self._positions: dict[tuple[int, int], list[tuple[int, int]]] = {}

    def wild_rank_card(self, suit: int) -> int:
        return suit * 13 + (self.ctx.wild_rank or 1) - 1

    def sets(self, cnt: Sequence[int], i: int, budget: int) -> list[Candidate]:
        """Sets of slot i's rank through slot i (its lowest natural), larger first."""
        ctx = self.ctx
        others = [j for j in SAME_RANK[i] if cnt[j]]
        choices = [range(1, cnt[i] + 1)] + [range(0, cnt[j] + 1) for j in others]
        idx = [i, *others]
        held = cnt[i] + sum(cnt[j] for j in others)
        out: list[Candidate] = []
        for take in product(*choices):
            self.budget.spend(1)
            k = sum(take)
            wilds = max(0, 3 - k)
            if k < ctx.min_nat or wilds > ctx.max_wilds or wilds > budget:
                continue
            if wilds and held - k > 1 and not ctx.limits:
                continue  # leaves out two cards it could take instead of wilds
            slots = tuple(j for j, t in zip(idx, take, strict=True) for _ in range(t))
            naturals = tuple(CARD[j] for j in slots)
            out.append((Group("set", naturals, wilds, ctx.max_wilds - wilds), slots))
        return _larger_first(out)

    def run_candidates(self, cnt: Sequence[int], i: int, p0: int) -> dict[int, int]:
        """Positions (unrolled under wrapping aces) near ``p0`` where a card of slot i's
        suit is held, each with the slot of that card."""
        return {q: j for q, j in self._run_positions(i, p0) if cnt[j]}

    def reach(self, held: Callable[[int], int], i: int, budget: int) -> tuple[tuple[int, int], ...]:
        """What the runs through slot i depend on: the cards of its suit within reach,
        as ``(slot, 1 or 2 for held once or more)``.

        A position is within reach when the positions missing between it and slot i's
        are no more than the wilds a run may take (and it is at most 12 away); the
        enumeration never looks past the first one out of reach in each direction, so
        two states that differ only farther away have the same runs.
        """
        limit = min(budget, self.ctx.max_wilds)
        keep: set[int] = set()
        for p0 in self.ctx.positions(i // 4 + 1):
            avail = [(q, j) for q, j in self._run_positions(i, p0) if held(j)]
            for side in (avail, avail[::-1]):
                last, gaps = p0, 0
                for q, j in side:
                    if (q > p0) == (side is avail) and q != p0:
                        gaps += abs(q - last) - 1
                        if gaps > limit or abs(q - p0) > 12:
                            break
                        keep.add(j)
                        last = q
        return tuple(sorted((j, min(held(j), 2)) for j in keep))

    def _run_positions(self, i: int, p0: int) -> list[tuple[int, int]]:
        """Every (unrolled position, slot) that could join a run of slot i's suit at p0."""
        key = (i, p0)
        found = self._positions.get(key)
        if found is None:
            found = self._positions[key] = self._list_run_positions(i, p0)
        return found

    def _list_run_positions(self, i: int, p0: int) -> list[tuple[int, int]]:
        ctx = self.ctx
        suit = i & 3
        wrap = ctx.aces == "wrap"
        lo, hi = (p0 - 12, p0 + 12) if wrap else (max(ctx.lo, p0 - 12), min(ctx.hi, p0 + 12))

        def unrolled(p: int) -> tuple[int, ...]:
            return tuple(q for q in ((p - 13, p, p + 13) if wrap else (p,)) if lo <= q <= hi)

        out = [(q, j) for j in LATER_OF_SUIT[i] for p in ctx.positions(j // 4 + 1) for q in unrolled(p)]
        if ctx.limits and ctx.wild_rank is not None:
            # under wild limits a wild-rank card may stand for itself in a run of its suit
            for p in ctx.positions(ctx.wild_rank):
                out += [(q, WILD_RANK_SLOT + suit) for q in unrolled(p) if q != p0]
        out.sort()
        return out

    def runs(self, cnt: Sequence[int], i: int, budget: int) -> list[Candidate]:
        """Runs through slot i (its lowest natural), larger first."""
        ctx = self.ctx
        x = CARD[i]
        limit = min(budget, ctx.max_wilds)
        single_ok = self.contract  # else a one-natural run is no better than a set
        skips_need = -1 if ctx.limits else 13 - self.pool  # the least length that may skip
        out: list[Candidate] = []
        for p0 in ctx.positions(rank_of(x)):
            cand = self.run_candidates(cnt, i, p0)
            ups = tuple(sorted(q for q in cand if q > p0))
            downs = tuple(sorted((q for q in cand if q < p0), reverse=True))
            down_chains = self.chains(downs, p0, limit)
            for up, up_gaps, top, up_skip in self.chains(ups, p0, limit):
                self.budget.spend(len(down_chains))
                for down, down_gaps, bottom, down_skip in down_chains:
                    span = top - bottom + 1
                    k = 1 + len(up) + len(down)
                    if span > 13 or (k == 1 and not single_ok) or k < ctx.min_nat:
                        continue
                    pad = max(0, 3 - span)
                    wilds = up_gaps + down_gaps + pad
                    if wilds > limit:
                        continue
                    length = span + pad
                    skipped = up_skip + down_skip
                    if (
                        skipped
                        and length - wilds < skips_need
                        and (len(skipped) > 1 or cnt[cand[skipped[0]]] != 1)
                    ):
                        continue  # a short run that leaves out a natural: dominated
                    slots = (i, *(cand[q] for q in (*up, *down)))
                    if len(set(slots)) != len(slots):
                        continue
                    placed = {p0: x}
                    placed.update((q, self.card(cand[q])) for q in (*up, *down))
                    start, end = bottom, top
                    if pad:  # pad upward when the bounds allow, else downward
                        if ctx.aces == "wrap" or top + pad <= ctx.hi:
                            end = top + pad
                        else:
                            start = bottom - pad
                    layout = tuple(placed.get(q) for q in range(start, end + 1))
                    naturals = tuple(v for v in layout if v is not None)
                    spare = min(ctx.max_wilds - wilds, 13 - length)
                    out.append((Group("run", naturals, wilds, spare, layout), slots))
        return _larger_first(out)

    def card(self, slot: int) -> int:
        """The card of a slot (a wild-rank card for the four wild-rank slots)."""
        return CARD[slot] if slot < NATURAL_SLOTS else self.wild_rank_card(slot - WILD_RANK_SLOT)

    def chains(self, cands: tuple[int, ...], p0: int, limit: int) -> list[Chain]:
        """Every way to pick positions going away from p0 with at most ``limit`` gaps.

        Each chain is ``(positions, gaps, far end, candidates left out)``; the same
        candidate positions recur across states, so they are kept for this search.
        """
        key = (cands, p0, limit)
        hit = self._chains.get(key)
        if hit is not None:
            return hit
        result: list[Chain] = [((), 0, p0, ())]
        stack: list[tuple[tuple[int, ...], int, int, tuple[int, ...], int]] = [((), 0, p0, (), 0)]
        while stack:
            chosen, gaps, last, skipped, start = stack.pop()
            for k in range(start, len(cands)):
                q = cands[k]
                g = gaps + abs(q - last) - 1
                if g > limit or abs(q - p0) > 12:
                    break
                self.budget.spend(1)
                item = ((*chosen, q), g, q, skipped + cands[start:k])
                result.append(item)
                stack.append((*item, k + 1))
        self._chains[key] = result
        return result


def _larger_first(found: list[Candidate]) -> list[Candidate]:
    """Larger groups first (a stable sort): a state whose costs all reach 0 stops trying
    options, and large melds get there soonest. The order is also the tie-break."""
    return sorted(found, key=lambda candidate: -len(candidate[1]))
