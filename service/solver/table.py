"""Table melds read for lay-offs, and the lay-off groups of a search.

Under ``lay_off`` a hand may add cards to melds already on the table. Whether an
addition is valid is the one meld model's question (``melds.kinds_of`` of the
union); this module reads each table meld once as the sets and runs it may become,
so the search can enumerate the additions through its lowest natural, and knows how
many more wilds each meld can take unchanged (its spare room).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from functools import cached_property
from itertools import combinations, product

from service.core.cards import JOKER, card_names, rank_of, suit_of
from service.core.errors import InvalidInputError
from service.core.melds import Context, kinds_of, run_fits, split

from .groups import LATER_OF_SUIT, SAME_RANK, Group, GroupMaker
from .multiset import CARD, NATURAL_SLOTS, SLOTS, WILD_RANK_SLOT

__all__ = [
    "LayOffTarget",
    "layoff_groups",
    "read_table",
    "run_layoff_key",
    "run_layoffs",
    "set_layoff_key",
    "set_layoffs",
    "wild_rank_layoffs",
]

#: Per natural slot: the count bits of its rank's slots from it on, and of its suit's
#: later slots and wild-rank slot; the lowest bit of every multiset field.
_RANK = tuple(sum(31 << 6 * j for j in (i, *SAME_RANK[i])) for i in range(NATURAL_SLOTS))
_SUIT = tuple(
    sum(31 << 6 * j for j in (*LATER_OF_SUIT[i], WILD_RANK_SLOT + i % 4))
    for i in range(NATURAL_SLOTS)
)
_LOW = sum(1 << 6 * j for j in range(SLOTS))


class LayOffTarget:
    """A meld on the table, read as what it may become once cards are laid onto it (the
    meld itself, who laid it and its lay-offs, is the engine's ``TableMeld``; the solver
    sees only its cards).

    The union only has to be one valid meld, so a run may become a set and the other
    way round; the readings are candidates, the lay-off checks the union.
    """

    def __init__(self, ctx: Context, cards: Sequence[int]) -> None:
        self._ctx = ctx
        self.cards = tuple(cards)
        self.size = len(self.cards)
        naturals, wrc, jokers = split(cards, ctx.wild_rank)
        self.valid = bool(kinds_of(ctx, naturals, wrc, jokers))
        #: as a set: (rank, or None for any rank, naturals, wilds)
        self.sets: list[tuple[int | None, int, int]] = []
        #: as a run: (suit, natural positions, wilds)
        self.runs: list[tuple[int, tuple[int, ...], int]] = []
        self.spare = 0  # how many more wilds it takes, otherwise unchanged
        if not self.valid:
            return
        ranks = {rank_of(c) for c in naturals}
        if len(ranks) == 1:
            self.sets.append((next(iter(ranks)), len(naturals), len(wrc) + jokers))
        elif not naturals:
            if wrc:
                self.sets.append((ctx.wild_rank, len(wrc), jokers))  # a set of the wild rank
            self.sets.append((None, 0, len(wrc) + jokers))  # all wild: any rank
        suits = {suit_of(c) for c in naturals}
        if len(suits) <= 1:
            for s in list(suits) if suits else range(4):
                # a wild-rank card as itself: only under limits (else a wild reads better:
                # fewer naturals to span, the same room)
                own = [c for c in wrc if suit_of(c) == s] if ctx.limits else []
                for self_count in range(0, min(1, len(own)) + 1):
                    nat_cards = naturals + own[:self_count]
                    wild = self.size - len(nat_cards)
                    for pos in product(*(ctx.positions(rank_of(c)) for c in nat_cards)):
                        self.runs.append((s, tuple(pos), wild))
        self.spare = self._room()

    def _room(self) -> int:
        """The most wilds this meld takes such that every smaller number fits too.

        Each reading takes a range of wilds: a set up to the wild limit; a run from
        what its naturals' span still lacks (a wild-rank card that stands for itself
        may leave a gap the meld's own wild filled: ``6D 8D 9D TD JD``, 6s wild,
        read with 6D natural lacks the 7) up to the limit and 13 cards. The meld is
        valid, so some reading takes none; the room is where the union of the ranges
        first breaks.
        """
        ctx, size = self._ctx, self.size
        m, n = ctx.max_wilds, ctx.min_nat
        room = -1  # every count up to ``room`` fits
        for _rank, nat, wild in self.sets:
            if wild <= m and nat >= n:
                room = max(room, m - wild)
        fits: set[int] = set()
        for _suit, pos, wild in self.runs:
            if len(pos) >= n:
                top = min(m - wild, 13 - size)
                fits.update(k for k in range(top + 1) if run_fits(ctx, list(pos), size + k))
        while room + 1 in fits:
            room += 1
        return max(room, 0)

    @cached_property
    def accepts(self) -> frozenset[int]:
        """The multiset slots of the cards a lay-off onto this meld could ever hold as
        naturals (a superset: wilds and the cards a hand holds are not considered).

        A set takes its rank (any rank when it is all wilds); a run takes its suit at a
        free position within 13 of its naturals. A wild-rank card counts as a natural
        where it may stand for itself: in a set of the wild rank, or at its own rank in
        a run of its suit (``wild_rank_layoffs`` lays off nothing else).
        """
        ctx = self._ctx
        out: set[int] = set()
        w = ctx.wild_rank
        for rank, _nat, _wild in self.sets:
            if rank is None:
                out.update(range(NATURAL_SLOTS))
            elif rank != w:
                out.update((rank - 1) * 4 + s for s in range(4))
            if rank is None or rank == w:
                out.update(WILD_RANK_SLOT + s for s in range(4))
        for suit, fixed, _wild in self.runs:
            for rank in range(1, 14):
                free = [p for p in ctx.positions(rank) if p not in fixed]
                if not any(run_fits(ctx, [*fixed, p], 13) for p in free):
                    continue
                out.add(WILD_RANK_SLOT + suit if rank == w else (rank - 1) * 4 + suit)
        return frozenset(out)


def read_table(ctx: Context, table: Sequence[Sequence[int]]) -> list[LayOffTarget]:
    """The table melds a hand may lay off onto; an invalid one is refused by name."""
    if not ctx.lay_off:
        return []
    melds = [LayOffTarget(ctx, m) for m in table]
    for meld in melds:
        if not meld.valid:
            names = " ".join(card_names(meld.cards))
            raise InvalidInputError(
                f"table meld {names or '(empty)'} is not a valid meld", meld=card_names(meld.cards)
            )
    return melds


def set_layoff_key(x: int, i: int) -> tuple[int, int]:
    """What slot i's lay-offs onto sets depend on in a multiset ``x``: the counts of its
    rank's slots (a set takes any number of each)."""
    return (i, x & _RANK[i])


def run_layoff_key(x: int, i: int, budget: int) -> tuple[int, int, int]:
    """What slot i's lay-offs onto runs depend on in a multiset ``x``: per slot of its
    suit whether it is held once or more (a run takes a card once; held once decides
    a pruning), and the wilds up to 13 (a run's most). Not the count of slot i's
    rank: states that differ there share these lay-offs."""
    y = x & _SUIT[i]
    more = (y >> 1 | y >> 2 | y >> 3 | y >> 4) & _LOW
    return (i, min(budget, 13), (y | more) & _LOW | more << 1)


Layoff = tuple[Group, tuple[int, ...], int]  # (group, the slots it removes, the meld's bit)


def layoff_groups(
    maker: GroupMaker, table: list[LayOffTarget], cnt: Sequence[int], i: int, mask: int, budget: int
) -> list[Layoff]:
    """Lay-offs of slot i (and higher naturals) onto each unused table meld: onto sets,
    then onto runs."""
    return set_layoffs(maker, table, cnt, i, mask) + run_layoffs(maker, table, cnt, i, mask, budget)


def set_layoffs(
    maker: GroupMaker, table: list[LayOffTarget], cnt: Sequence[int], i: int, mask: int
) -> list[Layoff]:
    """Lay-offs of slot i and more cards of its rank onto each unused table meld read
    as a set (one per cards and meld: two readings may give the same)."""
    ctx = maker.ctx
    out: dict[tuple[tuple[int, ...], int, int], Layoff] = {}
    for t, meld in enumerate(table):
        if mask >> t & 1:
            continue
        for rank, tnat, twild in meld.sets:
            if (rank is not None and rank != rank_of(CARD[i])) or twild > ctx.max_wilds:
                continue
            others = [j for j in SAME_RANK[i] if cnt[j]]
            idx = [i, *others]
            choices = [range(1, cnt[i] + 1)] + [range(0, cnt[j] + 1) for j in others]
            for take in product(*choices):
                maker.budget.spend(1)
                if tnat + sum(take) < ctx.min_nat:
                    continue
                slots = tuple(j for j, tk in zip(idx, take, strict=True) for _ in range(tk))
                naturals = tuple(CARD[j] for j in slots)
                group = Group("layoff", naturals, 0, ctx.max_wilds - twild, table=t)
                _keep_roomiest(out, group, slots, 1 << t)
    return list(out.values())


def run_layoffs(
    maker: GroupMaker, table: list[LayOffTarget], cnt: Sequence[int], i: int, mask: int, budget: int
) -> list[Layoff]:
    """Lay-offs of slot i and higher cards of its suit onto each unused table meld read
    as a run, each with the fewest wilds that fit (more go via spare): the run must
    span its naturals, and a run that fits fits longer too. One per cards, meld and
    wilds, with the most room: two readings of a meld (a wild-rank card as a wild or
    as itself) often give the same cards."""
    ctx = maker.ctx
    r, s = rank_of(CARD[i]), suit_of(CARD[i])
    out: dict[tuple[tuple[int, ...], int, int], Layoff] = {}
    for t, meld in enumerate(table):
        if mask >> t & 1:
            continue
        for suit, fixed, twild in meld.runs:
            if suit != s or twild > ctx.max_wilds:
                continue
            allow = max(0, min(budget, ctx.max_wilds - twild))  # new wilds it may take
            for p0 in ctx.positions(r):
                if p0 in fixed:
                    continue
                free = _held_positions(ctx, maker.run_candidates(cnt, i, p0), fixed)
                for picked, left_out in _run_unions(ctx, (*fixed, p0), free, twild + allow):
                    nat_pos = [*fixed, p0, *picked]
                    if len(nat_pos) < ctx.min_nat:
                        continue
                    maker.budget.spend(1)
                    c = max(0, _span(ctx, nat_pos) - len(nat_pos) - twild)
                    total = len(nat_pos) + twild + c
                    if c > allow or not run_fits(ctx, nat_pos, total):
                        continue
                    if (
                        c
                        and left_out
                        and not ctx.limits
                        and total - c + maker.pool < 13
                        and (len(left_out) > 1 or cnt[free[left_out[0]]] != 1)
                    ):
                        continue  # a wild where a held natural could go: dominated (groups)
                    slots = (i, *(free[q] for q in picked))
                    if len(set(slots)) == len(slots):
                        naturals = tuple(maker.card(j) for j in slots)
                        spare = min(ctx.max_wilds - twild - c, 13 - total)
                        group = Group("layoff", naturals, c, spare, table=t)
                        _keep_roomiest(out, group, slots, 1 << t)
    return list(out.values())


def _keep_roomiest(
    out: dict[tuple[tuple[int, ...], int, int], Layoff],
    group: Group,
    slots: tuple[int, ...],
    bit: int,
) -> None:
    """Keep one lay-off per (cards, meld, wilds): the one with the most spare room."""
    key = (slots, bit, group.wilds)
    if key not in out or out[key][0].spare < group.spare:
        out[key] = (group, slots, bit)


def _held_positions(ctx: Context, cand: dict[int, int], fixed: Sequence[int]) -> dict[int, int]:
    """The run positions (with their slots) a lay-off may add to a table run: held,
    not taken by the run's naturals. Under ``wrap`` a position is its rank (1-13):
    the unrolled copies of one card are one choice, not two."""
    if ctx.aces == "wrap":
        cand = {(q - 1) % 13 + 1: j for q, j in cand.items()}
    return {q: j for q, j in sorted(cand.items()) if q not in fixed}


def _run_unions(
    ctx: Context, base: Sequence[int], free: dict[int, int], gap_limit: int
) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every choice of ``free`` positions that with ``base`` spans a run leaving at most
    ``gap_limit`` positions to wilds, each once, with the free positions inside its
    span it leaves out.

    Why not every subset: with many cards of the suit held, almost all of the 2^n
    subsets leave too many gaps (and under ``wrap`` each card had two unrolled
    copies); a lay-off onto a run then cost tens of thousands of steps. A choice is
    found through its span instead: its two ends (a base or free position each), the
    free positions between them it takes, and the few it leaves out.
    """
    wrap = ctx.aces == "wrap"
    base_set = set(base)
    ends = sorted(base_set | set(free))
    for a in ends:
        for b in ends:
            if wrap:
                length = (b - a) % 13 + 1
                window = [(a - 1 + k) % 13 + 1 for k in range(length)]
            elif a <= b and b - a < 13:
                length, window = b - a + 1, list(range(a, b + 1))
            else:
                continue
            if not base_set <= set(window):
                continue
            forced = [p for p in dict.fromkeys((a, b)) if p not in base_set]
            optional = [p for p in window if p in free and p not in base_set and p not in (a, b)]
            slack = gap_limit - (length - len(base_set) - len(forced) - len(optional))
            for k in range(0, min(slack, len(optional)) + 1):
                for left_out in combinations(optional, k):
                    picked = (*forced, *(p for p in optional if p not in left_out))
                    if not wrap or _arc_start(base_set.union(picked)) == a:
                        yield picked, left_out


def _arc_start(positions: set[int]) -> int:
    """Where the shortest arc round the corner holding ``positions`` starts (after the
    first widest gap): one window per choice when two gaps tie."""
    ps = sorted(positions)
    gaps = [(ps[(k + 1) % len(ps)] - ps[k]) % 13 or 13 for k in range(len(ps))]
    return ps[(gaps.index(max(gaps)) + 1) % len(ps)]


def _span(ctx: Context, positions: Sequence[int]) -> int:
    """The fewest consecutive positions that hold ``positions`` (around the corner
    under ``wrap``): the shortest run they can be part of."""
    if ctx.aces != "wrap":
        return max(positions) - min(positions) + 1
    ps = sorted({(p - 1) % 13 for p in positions})
    gaps = [(ps[(k + 1) % len(ps)] - ps[k]) % 13 for k in range(len(ps))]
    return 13 - max(gaps) + 1 if len(ps) > 1 else 1


def wild_rank_layoffs(
    maker: GroupMaker, table: list[LayOffTarget], cnt: Sequence[int], mask: int, pool: int
) -> list[tuple[Group, tuple[int, ...], int]]:
    """Lay-offs of wild-rank cards standing for themselves onto unused table melds.

    Under a wild limit a wild-rank card may extend a table meld as a natural (a set of
    its rank, or a run of its suit at its own rank) where a wild would break the limit.
    Each as ``(group, the slots it removes, the meld's bit)``.
    """
    ctx = maker.ctx
    w = ctx.wild_rank
    out = []
    for t, meld in enumerate(table):
        if mask >> t & 1:
            continue
        for take in product(*(range(0, cnt[WILD_RANK_SLOT + s] + 1) for s in range(4))):
            maker.budget.spend(1)
            if not any(take):
                continue
            laid = [maker.wild_rank_card(s) for s in range(4) for _ in range(take[s])]
            for c in range(0, max(0, min(pool - len(laid), ctx.max_wilds)) + 1):
                maker.budget.spend(1)
                union = [*meld.cards, *laid, *([JOKER] * c)]
                if not kinds_of(ctx, *split(union, w)):
                    continue
                slots = tuple(WILD_RANK_SLOT + s for s in range(4) for _ in range(take[s]))
                spare = LayOffTarget(ctx, union).spare
                out.append((Group("layoff", tuple(laid), c, spare, table=t), slots, 1 << t))
                break  # the fewest wilds that make it valid; more go via spare
    return out

