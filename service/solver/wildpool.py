"""The wild pool: what happens to wilds once every natural is placed, and the layout.

After a search has disposed of every natural, the remaining jokers and wild-rank
cards are placed at best: into the spare room of the chosen melds, into melds of
their own, and the rest into deadwood, cheapest first. ``layout`` turns the
chosen groups and that plan into concrete melds of real cards.

Why a separate step: wilds are interchangeable for every meld they stand in, so the
search only counts them (a balance and a capacity) instead of branching on which
wild goes where; the placement is a small optimisation over counts, memoised per
search.
"""

from __future__ import annotations

from collections.abc import Sequence

from service.core.cards import JOKER, rank_of
from service.core.melds import Context

from .arrangement import Arrangement
from .budget import Budget
from .groups import Group
from .table import LayOffTarget

__all__ = ["INF", "LeftoverPlan", "WildPlan", "WildPool", "layout"]

#: A meld of wilds alone: (``"set"`` or ``"run"``, jokers, wild-rank cards).
WildMeld = tuple[str, int, int]
#: The melds the leftover wilds make, in order.
LeftoverPlan = tuple[WildMeld, ...]
#: (jokers into spare room, wild-rank cards into spare room, the leftover melds).
WildPlan = tuple[int, int, LeftoverPlan]

#: The cost of what cannot be done (a contract the wilds cannot meet).
INF = 1 << 40


class WildPool:
    """The placements of one search's wild pool (its rules and wild penalties)."""

    def __init__(self, ctx: Context, joker_cost: int, wild_rank_cost: int, budget: Budget) -> None:
        self.ctx = ctx
        self.budget = budget  # every placement tried is a step
        self.pj = joker_cost
        self.pw = wild_rank_cost
        self._leftover: dict[tuple[int, int, tuple[int, int]], tuple[int, LeftoverPlan]] = {}
        self._place: dict[tuple[int, int, int, tuple[int, int]], tuple[int, WildPlan | None]] = {}

    def leftover(self, x: int, y: int, need: tuple[int, int]) -> tuple[int, LeftoverPlan]:
        """Melds made only of x jokers and y wild-rank cards, then deadwood: (cost, melds)."""
        key = (x, y, need)
        hit = self._leftover.get(key)
        if hit is not None:
            return hit
        ns, nr = need
        best_v = INF if ns or nr else x * self.pj + y * self.pw
        best_plan: LeftoverPlan = ()
        m, n = self.ctx.max_wilds, self.ctx.min_nat
        for size in range(3, x + y + 1):
            self.budget.spend(1 + min(y, size) - max(0, size - x))
            for yy in range(max(0, size - x), min(y, size) + 1):
                xx = size - yy
                as_set = xx <= m and yy >= n
                as_run = size <= 13 and (
                    (yy >= 1 and size - 1 <= m and n <= 1) or (n == 0 and size <= m)
                )
                for kind, ok in (("set", as_set), ("run", as_run)):
                    if not ok:
                        continue
                    nn = (max(0, ns - 1), nr) if kind == "set" else (ns, max(0, nr - 1))
                    v, plan = self.leftover(x - xx, y - yy, nn)
                    if v < best_v:
                        best_v, best_plan = v, ((kind, xx, yy), *plan)
        self._leftover[key] = (best_v, best_plan)
        return best_v, best_plan

    def place(
        self, xj: int, y: int, room: int, need: tuple[int, int]
    ) -> tuple[int, WildPlan | None]:
        """Best use of ``xj`` jokers and ``y`` wild-rank cards: into ``room``, melds of
        their own, or deadwood. ``(cost, (jokers into room, wild-rank cards into room,
        the leftover melds))``."""
        key = (xj, y, room, need)
        hit = self._place.get(key)
        if hit is not None:
            return hit
        best: tuple[int, WildPlan | None] = (INF, None)
        for aj in range(0, min(xj, room) + 1):
            self.budget.spend(1 + min(y, room - aj))
            for ay in range(0, min(y, room - aj) + 1):
                v, plan = self.leftover(xj - aj, y - ay, need)
                if v < best[0]:
                    best = (v, (aj, ay, plan))
        self._place[key] = best
        return best


def layout(
    ctx: Context,
    groups: Sequence[Group],
    deadwood: Sequence[int],
    wr_cards: Sequence[int],
    jokers: int,
    xj: int,
    y: int,
    plan: WildPlan,
    table: Sequence[LayOffTarget],
) -> Arrangement:
    """Turn chosen groups and the wild plan into concrete melds with real wild cards."""
    aj, ay, leftover = plan
    used_wr: list[int] = []
    for g in groups:
        used_wr.extend(c for c in g.naturals if c != JOKER and rank_of(c) == ctx.wild_rank)
    free_wr = list(wr_cards)
    for c in used_wr:
        free_wr.remove(c)
    # The groups take what the plan does not leave over: all jokers but xj and all free
    # wild-rank cards but y. Of the leftover, aj jokers and ay wild-rank cards fill spare
    # room (``extra``); the rest form the plan's own melds or are deadwood.
    spend: list[int] = [JOKER] * (jokers - xj) + free_wr[: len(free_wr) - y]
    left_w = free_wr[len(free_wr) - y :]
    extra = [JOKER] * aj + left_w[:ay]
    left_w = left_w[ay:]
    left_j = xj - aj
    melds: list[tuple[int, ...]] = []
    layoffs: list[tuple[int, tuple[int, ...]]] = []
    for g in groups:
        wilds = [spend.pop() for _ in range(g.wilds)]
        more: list[int] = []
        while extra and len(more) < g.spare:
            more.append(extra.pop())
        if g.kind == "layoff":
            layoffs.append((g.table, tuple(g.naturals) + tuple(wilds) + tuple(more)))
        elif g.kind == "run":
            it = iter(wilds)
            cards = [next(it) if v is None else v for v in g.layout]
            cards.extend(more)
            melds.append(tuple(cards))
        else:
            melds.append(tuple(g.naturals) + tuple(wilds) + tuple(more))
    if extra and table:
        # remaining absorbed wilds go onto the unused table melds with room
        used_tables = {g.table for g in groups if g.kind == "layoff"}
        for t, m in enumerate(table):
            if t in used_tables:
                continue
            room = m.spare
            taken: list[int] = []
            while extra and len(taken) < room:
                taken.append(extra.pop())
            if taken:
                layoffs.append((t, tuple(taken)))
    for _kind, xx, yy in leftover:
        melds.append(tuple(left_w[:yy]) + (JOKER,) * xx)
        left_w = left_w[yy:]
        left_j -= xx
    deadwood = list(deadwood) + left_w + [JOKER] * left_j
    penalty = sum(ctx.pt[c] for c in deadwood)
    merged: dict[int, tuple[int, ...]] = {}
    for t, added in layoffs:
        merged[t] = merged.get(t, ()) + added
    return Arrangement(
        melds=tuple(melds),
        deadwood=tuple(sorted(deadwood)),
        penalty=penalty,
        layoffs=tuple(sorted(merged.items())),
    )
