"""The group search: a memoised search over whole groups, lowest card first.

It handles every option, including lay-offs onto table melds and contracts.
(A rank-by-rank profile programme was tried as an alternative and measured slower
on every hand set of ``make bench-solve``, so this is the one search.)

A memoised depth-first search takes the lowest remaining natural ``x`` (cards
ordered by rank, then suit) and tries every way to dispose of it: as deadwood, or
as the lowest natural of a *group* (a set of its rank, a run of its suit, or a
lay-off onto one table meld) built from ``x``, higher naturals and the wild-rank
cards, each group taking exactly the wilds it needs to become a valid meld. A
group's spare room for more wilds is summed into a capacity used by the wild
pool (``wildpool``). The state is ``(remaining multiset, wild balance, capacity,
used table melds, contract counts still needed)``.

Representation: the remaining multiset is one integer with a 6-bit field per
*slot*, count + 32, the 32 a guard bit, so a group is removed by one subtraction and
``(x - delta) & guard == guard`` says it fits. The slots are the same for every
hand: a natural's slot is its place in the search order (``rank * 4 + suit``, 0..51)
and the wild-rank cards of each suit take slots 52..55. So a group's ``delta`` is
the same integer in every hand, and the group enumerations (which read only the
cards near a card) are shared across hands as they are (``_SHARED``), with no
translation per hand: a set's keyed by the counts of its rank, a run's by the cards
of its suit within its reach (``_run_held``). The per-slot ``without`` costs are one
integer of wider fields, one per card kind the *hand* holds (its own numbering,
kept small because every merge is a SWAR element-wise minimum over all of them).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import count, product

from .arrangement import Arrangement
from .cards import JOKER, rank_of, suit_of
from .melds import INF, Context, Group, TableMeld, kinds_of, run_fits, split
from .wildpool import layout, place

__all__ = ["GroupSearch"]

#: Group enumerations (and run position tables) shared across hands (bounded: about
#: 20 MB when full), keyed with a small number per solving context.
_SHARED: dict[tuple, tuple] = {}  # values: see ``_share`` and ``_run_table``
_SHARED_MAX = 25_000
_CONTEXTS: dict[tuple, int] = {}
#: Every group of a card's neighbourhood at once, as the inlined search reads them
#: (``_fast_groups``), keyed by ``(kind, slot, budget, the counts near the slot)``: a
#: hand's first visit of a neighbourhood is then usually one look-up. Bounded (about
#: 14 MB when full); ``kind`` numbers what else the groups depend on (``_KINDS``).
#: Its keys and values hold plain numbers only, so the cyclic collector stops tracking
#: them: a full cache does not make full collections slower or more frequent.
_NEAR_FAST: dict[tuple, tuple] = {}
_NEAR_MAX = 50_000
_KINDS: dict[tuple, int] = {}
#: Tokens and kinds are never reused, even after a clear: a search made before a clear
#: keeps its numbers, and must not read what a later context stored under them.
_NUMBERS = count()


#: Per solving context (by identity; the entry holds the context, so the id stays its
#: own): (context, token of its enumerations, ``without`` field width, card of each
#: slot, cost of each natural slot, wild pool placements shared by the hands without
#: table melds).
_PER_CTX: dict[int, tuple] = {}
_FINAL_MAX = 5_000
#: Per (field width, naturals of a hand): a 1, the guard bits and INF in every field of a
#: ``without`` vector (a few dozen entries: the widths are few and a hand is small).
_WIDTHS: dict[tuple[int, int], tuple[int, int, int]] = {}

#: The fixed slots (see the module docstring): naturals 0..51 in the search order,
#: then the wild-rank cards of each suit.
_NAT = 52
_SLOTS = _NAT + 4
SLOT = [(c % 13) * 4 + c // 13 for c in range(52)]
_CARD = sorted(range(52), key=SLOT.__getitem__)
#: A slot's 1 in the integer form of a multiset, the guard bits of every slot, and
#: the count bits of the natural slots.
_ONE = [1 << 6 * j for j in range(_SLOTS)]
_FIELD = [63 << 6 * j for j in range(_SLOTS)]
GUARD = 32 * sum(_ONE)
_NATMASK = 31 * sum(_ONE[:_NAT])
#: multiplying the counts by ``_ONES6`` sums the natural slots into the field at ``_TOP6``
_ONES6 = sum(_ONE[:_NAT])
_TOP6 = 6 * (_NAT - 1)
#: Per natural slot: the later slots of its rank; the later slots of its suit, then the
#: wild-rank slot of that suit (the cards a run through it may take); the fields of
#: the slot and of the later slots of its rank; the fields of the suit's later slots.
_SAME_RANK = [tuple(range(i + 1, (i | 3) + 1)) for i in range(_NAT)]
_RANK_RELATED = [(i, *_SAME_RANK[i]) for i in range(_NAT)]
_SUIT_RELATED = [(*range(i + 4, _NAT, 4), _NAT + i % 4) for i in range(_NAT)]
_RANK_MASK = [sum(_FIELD[j] for j in _RANK_RELATED[i]) for i in range(_NAT)]
_SUIT_MASK = [sum(_FIELD[j] for j in _SUIT_RELATED[i]) for i in range(_NAT)]
_NEAR_MASK = [r | s for r, s in zip(_RANK_MASK, _SUIT_MASK, strict=True)]


def _per_context(ctx: Context) -> tuple:
    if len(_CONTEXTS) > 256 or len(_PER_CTX) > 1024 or len(_KINDS) > 4096:
        _CONTEXTS.clear()
        _SHARED.clear()
        _PER_CTX.clear()
        _KINDS.clear()
        _NEAR_FAST.clear()
    # What of the context an enumeration reads: not the card values, and the wild rank
    # only where a wild-rank card may stand for itself (under wild limits).
    shape = (
        ctx.aces,
        ctx.max_wilds,
        ctx.min_nat,
        ctx.limits,
        ctx.wild_rank if ctx.limits else None,
    )
    token = _CONTEXTS.get(shape)
    if token is None:
        token = _CONTEXTS[shape] = next(_NUMBERS)
    # the width of a ``without`` field (see ``GroupSearch.__init__``)
    top = 32 * max(ctx.cost) + 1  # a hand has at most 30 cards
    fw = top.bit_length() + 2
    wr_cards = tuple(s * 13 + (ctx.wild_rank or 1) - 1 for s in range(4))
    card_of = (*_CARD, *wr_cards)
    px = tuple(ctx.cost[c] for c in _CARD)
    per = _PER_CTX[id(ctx)] = (ctx, token, fw, card_of, px, {})
    return per


class GroupSearch:
    """One search context: the distinct naturals of a hand, the jokers, the table, a contract."""

    def __init__(
        self,
        ctx: Context,
        nat_ids: list[int],
        jokers: int,
        wr_total: int,
        table: list[TableMeld],
        contract: tuple[int, int] | None,
    ) -> None:
        self.ctx = ctx
        self.n = n = len(nat_ids)
        self.jokers = jokers
        self.capmax = jokers + wr_total
        self.table = table
        self.contract = contract
        self.memo: dict[tuple, tuple[int, list[int]]] = {}
        # The hand's own numbering of the card kinds it holds, for the ``without``
        # vectors: its naturals 0..n-1 in the search order, the wild-rank cards of each
        # suit n..n+3, the jokers n+4. ``local`` maps a slot to that number.
        self.index = {c: k for k, c in enumerate(nat_ids)}
        self.gslots = gslots = [SLOT[c] for c in nat_ids]
        local = [-1] * _SLOTS
        for k, j in enumerate(gslots):
            local[j] = k
        local[_NAT:] = range(n, n + 4)
        self.local = local
        self.pairs = [(j, k) for k, j in enumerate(gslots)] + [(_NAT + s, n + s) for s in range(4)]
        self.jfield = n + 4
        self.pw = ctx.cost[0 if ctx.wild_rank is None else ctx.wild_rank - 1]
        self.pj = ctx.cost[JOKER]
        self.group_cache: dict[tuple, tuple[list, list]] = {}
        self.chain_cache: dict[tuple, list] = {}
        self.one = _ONE
        self.guard = GUARD
        # Group enumerations depend on the cards held near a card, not on the rest of the
        # hand: they are shared by every hand under the same rules (see ``_per_context``).
        self.shared = _SHARED
        per = _PER_CTX.get(id(ctx))
        if per is None or per[0] is not ctx:
            per = _per_context(ctx)
        _ctx, self.token, fw, self.card_of, self.px, _placements = per
        # what else a run enumeration depends on: the wilds a hand can hold (long runs may
        # skip a natural) and whether a contract counts one-natural runs
        self.run_kind = (-1 if ctx.limits else self.capmax, contract is not None)
        self.top = min(self.capmax, 14)
        # what a neighbourhood's groups depend on besides it: the enumeration context, the
        # run kind and the wilds a set may take (see ``_groups``)
        kind_key = (self.token, self.run_kind, min(self.top, 2))
        kind = _KINDS.get(kind_key)
        if kind is None:
            kind = _KINDS[kind_key] = next(_NUMBERS)
        self.kind = kind
        self.near_cache: dict[tuple, tuple[tuple, tuple]] = {}
        self.plain = not (table and ctx.lay_off)
        # the wild pool's placements: with no table meld to lay off onto they depend on the
        # context and the pool only, and are shared by every hand (see ``_per_context``)
        self.final_cache: dict[tuple, tuple] = _placements if self.plain else {}
        if len(self.final_cache) > _FINAL_MAX:
            self.final_cache.clear()
        self.present_cache: dict[int, int] = {}
        # Without wild limits no group takes a wild-rank card as itself: their count in
        # the states the search visits is always the hand's.
        self.wr_fixed = None if ctx.limits else wr_total
        # A ``without`` vector (one cost per card kind of the hand, and the jokers last) is
        # one integer too: field k of ``fw`` bits at bit k * fw. A finite cost of a hand is
        # below ``2**(fw-2)``, which stands for INF; adding the costs of a path to it stays
        # below the field's top bit, the guard that an element-wise minimum needs (see
        # ``_vmin``).
        self.fw = fw  # see ``_per_context``
        self.finf = 1 << (fw - 2)
        widths = _WIDTHS.get((fw, n))
        if widths is None:
            ones = ((1 << fw * (n + 5)) - 1) // ((1 << fw) - 1)
            widths = _WIDTHS[(fw, n)] = (ones, ones << (fw - 1), ones * self.finf)
        self.ones, self.high, self.all_inf = widths
        ones = widths[0]
        self.fmask = (1 << fw) - 1
        # per natural slot of the hand: its cost times ``ones`` (the deadwood option adds
        # it to every field), and whether its suit holds at most three later naturals of
        # the hand (then its runs are enumerated once at the largest budget)
        px = self.px
        px_ones = [0] * _NAT
        few = [False] * _NAT
        later = [0, 0, 0, 0]
        for j in reversed(gslots):
            px_ones[j] = px[j] * ones
            few[j] = later[j & 3] <= 3
            later[j & 3] += 1
        self.px_ones = px_ones
        self.few = few
        self.low_plain = ctx.aces == "low" and not ctx.limits

    def start(self, naturals: Iterable[int], wrc: Iterable[int]) -> int:
        """The integer form of a hand's multiset (naturals of this search, wild-rank cards)."""
        x = GUARD
        one = _ONE
        for c in naturals:
            x += one[SLOT[c]]
        for c in wrc:
            x += one[_NAT + c // 13]
        return x

    def encode(self, cnt: tuple[int, ...] | list[int]) -> int:
        """The integer form of a count vector (one count per slot; see the module docstring)."""
        return sum((c + 32) << 6 * j for j, c in enumerate(cnt))

    def decode(self, x: int) -> tuple[int, ...]:
        return tuple(((x >> 6 * j) & 63) - 32 for j in range(_SLOTS))

    def _wr_count(self, x: int) -> int:
        t = x >> 6 * _NAT
        return (t & 63) + (t >> 6 & 63) + (t >> 12 & 63) + (t >> 18 & 63) - 128

    def _lowest(self, x: int) -> int:
        """The lowest natural slot still held, or ``_NAT`` when none is."""
        low = (x ^ GUARD) & _NATMASK
        if not low:
            return _NAT
        return ((low & -low).bit_length() - 1) // 6

    def _vmin(self, a: int, b: int) -> int:
        """Element-wise minimum of two ``without`` vectors (SWAR, guard bits)."""
        m = ((a | self.high) - b) & self.high  # guard kept where a >= b
        return a ^ ((a ^ b) & (m - (m >> (self.fw - 1))))

    def entry(self, w: int, k: int) -> int:
        """Entry ``k`` of a ``without`` vector (INF when no such card)."""
        v = (w >> self.fw * k) & self.fmask
        return INF if v >= self.finf else v

    def _set(self, w: int, k: int, v: int) -> int:
        shift = self.fw * k
        return (w & ~(self.fmask << shift)) | (min(v, self.finf) << shift)

    def _share(self, key: tuple, found: list) -> tuple[tuple, tuple]:
        """Keep an enumeration for every hand: the groups with their deltas, and the
        ``(delta, wilds, spare)`` form the inlined search reads (tuples, not lists: the
        collector stops tracking a tuple of plain numbers, so a full cache adds little
        to a full collection)."""
        found.sort(key=_larger_first)
        one = _ONE
        groups = tuple((g, sum(one[j] for j in d)) for g, d in found)
        out = (groups, tuple((delta, g.wilds, g.spare) for g, delta in groups))
        if len(self.shared) > _SHARED_MAX:
            self.shared.clear()
        self.shared[key] = out
        return out

    # -- groups ------------------------------------------------------------------

    def _groups(self, x: int, i: int, budget: int) -> tuple[tuple[Group, int], ...]:
        """Every group whose lowest natural is slot i, with the cards it removes (a delta)."""
        return self._near(x, i, budget)[0]

    def _near(self, x: int, i: int, budget: int) -> tuple[tuple, tuple]:
        """``_groups`` and its ``(delta, wilds, spare)`` form, cached for this hand.

        Sets depend on the counts of slot i's rank only; runs on which positions of its
        suit are held, and whether held once (a run takes one copy, and may leave out a
        card held once). Each part is shared on just that, so the same neighbourhood in
        different states and hands is enumerated once.
        """
        # Sets are enumerated once with the most wilds the hand could ever spend; callers
        # drop the groups that need more than their state can pay.
        top = self.top
        if self.few[i] or budget >= top:
            budget = top
        key = (i, budget, x & _NEAR_MASK[i])
        hit = self.near_cache.get(key)
        if hit is not None:
            return hit
        cnt = None
        shared_key = (self.token, min(top, 2), i, x & _RANK_MASK[i])  # a set takes <= 2 wilds
        sets = self.shared.get(shared_key)
        if sets is None:
            cnt = self.decode(x)
            found: list = []
            self._set_groups(cnt, i, top, found)
            sets = self._share(shared_key, found)
        # Runs too, when the suit holds few cards (the enumeration is small at any
        # budget); in a crowded suit the enumeration grows fast with the budget, so it
        # is done for the budget the state can pay.
        run_key = (i, budget, x & _SUIT_MASK[i])
        runs = self.group_cache.get(run_key)
        if runs is None:
            held = self._run_held(x, i, budget)
            kind = self.run_kind
            if kind[0] >= 0 and 1 + 2 * len(held) < 13 - kind[0]:
                # too few naturals within reach for a run long enough to skip one: the
                # wilds the hand can hold do not matter (see ``_run_groups``)
                kind = (-2, kind[1])
            shared_key = (self.token, i, held, budget, kind)
            runs = self.shared.get(shared_key)
            if runs is None:
                if cnt is None:
                    cnt = self.decode(x)
                found = []
                self._run_groups(cnt, i, budget, found)
                runs = self._share(shared_key, found)
            self.group_cache[run_key] = runs
        # Larger groups first: a state whose cost and every per-card cost reach 0 stops
        # trying options, and large melds get there soonest.
        result = self.near_cache[key] = (runs[0] + sets[0], runs[1] + sets[1])
        return result

    def _run_table(self, i: int, p0: int) -> tuple[tuple[int, int], ...]:
        """``_run_positions``, shared by every hand under the same rules."""
        key = (self.token, i, p0)
        table = self.shared.get(key)
        if table is None:
            table = self.shared[key] = tuple(self._run_positions(i, self.card_of[i] // 13, p0))
        return table

    def _run_held(self, x: int, i: int, budget: int) -> tuple:
        """What a run enumeration through slot i depends on: the cards within its reach.

        A candidate position is within reach when the positions missing between it and
        slot i are no more than the wilds a run may take (and it is at most 12 away);
        the enumeration never looks past the first one out of reach in each direction,
        so these cards (each held once, or more) determine it, and hands that differ
        farther away share it. They are named by slot (the same for every hand).
        """
        limit = min(budget, self.ctx.max_wilds)
        if self.low_plain:
            # every candidate is above p0 and comes in slot order (see ``_run_positions``)
            p0 = i // 4 + 1
            out = []
            last, gaps = p0, 0
            for q, j in self._run_table(i, p0):
                if gaps + q - last - 1 > limit:
                    break  # this card and every later one are out of reach
                held = x >> 6 * j & 63
                if held != 32:
                    gaps += q - last - 1
                    out.append((j, 2 if held > 33 else 1))
                    last = q
            return tuple(out)
        keep = set()
        for p0 in self.ctx.positions(i // 4 + 1):
            avail = [(q, j) for q, j in self._run_table(i, p0) if x >> 6 * j & 63 != 32]
            last, gaps = p0, 0
            for q, j in avail:  # sorted by q
                if q > p0:
                    gaps += q - last - 1
                    if gaps > limit or q - p0 > 12:
                        break
                    keep.add(j)
                    last = q
            last, gaps = p0, 0
            for q, j in reversed(avail):
                if q < p0:
                    gaps += last - q - 1
                    if gaps > limit or p0 - q > 12:
                        break
                    keep.add(j)
                    last = q
        return tuple(
            (j, 2 if x >> 6 * j & 63 > 33 else 1) for j in _SUIT_RELATED[i] if j in keep
        )

    def _fast_groups(self, x: int, i: int, budget: int) -> tuple[tuple[int, int, int], ...]:
        """``_groups`` as (slots removed, wilds, spare room), for the inlined search."""
        top = self.top
        if self.few[i] or budget >= top:
            budget = top
        key = (self.kind, i, budget, x & _NEAR_MASK[i])
        hit = _NEAR_FAST.get(key)
        if hit is None:
            hit = self._near(x, i, budget)[1]
            if len(_NEAR_FAST) > _NEAR_MAX:
                _NEAR_FAST.clear()
            _NEAR_FAST[key] = hit
        return hit

    def _set_groups(self, cnt, i, budget, out) -> None:
        """Sets of slot i's rank through slot i, each with the wilds it needs.

        Without wild limits a set that takes a wild never leaves out two or more cards
        of its rank that it could take (the exchange argument of ``_run_groups``: swap
        one in for a wild; its other meld takes the wild, or, if it was deadwood, the
        freed wild goes into this set's room). It may leave out one: without that card
        (the discard analysis) the set is the one that takes all.
        """
        ctx = self.ctx
        others = [j for j in _SAME_RANK[i] if cnt[j]]
        choices = [range(1, cnt[i] + 1)] + [range(0, cnt[j] + 1) for j in others]
        idx = [i, *others]
        held = cnt[i] + sum(cnt[j] for j in others)
        for take in product(*choices):
            k = sum(take)
            c = max(0, 3 - k)
            if k < ctx.min_nat or c > ctx.max_wilds or c > budget:
                continue
            if c and held - k > 1 and not ctx.limits:
                continue  # leaves out two cards it could take instead of wilds
            delta: list[int] = []
            for j, t in zip(idx, take, strict=True):
                delta.extend([j] * t)
            nats = tuple(self.card_of[j] for j in delta)
            out.append((Group("set", nats, c, ctx.max_wilds - c), tuple(delta)))

    def _run_candidates(self, cnt, i, s, p0):
        """Positions (unrolled) around p0 where a natural of suit s is available: pos -> source."""
        n = _NAT
        return {
            q: (("n", j) if j < n else ("w", j - n)) for q, j in self._run_table(i, p0) if cnt[j]
        }

    def _run_positions(self, i: int, s: int, p0: int) -> list[tuple[int, int]]:
        """Every (unrolled position, slot) that could join a run of suit s through p0."""
        if self.low_plain:
            # aces low and no wild-rank card as itself: the later cards of the suit, in
            # slot order, are higher ranks, all within 12 of p0
            return [(j // 4 + 1, j) for j in _SUIT_RELATED[i][:-1]]
        ctx = self.ctx
        wrap = ctx.aces == "wrap"
        lo, hi = (p0 - 12, p0 + 12) if wrap else (max(ctx.lo, p0 - 12), min(ctx.hi, p0 + 12))
        out: list[tuple[int, int]] = []
        for j in _SUIT_RELATED[i][:-1]:  # the later ranks of the suit
            for p in ctx.positions(j // 4 + 1):
                for q in (p - 13, p, p + 13) if wrap else (p,):
                    if lo <= q <= hi:
                        out.append((q, j))
        if ctx.limits and ctx.wild_rank is not None:
            for p in ctx.positions(ctx.wild_rank):
                for q in (p - 13, p, p + 13) if wrap else (p,):
                    if lo <= q <= hi and q != p0:
                        out.append((q, _NAT + s))
        out.sort()
        return out

    def _run_groups(self, cnt, i, budget, out) -> None:
        """Runs through slot i (its lowest natural), each with the wilds it needs.

        Without wild limits a run never needs to leave out an available natural of a
        position it spans and take a wild there instead: swapping them keeps every meld
        valid (the natural's other meld takes the wild) or, if the natural was deadwood,
        puts the freed wild into this run's spare room. That room can only be full when
        the run is long: ``length + wilds in the hand - its own wilds >= 13``. So only such
        long runs may skip naturals; the others take every available natural in their span,
        except that a run may leave out one card held once: without that card (the discard
        analysis) the run needs a wild there.
        """
        ctx = self.ctx
        x = self.card_of[i]
        s = suit_of(x)
        limit = min(budget, ctx.max_wilds)
        single_ok = self.contract is not None  # a one-natural run is dominated by the set
        skips_need = -1 if ctx.limits else 13 - self.capmax  # least length that may skip
        for p0 in ctx.positions(rank_of(x)):
            cand = self._run_candidates(cnt, i, s, p0)
            ups = tuple(sorted(q for q in cand if q > p0))
            downs = tuple(sorted((q for q in cand if q < p0), reverse=True))
            up_chains = self._chains(ups, p0, limit)
            down_chains = self._chains(downs, p0, limit)
            for up, ug, top, up_skip in up_chains:
                for down, dg, bottom, down_skip in down_chains:
                    gaps = ug + dg
                    span = top - bottom + 1
                    if span > 13:
                        continue
                    k = 1 + len(up) + len(down)
                    if k == 1 and not single_ok:
                        continue
                    pad = max(0, 3 - span)
                    c = gaps + pad
                    if c > limit or k < ctx.min_nat:
                        continue
                    length = span + pad
                    if (up_skip or down_skip) and length - c < skips_need:
                        left_out = up_skip + down_skip
                        if len(left_out) > 1 or not self._single(cnt, cand[left_out[0]]):
                            continue  # a short run that leaves out a natural: dominated
                    delta = [i]
                    placed: dict[int, int] = {p0: x}
                    for q in (*up, *down):
                        kind, j = cand[q]
                        if kind == "n":
                            delta.append(j)
                            placed[q] = self.card_of[j]
                        else:
                            delta.append(_NAT + j)
                            placed[q] = self._wr_card(j)
                    if len(set(delta)) == len(delta):
                        start = bottom
                        if pad:
                            # pad upward when the bounds allow, else downward
                            if ctx.aces == "wrap" or top + pad <= ctx.hi:
                                end = top + pad
                            else:
                                start, end = bottom - pad, top
                        else:
                            end = top
                        layout = tuple(placed.get(q) for q in range(start, end + 1))
                        nats = tuple(v for v in layout if v is not None)
                        group = Group("run", nats, c, min(ctx.max_wilds - c, 13 - length), layout)
                        out.append((group, tuple(delta)))

    def _single(self, cnt, source: tuple[str, int]) -> bool:
        kind, j = source
        return cnt[j if kind == "n" else _NAT + j] == 1

    def _chains(self, cands: tuple[int, ...], p0: int, limit: int):
        """All ways to pick positions going away from p0 with at most ``limit`` gaps.

        Each chain is ``(positions, gaps, far end, candidates left out)``; cached, as
        the same candidate positions recur across states.
        """
        key = (cands, p0, limit)
        hit = self.chain_cache.get(key)
        if hit is not None:
            return hit
        result: list[tuple[tuple[int, ...], int, int, tuple[int, ...]]] = [((), 0, p0, ())]
        stack = [((), 0, p0, (), 0)]
        while stack:
            chosen, gaps, last, skipped, start = stack.pop()
            for k in range(start, len(cands)):
                q = cands[k]
                g = gaps + abs(q - last) - 1
                if g > limit or abs(q - p0) > 12:
                    break
                item = ((*chosen, q), g, q, skipped + cands[start:k])
                result.append(item)
                stack.append((*item, k + 1))
        self.chain_cache[key] = result
        return result

    def _wr_card(self, suit: int) -> int:
        return suit * 13 + (self.ctx.wild_rank or 1) - 1

    def _layoff_groups(self, cnt, i, mask, budget):
        """Groups that lay x (and higher naturals) onto an unused table meld."""
        ctx = self.ctx
        x = self.card_of[i]
        r, s = rank_of(x), suit_of(x)
        out = []
        for t, meld in enumerate(self.table):
            if mask >> t & 1:
                continue
            bit = 1 << t
            for rank, tnat, twild in meld.sets:
                if rank is not None and rank != r:
                    continue
                others = [j for j in _SAME_RANK[i] if cnt[j]]
                idx = [i, *others]
                choices = [range(1, cnt[i] + 1)] + [range(0, cnt[j] + 1) for j in others]
                for take in product(*choices):
                    k = sum(take)
                    if tnat + k < ctx.min_nat or twild > ctx.max_wilds:
                        continue
                    new = list(cnt)
                    nats: list[int] = []
                    for j, tk in zip(idx, take, strict=True):
                        new[j] -= tk
                        nats.extend([self.card_of[j]] * tk)
                    g = Group("layoff", tuple(nats), 0, ctx.max_wilds - twild, table=t)
                    out.append((g, tuple(new), bit))
            for suit, fixed, twild in meld.runs:
                if suit != s:
                    continue
                for p0 in ctx.positions(r):
                    if p0 in fixed:
                        continue
                    cand = self._run_candidates(cnt, i, s, p0)
                    free = sorted(q for q in cand if q not in fixed)
                    for m in range(0, 1 << len(free)):
                        picked = [free[b] for b in range(len(free)) if m >> b & 1]
                        nat_pos = [*fixed, p0, *picked]
                        natc = len(nat_pos)
                        for c in range(0, max(0, min(budget, ctx.max_wilds - twild)) + 1):
                            total = natc + twild + c
                            if natc < ctx.min_nat or twild + c > ctx.max_wilds:
                                continue
                            if not run_fits(ctx, nat_pos, total):
                                continue
                            new = list(cnt)
                            new[i] -= 1
                            nats = [x]
                            ok = True
                            for q in picked:
                                kind, j = cand[q]
                                slot = j if kind == "n" else _NAT + j
                                new[slot] -= 1
                                ok = ok and new[slot] >= 0
                                nats.append(self.card_of[j] if kind == "n" else self._wr_card(j))
                            if ok:
                                spare = min(ctx.max_wilds - twild - c, 13 - total)
                                g = Group("layoff", tuple(nats), c, spare, table=t)
                                out.append((g, tuple(new), bit))
                            break  # the fewest wilds that fit is enough; more go via spare
        return out

    def meldable(self, cnt: tuple[int, ...]) -> set[int]:
        """Naturals that belong to at least one group (meld or lay-off) of this hand."""
        found: set[int] = set()
        budget = self.capmax
        cur = list(cnt)
        for i in self.gslots:
            if not cur[i]:
                continue
            state = tuple(cur)
            for group, _delta in self._groups(self.encode(state), i, budget):
                found.update(group.naturals)
            if self.table and self.ctx.lay_off:
                for group, _new, _bit in self._layoff_groups(state, i, 0, budget):
                    found.update(group.naturals)
            cur[i] = 0
        return found

    # -- recursion ---------------------------------------------------------------

    def best(self, x: int, wb: int, cap: int, mask: int, need: tuple[int, int]):
        """``(value, without)``: the minimum cost of this state, and for every slot the
        minimum cost of the state with one card of that slot removed (INF if none).

        The second part is what makes the discard analysis one search instead of one per
        card: the options of ``S - c`` are exactly the options of ``S`` that leave a copy of
        ``c`` behind, and ``S - x`` (x the lowest card) is the deadwood option's successor.
        A child without a copy of ``c`` has ``without[c] = INF``, so merging is an
        element-wise minimum. Once the state's cost and every ``without`` are 0, the least
        a cost can be, the remaining options are skipped.
        """
        # Spare room only matters for wilds left over at the end, and no more of them can
        # be left than the pool still holds: a larger capacity is the same state.
        wr = self.wr_fixed
        pool = wb + (self._wr_count(x) if wr is None else wr)
        if cap > pool:
            cap = pool if pool > 0 else 0
        if cap > 2 and wr is not None:
            # without limits two wilds left over fit any room of two, and three or more
            # form melds of their own: more room is the same state
            cap = 2
        key = (x, wb, cap, mask, need)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        low = (x ^ GUARD) & _NATMASK  # ``_lowest``, inlined
        if not low:
            result = self._base(x, wb, cap, mask, need)
            self.memo[key] = result
            return result
        if wr is not None and pool > 2 and not need[0] and not need[1]:
            # Without wild limits, with more than two wilds per natural left, every natural
            # takes two in a set and the rest meld on their own or fill room: all is 0,
            # less any one card too.
            naturals = ((x ^ GUARD) * _ONES6 >> _TOP6) & 63
            if pool > 2 * naturals:
                result = (0, self.all_inf & ~self._present(x, -1))
                self.memo[key] = result
                return result
        i = ((low & -low).bit_length() - 1) // 6
        # the deadwood option: the pool is unchanged, so ``cap`` is already normalised
        memo_get = self.memo.get
        hit = memo_get((x - self.one[i], wb, cap, mask, need))
        dv, dw = hit if hit is not None else self.best(x - self.one[i], wb, cap, mask, need)
        best_value = self.px[i] + dv
        without = dw + self.px_ones[i]
        present = -1
        high = self.high
        shift = self.fw - 1
        if self.plain and not need[0] and not need[1]:
            # the common case, inlined: no table, no contract still to meet
            capmax = self.capmax
            top = self.top
            budget = top if self.few[i] or pool >= top else pool
            fast = _NEAR_FAST.get((self.kind, i, budget, x & _NEAR_MASK[i]))
            if fast is None:
                fast = self._fast_groups(x, i, pool)
            # Every group listed fits: the list is keyed by the exact counts of every slot
            # its groups take (see ``_near``), so no ``& guard`` test is needed here.
            for delta, wilds, spare in fast:
                if wilds <= pool:
                    new = x - delta
                    ncap = cap + spare
                    if ncap > capmax:
                        ncap = capmax
                    if wr is not None:
                        # the child's key as ``best`` normalises it, so the memo is read here
                        left = pool - wilds
                        if ncap > left:
                            ncap = left if left > 0 else 0
                        if ncap > 2:
                            ncap = 2
                    # each child is solved and merged as it is found (see the loop below)
                    child = (new, wb - wilds, ncap, mask, need)
                    hit = memo_get(child)
                    v, wv = hit if hit is not None else self.best(*child)
                    if v < best_value:
                        best_value = v
                    m = ((without | high) - wv) & high  # the element-wise minimum, inlined
                    without ^= (without ^ wv) & (m - (m >> shift))
                    if best_value == 0 and dv == 0:
                        if present < 0:
                            present = self.present_cache.get(x, -1)
                            if present < 0:
                                present = self.present_cache[x] = self._present(x, i)
                        if not without & present:
                            break  # everything is already 0, the least a cost can be
            children = ()
        else:
            children = [option[1:] for option in self._options(x, i, wb, cap, mask, need)]
        for child in children:
            hit = memo_get(child)
            v, wv = hit if hit is not None else self.best(*child)
            if v < best_value:
                best_value = v
            m = ((without | high) - wv) & high  # the element-wise minimum, inlined
            without ^= (without ^ wv) & (m - (m >> shift))
            if best_value == 0 and dv == 0:
                if present < 0:
                    present = self.present_cache.get(x, -1)
                    if present < 0:
                        present = self.present_cache[x] = self._present(x, i)
                if not without & present:
                    break  # everything is already 0, the least a cost can be
        shift = self.fw * self.local[i]
        without = (without & ~(self.fmask << shift)) | (
            (dv if dv < self.finf else self.finf) << shift
        )
        result = (best_value, without)
        self.memo[key] = result
        return result

    def _present(self, x: int, i: int) -> int:
        """The fields of the slots held in ``x`` but ``i`` (and the jokers, if any)."""
        c = x ^ self.guard
        fmask, fw = self.fmask, self.fw
        out = sum(fmask << fw * k for j, k in self.pairs if j != i and c >> 6 * j & 63)
        if self.jokers:
            out |= fmask << fw * self.jfield
        return out

    def _options(self, x, i, wb, cap, mask, need) -> Iterator[tuple]:
        """Every group with slot i as its lowest natural, as (group, *child state).

        Lazily: the read-back stops at the first option that reaches the recorded cost.
        """
        wr = self.wr_fixed
        budget = wb + (self._wr_count(x) if wr is None else wr)
        ns, nr = need
        capmax = self.capmax
        guard = self.guard
        for group, delta in self._groups(x, i, budget):
            if group.wilds > budget:
                continue
            new = x - delta
            if new & guard != guard:
                continue  # the group takes a card the state no longer holds
            ncap = cap + group.spare
            if ncap > capmax:
                ncap = capmax
            nneed = (
                need
                if not (ns or nr)
                else ((max(0, ns - 1), nr) if group.kind == "set" else (ns, max(0, nr - 1)))
            )
            yield (group, new, wb - group.wilds, ncap, mask, nneed)
        if self.table and self.ctx.lay_off:
            cnt = self.decode(x)
            for group, new, bit in self._layoff_groups(cnt, i, mask, budget):
                ncap = min(cap + group.spare, self.capmax)
                yield (group, self.encode(new), wb - group.wilds, ncap, mask | bit, need)

    def _base(self, x, wb, cap, mask, need) -> tuple[int, list[int]]:
        """No natural left: place the wild pool (or lay wild-rank cards off as themselves)."""
        # ``_base_plain`` of the state, less a wild-rank card, less a joker; directly
        value = self._final(x, wb, cap, mask, need)[0]
        without = self.all_inf
        less_wr = None
        c = x ^ GUARD
        for k in range(_NAT, _SLOTS):
            if c >> 6 * k & 63:
                if less_wr is None:  # any wild-rank card: the pool only counts them
                    less_wr = self._final(x - _ONE[k], wb, cap, mask, need)[0]
                without = self._set(without, self.n + k - _NAT, less_wr)
        if self.jokers:
            less_joker = self._final(x, wb - 1, cap, mask, need, self.jokers - 1)[0]
            without = self._set(without, self.jfield, less_joker)
        if not self.table:
            return value, without
        for option in self._base_options(x, wb, cap, mask, need):
            v, wv = self.best(*option[1:])
            value = min(value, v)
            without = self._vmin(without, wv)
        return value, without

    def _base_options(self, x, wb, cap, mask, need) -> list[tuple]:
        if self.table and self.ctx.lay_off and self.ctx.limits and self._wr_count(x):
            # wild-rank cards laid off as themselves (no natural of another rank with them)
            return self._wild_rank_layoffs(x, wb, cap, mask, need)
        return []

    def _base_plain(self, state: tuple, target: int | None) -> int:
        """The cost at a base state by the wild pool alone, with one ``target`` card fewer."""
        return self._base_plan(state, target)[0]

    def _base_plan(self, state: tuple, target: int | None):
        x, wb, cap, mask, need = state
        if target is None:
            return self._final(x, wb, cap, mask, need)
        if target == self.jfield:
            return self._final(x, wb - 1, cap, mask, need, self.jokers - 1)
        return self._final_less_wr(*state)

    def _wild_rank_layoffs(self, x, wb, cap, mask, need):
        """Lay-offs of wild-rank cards standing for themselves onto unused table melds.

        Under a wild limit a wild-rank card may extend a table meld as a natural (a set of
        its rank, or a run of its suit at its own rank) where a wild would break the limit.
        """
        ctx = self.ctx
        n = _NAT
        w = ctx.wild_rank
        out = []
        cnt = self.decode(x)
        pool = wb + sum(cnt[n:])
        for t, meld in enumerate(self.table):
            if mask >> t & 1:
                continue
            bit = 1 << t
            tried: set[tuple[int, ...]] = set()
            for take in product(*(range(0, cnt[n + s] + 1) for s in range(4))):
                if not any(take) or take in tried:
                    continue
                tried.add(take)
                laid = [s * 13 + w - 1 for s in range(4) for _ in range(take[s])]
                for c in range(0, max(0, min(pool - len(laid), ctx.max_wilds)) + 1):
                    union = [*meld.cards, *laid, *([JOKER] * c)]
                    if not kinds_of(ctx, *split(union, w)):
                        continue
                    new = list(cnt)
                    for s in range(4):
                        new[n + s] -= take[s]
                    spare = TableMeld(ctx, union).spare(ctx)
                    group = Group("layoff", tuple(laid), c, spare, table=t)
                    ncap = min(cap + spare, self.capmax)
                    out.append((group, self.encode(new), wb - c, ncap, mask | bit, need))
                    break  # the fewest wilds that make it valid; more go via spare
        return out

    def _final_less_wr(self, x, wb, cap, mask, need):
        c = x ^ GUARD
        k = next(k for k in range(_NAT, _SLOTS) if c >> 6 * k & 63)
        return self._final(x - _ONE[k], wb, cap, mask, need)

    def _final(self, x, wb, cap, mask, need, jokers: int | None = None):
        """Place the wild pool once every natural is disposed of."""
        rest_wr = self._wr_count(x)
        j = self.jokers if jokers is None else jokers
        key = (rest_wr, wb, cap, mask, need, j, self.capmax)
        hit = self.final_cache.get(key)
        if hit is None:
            hit = self.final_cache[key] = self._place(rest_wr, wb, cap, mask, need, j)
        return hit

    def _place(self, rest_wr, wb, cap, mask, need, j):
        total = rest_wr + wb
        if total < 0:
            return INF, None
        table_spare = (
            sum(m.spare(self.ctx) for t, m in enumerate(self.table) if not mask >> t & 1)
            if self.ctx.lay_off
            else 0
        )
        room = min(cap + table_spare, self.capmax)
        best = (INF, None)
        for xj in range(max(0, total - rest_wr), min(j, total) + 1):
            y = total - xj
            v, plan = place(self.ctx, xj, y, room, need, self.pj, self.pw)
            if v < best[0]:
                best = (v, (xj, y, plan))
        return best

    # -- reconstruction ----------------------------------------------------------

    def arrangement(
        self, state: tuple, wr_cards: list[int], jokers: int, target: int | None = None
    ) -> Arrangement:
        """Walk the memo from a solved state and lay the cards out.

        With ``target`` (a field of the hand's own numbering: see ``__init__``), lay out
        the state with one card of that kind removed.
        At each state the walk takes the first choice (deadwood, then the options in
        order) whose successor reaches the recorded cost: the same order as the search,
        so the result is deterministic.
        """
        groups: list[Group] = []
        deadwood: list[int] = []
        local = self.local
        while True:
            value, without = self.best(*state)
            x, wb, cap, mask, need = state
            i = self._lowest(x)
            goal = value if target is None else self.entry(without, target)
            if i == _NAT:
                if self._base_plain(state, target) != goal:
                    option = self._pick(self._base_options(x, wb, cap, mask, need), goal, target)
                    groups.append(option[0])
                    state = tuple(option[1:])
                    continue
                final = self._base_plan(state, target)[1]
                if target == self.jfield:
                    jokers -= 1
                break
            if target is not None and target == local[i]:
                state = (x - _ONE[i], wb, cap, mask, need)
                target = None
                continue
            dt = (x - _ONE[i], wb, cap, mask, need)
            dv, dw = self.best(*dt)
            px = self.px[i]
            if px + (dv if target is None else self.entry(dw, target)) == goal:
                deadwood.append(self.card_of[i])
                state = dt
                continue
            option = self._pick(self._options(x, i, wb, cap, mask, need), goal, target)
            groups.append(option[0])
            state = tuple(option[1:])
        xj, y, plan = final
        return layout(self.ctx, groups, deadwood, wr_cards, jokers, xj, y, plan, self.table)

    def _pick(self, options: Iterable[tuple], goal: int, target: int | None) -> tuple:
        for option in options:
            v, wv = self.best(*option[1:])
            if (v if target is None else self.entry(wv, target)) == goal:
                return option
        raise AssertionError("no option reaches the recorded cost")  # pragma: no cover


def _larger_first(group_and_slots: tuple[Group, tuple[int, ...]]) -> int:
    return -len(group_and_slots[1])
