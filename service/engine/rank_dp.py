"""The rank dynamic programme: the solver's path for large hands.

The group search (``group_search``) picks whole runs at once, so its states
remember how far each chosen run reaches into higher ranks; a hand with many
cards of one suit (30 cards, three copies of each rank) has tens of thousands of
such states. This programme instead walks the run positions in order and keeps
only what the past leaves open, like a profile DP over ranks:

- at each position, every natural there is dealt with at once: it extends an
  open run of its suit (paying wilds for any gap), starts a run, joins the set
  of its rank (sets are complete at their rank), or is deadwood;
- an open run is ``(suit, start, last, wilds, naturals)``; a run that can no
  longer be extended (its gap would exceed the wilds it may still take) is
  closed: padded to three cards with wilds, checked against the wild limits,
  and its spare room for more wilds added to the capacity;
- wild-rank cards take part as naturals at their own position only when a wild
  limit is in force (otherwise a wild can do all they can); the rest are the
  pool that ``wildpool`` places at the end, exactly as in the group search.

The state is ``(position, open runs, wild-rank cards left per suit, wild
balance, capacity, contract counts needed, aces put aside for the top)``; for
``aces: both`` an ace may be put aside at the bottom to end a run at the top.
The number of states is bounded by the open-run profiles, at most a few per
suit, not by the subsets of the hand.

As in the group search, each state also yields the penalty of the hand without
one card of each kind (``without``), so the discard analysis costs no second
search: without a card ``c`` at this position, the transitions are those that
put a copy of ``c`` in deadwood, minus its value; without a later card, the
best over the transitions of the child's ``without``.

It does not handle lay-offs or ``aces: wrap``; the solver sends those to the
group search.
"""

from __future__ import annotations

from collections import Counter
from itertools import product

from .arrangement import Arrangement
from .cards import JOKER, make_card, rank_of, suit_of
from .melds import INF, Context, Group
from .wildpool import layout, place

__all__ = ["RankDP"]

# An open run: (suit, start position, last natural position, wilds so far, naturals (capped))
Run = tuple[int, int, int, int, int]


class RankDP:
    """One hand, prepared for the rank programme."""

    def __init__(
        self,
        ctx: Context,
        naturals: list[int],
        wrc: list[int],
        jokers: int,
        contract: tuple[int, int] | None,
    ) -> None:
        assert ctx.aces != "wrap"
        self.ctx = ctx
        self.lo, self.hi = ctx.lo, ctx.hi
        self.positions = list(range(self.lo, self.hi + 1))
        self.count = len(self.positions)
        self.both = ctx.aces == "both"
        ids = sorted(set(naturals), key=lambda c: (rank_of(c), suit_of(c)))
        self.ids = ids
        self.n = len(ids)
        self.index = {c: i for i, c in enumerate(ids)}
        counts = Counter(naturals)
        # cards[pi][s] = (slot, count) of the natural of suit s at position index pi
        self.cards: list[list[tuple[int, int] | None]] = [[None] * 4 for _ in self.positions]
        self.slot_pi = [0] * (self.n + 5)
        for c in ids:
            r = rank_of(c)
            p = 14 if (r == 1 and ctx.aces == "high") else r
            pi = p - self.lo
            self.cards[pi][suit_of(c)] = (self.index[c], counts[c])
            self.slot_pi[self.index[c]] = pi
        for k in range(self.n, self.n + 5):
            self.slot_pi[k] = self.count  # wild-rank cards and jokers: the end
        self.wpos: set[int] = set()
        if ctx.limits and ctx.wild_rank is not None:
            self.wpos = {
                p - self.lo for p in ctx.positions(ctx.wild_rank) if self.lo <= p <= self.hi
            }
        self.jokers = jokers
        self.wr_suits = tuple(sum(1 for c in wrc if suit_of(c) == s) for s in range(4))
        self.wr_total = len(wrc)
        self.capmax = jokers + len(wrc)
        self.contract = contract
        self.memo: dict[tuple, tuple] = {}
        self.size = self.n + 5
        self.future = [
            [k for k in range(self.size) if self.slot_pi[k] > pi] for pi in range(self.count + 1)
        ]
        self.pw = ctx.cost[0 if ctx.wild_rank is None else ctx.wild_rank - 1]
        self.pj = ctx.cost[JOKER]
        self.option_cache: dict[tuple, list] = {}

    # -- states ------------------------------------------------------------------

    def initial(self, need: tuple[int, int]) -> tuple:
        wr = self.wr_suits if self.ctx.limits else ()
        deferred = (0, 0, 0, 0) if self.both else ()
        return (0, (), wr, self.jokers, 0, need, deferred)

    def _wr_left(self, wr: tuple[int, ...]) -> int:
        return sum(wr) if self.ctx.limits else self.wr_total

    # -- transitions -------------------------------------------------------------

    def _suit_options(
        self, pi: int, s: int, runs: tuple[Run, ...], cards: int, wr_avail: int
    ) -> list[tuple]:
        """Ways to deal with the cards of suit s at position pi, given its open runs."""
        key = (pi, s, runs, cards, wr_avail)
        hit = self.option_cache.get(key)
        if hit is not None:
            return hit
        types = sorted(Counter(runs).items())
        first_both = self.both and pi == 0
        last_both = self.both and pi == self.count - 1
        out = []
        for a in product(*(range(0, min(m, cards) + 1) for _t, m in types)):
            used = sum(a)
            if used > cards:
                continue
            for b in product(
                *(range(0, min(m - ai, wr_avail) + 1) for (_t, m), ai in zip(types, a, strict=True))
            ):
                used_wr = sum(b)
                if used_wr > wr_avail:
                    continue
                ext_nat = tuple(t for (t, _m), ai in zip(types, a, strict=True) for _ in range(ai))
                ext_wr = tuple(t for (t, _m), bi in zip(types, b, strict=True) for _ in range(bi))
                rest = cards - used
                if last_both:
                    # aces put aside for the top only serve to end runs there
                    if rest == 0:
                        out.append((ext_nat, ext_wr, 0, 0, 0, 0, 0))
                    continue
                for new_wr in range(0, wr_avail - used_wr + 1):
                    for new_nat in range(0, rest + 1):
                        for k in range(0, rest - new_nat + 1):
                            left = rest - new_nat - k
                            for deferred in range(0, (left if first_both else 0) + 1):
                                out.append(
                                    (ext_nat, ext_wr, new_nat, new_wr, k, left - deferred, deferred)
                                )
        self.option_cache[key] = out
        return out

    def _set_choices(self, k: int) -> list[tuple[int, int, int]]:
        """(number of sets, wilds they need, their spare room) for k naturals of one rank."""
        if k == 0:
            return [(0, 0, 0)]
        ctx = self.ctx
        m_limit, n_min = ctx.max_wilds, ctx.min_nat
        if k < max(n_min, 1):
            return []
        if m_limit >= 1 << 19:  # unlimited: one set takes them all
            return [(1, max(0, 3 - k), m_limit)]
        out = []
        least = max(n_min, 3 - m_limit, 1)
        for m in range(1, k + 1):
            if m * least > k:
                break
            wilds = max(0, 3 * m - k)
            out.append((m, wilds, m * m_limit - wilds))
        return out

    def _advance(self, state: tuple, options: tuple, sets: tuple[int, int, int]):
        """Apply one transition: ``(child state, deadwood cost, closed runs)`` or None."""
        pi, runs, wr, wb, cap, need, deferred = state
        ctx = self.ctx
        p = self.positions[pi]
        m_limit, n_min = ctx.max_wilds, ctx.min_nat
        open_runs = list(runs)
        wr_new = list(wr)
        deferred_new = list(deferred)
        cost = 0
        for s, (ext_nat, ext_wr, new_nat, new_wr, _k, dead, put_aside) in enumerate(options):
            for t in (*ext_nat, *ext_wr):
                open_runs.remove(t)
                gap = p - t[2] - 1
                wb -= gap
                open_runs.append((s, t[1], p, t[3] + gap, min(t[4] + 1, n_min)))
            for _ in range(new_nat + new_wr):
                open_runs.append((s, p, p, 0, min(1, n_min)))
            if ext_wr or new_wr:
                wr_new[s] -= len(ext_wr) + new_wr
            if dead:
                cost += dead * ctx.cost[self._card(pi, s)]
            if self.both:
                if pi == 0:
                    deferred_new[s] = put_aside
                elif pi == self.count - 1:
                    deferred_new[s] = 0
        m_sets, set_wilds, set_spare = sets
        ns, nr = need
        if m_sets:
            wb -= set_wilds
            cap += set_spare
            ns = max(0, ns - m_sets)
        # close the runs that can no longer grow
        last_pos = pi == self.count - 1
        pool = wb + (sum(wr_new) if ctx.limits else self.wr_total)
        kept: list[Run] = []
        closed: list[Run] = []
        nxt = p + 1
        for t in open_runs:
            if not last_pos and nxt - t[2] - 1 <= min(m_limit - t[3], pool) and nxt - t[1] < 13:
                kept.append(t)
                continue
            length = t[2] - t[1] + 1
            pad = max(0, 3 - length)
            wilds = t[3] + pad
            if wilds > m_limit or t[4] < n_min:
                return None
            wb -= pad
            cap += min(m_limit - wilds, 13 - length - pad)
            nr = max(0, nr - 1)
            closed.append(t)
        if wb + (sum(wr_new) if ctx.limits else self.wr_total) < 0:
            return None
        child = (
            pi + 1,
            tuple(sorted(kept)),
            tuple(wr_new),
            wb,
            min(cap, self.capmax),
            (ns, nr),
            tuple(deferred_new),
        )
        return child, cost, closed

    def _card(self, pi: int, s: int) -> int:
        cell = self.cards[pi][s]
        if cell is None:  # an ace put aside for the top (aces: both)
            return make_card(1, s)
        return self.ids[cell[0]]

    def _transitions(self, state: tuple):
        pi, runs, wr, _wb, _cap, _need, deferred = state
        per_suit = []
        for s in range(4):
            cell = self.cards[pi][s]
            if self.both and pi == self.count - 1:
                cards = deferred[s]
            else:
                cards = cell[1] if cell is not None else 0
            wr_avail = wr[s] if (pi in self.wpos) else 0
            suit_runs = tuple(t for t in runs if t[0] == s)
            per_suit.append(self._suit_options(pi, s, suit_runs, cards, wr_avail))
        for options in product(*per_suit):
            k = sum(o[4] for o in options)
            for sets in self._set_choices(k):
                yield options, sets

    # -- the programme -----------------------------------------------------------

    def best(self, state: tuple) -> tuple[int, list[int]]:
        """``(value, without)`` of a state; see the module docstring."""
        hit = self.memo.get(state)
        if hit is not None:
            return hit[0], hit[1]
        pi = state[0]
        size = self.size
        if pi == self.count:
            value, without, choice = self._final_values(state)
            self.memo[state] = (value, without, choice, None)
            return value, without
        best_value, best_choice = INF, None
        without = [INF] * size
        wch: list = [None] * size
        future = self.future[pi]
        here = [
            (s, cell[0])
            for s, cell in enumerate(self.cards[pi])
            if cell is not None and not (self.both and pi == self.count - 1)
        ]
        for options, sets in self._transitions(state):
            step = self._advance(state, options, sets)
            if step is None:
                continue
            child, cost, _closed = step
            v, cw = self.best(child)
            if v == INF:
                continue
            total = cost + v
            record = (options, sets, child)
            if total < best_value:
                best_value, best_choice = total, record
            for k in future:
                w = cost + cw[k]
                if w < without[k]:
                    without[k] = w
                    wch[k] = record
            for s, slot in here:
                if options[s][5]:  # a copy of this card is deadwood here
                    w = total - self.ctx.cost[self.ids[slot]]
                    if w < without[slot]:
                        without[slot] = w
                        wch[slot] = record
        self.memo[state] = (best_value, without, best_choice, wch)
        return best_value, without

    def _final(self, state: tuple, wr_less: int = 0, jokers_less: int = 0):
        _pi, _runs, wr, wb, cap, need, _deferred = state
        rest_wr = self._wr_left(wr) - wr_less
        jokers = self.jokers - jokers_less
        total = rest_wr + wb - jokers_less
        if total < 0 or rest_wr < 0:
            return INF, None
        best = (INF, None)
        for xj in range(max(0, total - rest_wr), min(jokers, total) + 1):
            y = total - xj
            v, plan = place(self.ctx, xj, y, min(cap, self.capmax), need, self.pj, self.pw)
            if v < best[0]:
                best = (v, (xj, y, plan))
        return best

    def _final_values(self, state: tuple):
        value, choice = self._final(state)
        without = [INF] * self.size
        wr = state[2]
        if self._wr_left(wr):
            less = self._final(state, wr_less=1)[0]
            for s in range(4):
                has = wr[s] if self.ctx.limits else self.wr_suits[s]
                if has:
                    without[self.n + s] = less
        if self.jokers:
            without[self.n + 4] = self._final(state, jokers_less=1)[0]
        return value, without, choice

    # -- reading an arrangement back -----------------------------------------------

    def arrangement(
        self, state: tuple, wr_cards: list[int], jokers: int, target: int | None = None
    ) -> Arrangement:
        """Replay the recorded transitions from ``state`` and lay the cards out.

        With ``target`` (a slot), the arrangement is of the hand with one card of that
        slot removed, following the transitions recorded for ``without[target]``.
        """
        ctx = self.ctx
        groups: list[Group] = []
        deadwood: list[int] = []
        live: dict[Run, list[dict[int, int]]] = {}
        while state[0] < self.count:
            entry = self.memo[state]
            pi = state[0]
            record = entry[2] if target is None else entry[3][target]
            options, sets, child = record
            p = self.positions[pi]
            drop = None
            if target is not None and target < self.n and self.slot_pi[target] == pi:
                drop = self.ids[target]
                target = None
            set_cards: list[int] = []
            for s, (ext_nat, ext_wr, new_nat, new_wr, k, dead, _aside) in enumerate(options):
                natural = self._card(pi, s) if (ext_nat or new_nat or k or dead) else None
                wild_card = make_card(ctx.wild_rank, s) if ctx.wild_rank else None
                for t, card in [(t, natural) for t in ext_nat] + [(t, wild_card) for t in ext_wr]:
                    cells = live[t].pop()
                    if not live[t]:
                        del live[t]
                    cells[p] = card
                    gap = p - t[2] - 1
                    new_t = (s, t[1], p, t[3] + gap, min(t[4] + 1, ctx.min_nat))
                    live.setdefault(new_t, []).append(cells)
                for card in [natural] * new_nat + [wild_card] * new_wr:
                    new_t = (s, p, p, 0, min(1, ctx.min_nat))
                    live.setdefault(new_t, []).append({p: card})
                set_cards.extend([natural] * k)
                deadwood.extend([natural] * dead)
            if drop is not None:
                deadwood.remove(drop)
            m_sets = sets[0]
            if m_sets:
                for share in _split_evenly(set_cards, m_sets):
                    wilds = max(0, 3 - len(share))
                    groups.append(Group("set", tuple(share), wilds, ctx.max_wilds - wilds))
            kept = Counter(child[1])
            for t in list(live):
                while len(live[t]) > kept.get(t, 0):
                    groups.append(self._run_group(t, live[t].pop()))
                if not live[t]:
                    del live[t]
            state = child
        if target is None:
            final = self.memo[state][2]
        elif target == self.n + 4:
            final = self._final(state, jokers_less=1)[1]
            jokers -= 1
        else:
            final = self._final(state, wr_less=1)[1]
        xj, y, plan = final
        return layout(ctx, groups, deadwood, wr_cards, jokers, xj, y, plan, [])

    def _run_group(self, t: Run, cells: dict[int, int]) -> Group:
        ctx = self.ctx
        _s, start, last, gaps, _nats = t
        length = last - start + 1
        pad = max(0, 3 - length)
        if last + pad <= self.hi:
            lo, hi = start, last + pad
        else:
            lo, hi = start - pad, last
        cells_layout = tuple(cells.get(q) for q in range(lo, hi + 1))
        wilds = gaps + pad
        nats = tuple(c for c in cells_layout if c is not None)
        spare = min(ctx.max_wilds - wilds, 13 - length - pad)
        return Group("run", nats, wilds, spare, cells_layout)


def _split_evenly(cards: list[int], parts: int) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(parts)]
    for i, c in enumerate(cards):
        out[i % parts].append(c)
    return out
