"""The wild pool: what happens to wilds once every natural is placed, and the layout.

After a search has disposed of every natural, the remaining jokers and wild-rank
cards are placed at best: into the spare room of the chosen melds, into melds of
their own, and the rest into deadwood, cheapest first. ``layout`` turns the
chosen groups and that plan into concrete melds of real cards.
"""

from __future__ import annotations

from functools import lru_cache

from .arrangement import Arrangement
from .cards import JOKER, rank_of
from .melds import INF, Context


@lru_cache(maxsize=4096)
def leftover(ctx: Context, x: int, y: int, need: tuple[int, int], pj: int, pw: int):
    """Melds made only of x jokers and y wild-rank cards, then deadwood: (penalty, melds)."""
    ns, nr = need
    best_v = INF if ns or nr else x * pj + y * pw
    best_plan: tuple = ()
    m, n = ctx.max_wilds, ctx.min_nat
    for size in range(3, x + y + 1):
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
                v, plan = leftover(ctx, x - xx, y - yy, nn, pj, pw)
                if v < best_v:
                    best_v, best_plan = v, ((kind, xx, yy), *plan)
    return best_v, best_plan


@lru_cache(maxsize=8192)
def place(ctx, xj, y, room, need, pj, pw):
    """Best use of a pool of ``xj`` jokers and ``y`` wild-rank cards: absorb, meld, or deadwood."""
    best = (INF, None)
    for aj in range(0, min(xj, room) + 1):
        for ay in range(0, min(y, room - aj) + 1):
            v, plan = leftover(ctx, xj - aj, y - ay, need, pj, pw)
            if v < best[0]:
                best = (v, (aj, ay, plan))
    return best


def layout(ctx, groups, deadwood, wr_cards, jokers, xj, y, plan, table) -> Arrangement:
    """Turn chosen groups and the wild plan into concrete melds with real wild cards."""
    aj, ay, leftover = plan
    used_wr = []
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
        more = []
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
            room = m.spare(ctx)
            taken = []
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
    for t, cards in layoffs:
        merged[t] = merged.get(t, ()) + cards
    return Arrangement(
        melds=tuple(melds),
        deadwood=tuple(sorted(deadwood)),
        penalty=penalty,
        layoffs=tuple(sorted(merged.items())),
    )
