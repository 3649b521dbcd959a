"""The group search: a memoised search over whole groups, lowest natural first.

A state is ``(cards left, wild balance, capacity, used table melds, contract still
needed)``: the cards left are one integer (``multiset``); the wild balance is the
printed jokers not yet spent, less the wild-rank cards spent as wilds (the
wild-rank cards still in the multiset make up the rest of the pool); the capacity
is the spare room for wilds of the groups taken so far.

From a state the search takes the lowest natural left and tries every way to
dispose of it: as deadwood, or as the lowest natural of a group (``groups``,
``table``) taking exactly the wilds it needs. When no natural is left the wild pool
is placed (``wildpool``). What is minimised is the deadwood cost
(``penalty * SCALE + cards``, see ``service.core.melds.Context``).

Every discard in the same search: each state also returns, per kind of card, the
cost of the state without one such card (``costs.CostVector``). The options of
``S - c`` are exactly the options of ``S`` that leave a copy of ``c`` behind, and
``S - x`` (``x`` the lowest natural) is the deadwood option's successor; so the
per-card costs merge by an element-wise minimum.

Exact shortcuts: spare room beyond the wilds the pool still holds is the same
state; without wild limits so is room beyond two (two leftover wilds fit in any
room of two, three or more meld on their own), and a state with more than two
wilds per natural left costs 0 (each natural takes two wilds in a set, the rest
meld or fill room). A state whose cost and every per-card cost are 0 stops trying
options. A table meld that no card left can be laid onto (``LayOffTarget.accepts``)
is marked used and its spare room moved into the capacity, where the wild pool
would find it anyway: which such melds a lay-off used no longer splits the states.

Tie-break: the read-back (``arrangement``) takes, at each state, the first option
that reaches the recorded cost in the search's fixed order (deadwood, then runs,
then sets, each larger first, then lay-offs onto sets, then onto runs).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from service.core.cards import JOKER
from service.core.melds import BIG, Context

from . import multiset as ms
from . import table as tables
from .arrangement import Arrangement
from .budget import Budget
from .costs import CostVector
from .groups import LATER_OF_SUIT, SAME_RANK, Group, GroupMaker
from .table import LayOffTarget
from .wildpool import INF, WildPlan, WildPool, layout

__all__ = ["GroupSearch"]

#: Per natural slot: the slots whose counts decide its groups (its rank's later slots,
#: its suit's later slots and wild-rank slot), as a mask of the multiset's fields.
_NEAR = tuple(
    sum(63 << 6 * j for j in (i, *SAME_RANK[i], *LATER_OF_SUIT[i], ms.WILD_RANK_SLOT + i % 4))
    for i in range(ms.NATURAL_SLOTS)
)

#: Per natural slot: the fields of its rank's slots from it on (what its sets depend on).
_RANK = tuple(sum(63 << 6 * j for j in (i, *SAME_RANK[i])) for i in range(ms.NATURAL_SLOTS))

#: the count bits of one multiset field (counts stay below the guard bit 32)
_COUNT = 31

State = tuple[int, int, int, int, tuple[int, int]]
Result = tuple[int, int]  # (cost, per-card costs)
#: The best placement of a pool (``GroupSearch._place``): (cost, (jokers left, wild-rank
#: cards left, plan)), the plan None when nothing places it (cost ``INF``).
Placement = tuple[int, tuple[int, int, WildPlan] | None]


class GroupSearch:
    """One hand's search: its distinct naturals, wild pool, table and contract."""

    def __init__(
        self,
        ctx: Context,
        naturals: Sequence[int],
        wild_rank_cards: Sequence[int],
        jokers: int,
        table: list[LayOffTarget],
        contract: tuple[int, int] | None,
        budget: Budget,
    ) -> None:
        self.ctx = ctx
        self.jokers = jokers
        self.wild_rank_cards = sorted(wild_rank_cards)
        self.capmax = jokers + len(wild_rank_cards)
        self.table = table
        self.contract = contract
        self.budget = budget
        self.maker = GroupMaker(ctx, self.capmax, contract is not None, budget)
        self.pool = WildPool(
            ctx, ctx.cost[JOKER], ctx.cost[0 if ctx.wild_rank is None else ctx.wild_rank - 1], budget
        )
        # The per-card costs have a field per kind of card the hand holds: its distinct
        # naturals 0..n-1 in search order, the wild-rank cards of each suit n..n+3, the
        # jokers n+4. ``field`` maps a multiset slot to that field.
        distinct = sorted({ms.SLOT[c] for c in naturals})
        self.n = n = len(distinct)
        self.field = {j: k for k, j in enumerate(distinct)}
        self.field.update((ms.WILD_RANK_SLOT + s, n + s) for s in range(4))
        self.joker_field = n + 4
        self.vec = CostVector(n + 5, 32 * max(ctx.cost))
        # Without wild limits no group takes a wild-rank card as itself: their count in
        # every state is the hand's.
        self.wr_fixed = None if ctx.limits else len(wild_rank_cards)
        #: per table meld, the count fields of the slots it accepts (``LayOffTarget.accepts``)
        self.accepts = [sum(_COUNT << 6 * j for j in m.accepts) for m in table]
        self.full_mask = (1 << len(table)) - 1
        self.memo: dict[State, Result] = {}
        self._near_groups: dict[tuple[int, int, int], list[tuple[Group, int]]] = {}
        self._runs: dict[tuple[int, int, tuple[tuple[int, int], ...]], list[tuple[Group, int]]] = {}
        self._sets: dict[tuple[int, int], list[tuple[Group, int]]] = {}
        #: under ``set_layoff_key`` (2 fields) and ``run_layoff_key`` (3): never the same key
        self._layoffs: dict[tuple[int, ...], list[tables.Layoff]] = {}
        self._final: dict[tuple[int, int, int, int, tuple[int, int], int], Placement] = {}

    def start(self, naturals: Iterable[int]) -> State:
        """The state of the whole hand."""
        x = ms.GUARD + ms.delta(ms.SLOT[c] for c in naturals)
        x += ms.delta(ms.WILD_RANK_SLOT + c // 13 for c in self.wild_rank_cards)
        need = (0, 0) if self.contract is None else self.contract
        return (x, self.jokers, 0, 0, need)

    def field_of(self, card: int) -> int:
        """The per-card cost field of ``card``."""
        if card == JOKER:
            return self.joker_field
        if card % 13 + 1 == self.ctx.wild_rank:
            return self.n + card // 13
        return self.field[ms.SLOT[card]]

    def cost_without(self, result: Result, card: int) -> int:
        """The cost of a solved state without one ``card`` (INF when impossible)."""
        return self._entry(result[1], self.field_of(card))

    # -- the search --------------------------------------------------------------

    def _pool(self, x: int, wb: int) -> int:
        """The wilds a state still holds: its balance and its wild-rank cards."""
        return wb + (ms.wild_rank_count(x) if self.wr_fixed is None else self.wr_fixed)

    def _normal(self, state: State) -> State:
        """The state with its capacity cut to what can matter and the table melds no
        card left can be laid onto marked used, their spare room moved into the
        capacity (see the module)."""
        x, wb, cap, mask, need = state
        free = self.full_mask & ~mask
        while free:
            bit = free & -free
            free ^= bit
            t = bit.bit_length() - 1
            if not x & self.accepts[t]:
                mask |= bit
                cap += self.table[t].spare
        cap = min(cap, self.capmax, max(self._pool(x, wb), 0))
        if cap > 2 and self.wr_fixed is not None:
            cap = 2
        return (x, wb, cap, mask, need)

    def best(self, state: State) -> Result:
        """``(cost, per-card costs)`` of a state: its minimum cost, and per kind of card
        the minimum cost of the state with one such card removed.

        The memo holds each state as reached as well as normalised (``_normal``), so
        a state met again costs one look-up."""
        hit = self.memo.get(state)
        if hit is not None:
            return hit
        reached, state = state, self._normal(state)
        hit = self.memo.get(state)
        if hit is not None:
            self.memo[reached] = hit
            return hit
        x, wb, _cap, _mask, need = state
        i = ms.lowest_natural(x)
        if i == ms.NATURAL_SLOTS:
            result = self._base(state)
        elif self._all_meld(x, wb, need):
            result = (0, self.vec.all_inf & ~self._present(x, -1))
        else:
            result = self._expand(state, i)
        self.memo[state] = self.memo[reached] = result
        return result

    def _all_meld(self, x: int, wb: int, need: tuple[int, int]) -> bool:
        """Without wild limits and contract: more than two wilds per natural left."""
        if self.wr_fixed is None or need != (0, 0):
            return False
        pool = self._pool(x, wb)
        return pool > 2 and pool > 2 * ms.natural_count(x)

    def _expand(self, state: State, i: int) -> Result:
        x, wb, cap, mask, need = state
        vec = self.vec
        options = self.options(state, i)
        self.budget.spend(1 + len(options))
        dv, dw = self.best((x - ms.ONE[i], wb, cap, mask, need))
        px = self.ctx.cost[ms.CARD[i]]
        value = px + dv
        without = dw + px * vec.ones
        present = None
        for _group, child in options:
            v, wv = self.best(child)
            value = min(value, v)
            without = vec.minimum(without, wv)
            if value == 0 and dv == 0:
                if present is None:
                    present = self._present(x, i)
                if not without & present:
                    break  # every cost is already 0, the least a cost can be
        return (value, vec.put(without, self.field[i], dv))

    def _present(self, x: int, i: int) -> int:
        """The fields of the kinds held in ``x`` but slot ``i`` (and the jokers, if any)."""
        out = sum(self.vec.field(k) for j, k in self.field.items() if j != i and ms.count(x, j))
        if self.jokers:
            out |= self.vec.field(self.joker_field)
        return out

    def options(self, state: State, i: int) -> list[tuple[Group, State]]:
        """Every group with slot i as its lowest natural, with the state it leaves."""
        x, wb, cap, mask, need = state
        budget = self._pool(x, wb)
        out = []
        for group, delta in self._near(x, i, budget):
            new = x - delta
            if group.wilds > budget or not ms.fits(new):
                continue
            ns, nr = need
            left = (max(0, ns - 1), nr) if group.kind == "set" else (ns, max(0, nr - 1))
            ncap = min(cap + group.spare, self.capmax)
            out.append((group, (new, wb - group.wilds, ncap, mask, left)))
        if self.table:  # enumerated onto every table meld once, then filtered by what is used
            set_key = tables.set_layoff_key(x, i)
            sets = self._layoffs.get(set_key)
            if sets is None:
                sets = tables.set_layoffs(self.maker, self.table, ms.counts(x), i, 0)
                self._layoffs[set_key] = sets
            run_key = tables.run_layoff_key(x, i, budget)
            runs = self._layoffs.get(run_key)
            if runs is None:
                runs = tables.run_layoffs(self.maker, self.table, ms.counts(x), i, 0, budget)
                self._layoffs[run_key] = runs
            for group, slots, bit in sets + runs:
                if mask & bit:
                    continue
                ncap = min(cap + group.spare, self.capmax)
                out.append((group, (x - ms.delta(slots), wb - group.wilds, ncap, mask | bit, need)))
        return out

    def _near(self, x: int, i: int, budget: int) -> list[tuple[Group, int]]:
        """The runs and sets through slot i, as (group, what it subtracts), kept for this
        search by what they depend on: the runs by the cards of the suit within reach
        (``GroupMaker.reach``), the sets by the counts of the rank."""
        top = min(self.capmax, 14)
        budget = min(budget, top)
        near = (i, budget, x & _NEAR[i])  # the exact counts they could depend on
        hit = self._near_groups.get(near)
        if hit is not None:
            return hit
        self.budget.spend(8)  # reading the neighbourhood: about eight steps' work
        cnt = ms.counts(x)  # read once for the neighbourhood, runs and sets
        run_key = (i, budget, self.maker.reach(cnt.__getitem__, i, budget))
        runs = self._runs.get(run_key)
        if runs is None:
            found = self.maker.runs(cnt, i, budget)
            runs = self._runs[run_key] = [(g, ms.delta(slots)) for g, slots in found]
        set_key = (i, x & _RANK[i])
        sets = self._sets.get(set_key)
        if sets is None:
            found = self.maker.sets(cnt, i, top)
            sets = self._sets[set_key] = [(g, ms.delta(slots)) for g, slots in found]
        hit = self._near_groups[near] = runs + sets
        return hit

    # -- no natural left ---------------------------------------------------------

    def _base(self, state: State) -> Result:
        """Place the wild pool (or lay wild-rank cards off as themselves)."""
        x, wb, cap, mask, need = state
        vec = self.vec
        value = self._place(state)[0]
        without = vec.all_inf
        wr = [s for s in range(4) if ms.count(x, ms.WILD_RANK_SLOT + s)]
        if wr:  # the pool only counts wild-rank cards: one fewer of any suit is the same
            less = self._place((x - ms.ONE[ms.WILD_RANK_SLOT + wr[0]], wb, cap, mask, need))[0]
            for s in wr:
                without = vec.put(without, self.n + s, less)
        if self.jokers:
            less = self._place(state, self.jokers - 1)[0]
            without = vec.put(without, self.joker_field, less)
        for _group, child in self.base_options(state):
            v, wv = self.best(child)
            value = min(value, v)
            without = vec.minimum(without, wv)
        return (value, without)

    def base_options(self, state: State) -> list[tuple[Group, State]]:
        """Lay-offs of wild-rank cards as themselves, under a wild limit per meld (``table``).

        Without ``max_wilds_per_meld`` they are never better than the same cards laid
        off as wilds into the melds' spare room (a valid table meld has its naturals
        already, and its room is the rest of a 13-card run or any number in a set), so
        they are not tried: each would mark a table meld used and multiply the states.
        """
        x, wb, cap, mask, need = state
        if not (self.table and self.ctx.max_wilds < BIG and ms.wild_rank_count(x)):
            return []
        found = tables.wild_rank_layoffs(self.maker, self.table, ms.counts(x), mask, self._pool(x, wb))
        return [
            (g, (x - ms.delta(slots), wb - g.wilds, min(cap + g.spare, self.capmax), mask | bit, need))
            for g, slots, bit in found
        ]

    def _place(self, state: State, jokers: int | None = None) -> Placement:
        """The best placement of the pool of a state with no natural left:
        ``(cost, (jokers left, wild-rank cards left, plan))``."""
        x, wb, cap, mask, need = state
        j = self.jokers if jokers is None else jokers
        if jokers is not None:
            wb -= self.jokers - jokers
        rest_wr = ms.wild_rank_count(x)
        key = (rest_wr, wb, cap, mask, need, j)
        hit = self._final.get(key)
        if hit is not None:
            return hit
        total = rest_wr + wb
        best: Placement = (INF, None)
        if total >= 0:
            table_spare = sum(m.spare for t, m in enumerate(self.table) if not mask >> t & 1)
            room = min(cap + table_spare, self.capmax)
            for xj in range(max(0, total - rest_wr), min(j, total) + 1):
                y = total - xj
                v, plan = self.pool.place(xj, y, room, need)
                if v < best[0] and plan is not None:  # below INF: always a plan
                    best = (v, (xj, y, plan))
        self._final[key] = best
        return best

    # -- reading an arrangement back ---------------------------------------------

    def arrangement(self, state: State, without: int | None = None) -> Arrangement:
        """Walk the memo from a solved state and lay the cards out.

        With ``without`` (a card), lay out the state with one such card removed. At each
        state the walk takes the first choice (deadwood, then the options in order) whose
        successor reaches the recorded cost: the search's order, so the result depends
        only on the hand.
        """
        target = None if without is None else self.field_of(without)
        wr_cards = list(self.wild_rank_cards)
        jokers = self.jokers
        if without is not None and without != JOKER and target is not None and target >= self.n:
            wr_cards.remove(without)
        groups: list[Group] = []
        deadwood: list[int] = []
        while True:
            state = self._normal(state)
            value, vector = self.best(state)
            x, wb, cap, mask, need = state
            i = ms.lowest_natural(x)
            goal = value if target is None else self._entry(vector, target)
            if i == ms.NATURAL_SLOTS:
                joker_out = target == self.joker_field
                if target is None:
                    plan = self._place(state)
                elif joker_out:
                    plan = self._place(state, self.jokers - 1)
                else:  # a wild-rank card out: the pool counts one fewer
                    s = next(s for s in range(4) if ms.count(x, ms.WILD_RANK_SLOT + s))
                    plan = self._place((x - ms.ONE[ms.WILD_RANK_SLOT + s], wb, cap, mask, need))
                if plan[0] != goal:
                    group, state = self._pick(self.base_options(state), goal, target)
                    groups.append(group)
                    continue
                if joker_out:
                    jokers -= 1
                break
            if target is not None and target == self.field.get(i):
                state, target = (x - ms.ONE[i], wb, cap, mask, need), None
                continue
            dead = (x - ms.ONE[i], wb, cap, mask, need)
            dv, dw = self.best(dead)
            if self.ctx.cost[ms.CARD[i]] + (dv if target is None else self._entry(dw, target)) == goal:
                deadwood.append(ms.CARD[i])
                state = dead
                continue
            group, state = self._pick(self.options(state, i), goal, target)
            groups.append(group)
        placed = plan[1]
        if placed is None:  # pragma: no cover - the recorded cost is finite, so it was placed
            raise AssertionError("no placement reaches the recorded cost")
        xj, y, pool_plan = placed
        return layout(self.ctx, groups, deadwood, wr_cards, jokers, xj, y, pool_plan, self.table)

    def _entry(self, vector: int, field: int) -> int:
        v = self.vec.get(vector, field)
        return INF if v is None else v

    def _pick(
        self, options: Iterable[tuple[Group, State]], goal: int, target: int | None
    ) -> tuple[Group, State]:
        for group, child in options:
            v, wv = self.best(child)
            if (v if target is None else self._entry(wv, target)) == goal:
                return group, child
        raise AssertionError("no option reaches the recorded cost")  # pragma: no cover
