"""A brute-force reference for the meld solver, written from the rules (docs/rules.md) alone.

Why it exists: the real solver (``service/engine/solver.py``) is clever and
fast; this module is slow and plain, so that the two can be compared on tens of
thousands of hands. It shares no code with the engine on purpose — the only
thing it takes from ``service.engine`` is the :class:`Rules` *value* handed in
by the caller, whose fields it reads. Card decoding, meld validation, penalties
and the search are all re-implemented here.

How it works:

* :func:`meld_kinds` decides whether a group of cards is one valid meld by
  trying every way to designate the wild-rank cards as wild or natural, and for
  a run every window of consecutive ranks the aces mode allows.
* :func:`analyze` lists every sub-multiset of the hand (as bitmasks over card
  positions) that is a meld, then solves a DP over bitmasks:
  ``f(mask)`` = the least penalty of the cards in ``mask``, where the lowest
  card of ``mask`` is either deadwood or in some meld (or lay-off group) that
  lies inside ``mask``. ``f(full - one copy of c)`` is the penalty after
  discarding ``c``. Going out uses a second DP that asks whether ``mask`` can be
  melded completely while still owing ``s`` sets and ``r`` runs to a contract.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import product
from typing import Any, Protocol

__all__ = [
    "JOKER_CARD",
    "RefAnalysis",
    "analyze",
    "arrangement_problems",
    "card_text",
    "cards_text",
    "contract_met",
    "deadwood_value",
    "meld_kinds",
    "parse",
    "parse_many",
]

# -- cards (own decoding, deliberately not imported) ------------------------------

JOKER_CARD = 52
_RANK_CHARS = "A23456789TJQK"
_SUIT_CHARS = "SHDC"


def parse(text: str) -> int:
    """``"7H"`` → card integer (suit * 13 + rank - 1); ``"JK"`` → 52. Also ``10H``."""
    t = text.strip().upper()
    if t == "JK":
        return JOKER_CARD
    rank_text, suit_text = t[:-1], t[-1]
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in _RANK_CHARS or suit_text not in _SUIT_CHARS:
        raise ValueError(f"not a card: {text!r}")
    return _SUIT_CHARS.index(suit_text) * 13 + _RANK_CHARS.index(rank_text)


def parse_many(text: str) -> list[int]:
    """Whitespace-separated cards → list of ints."""
    return [parse(t) for t in text.split()]


def parse_rank_char(text: str) -> int:
    """``"A"`` → 1 … ``"K"`` → 13 (``"10"`` also accepted)."""
    t = text.strip().upper()
    t = "T" if t == "10" else t
    if len(t) != 1 or t not in _RANK_CHARS:
        raise ValueError(f"not a rank: {text!r}")
    return _RANK_CHARS.index(t) + 1


def card_text(card: int) -> str:
    if card == JOKER_CARD:
        return "JK"
    return _RANK_CHARS[card % 13] + _SUIT_CHARS[card // 13]


def cards_text(cards: Iterable[int]) -> str:
    return " ".join(card_text(c) for c in cards)


def _rank(card: int) -> int:
    return card % 13 + 1


def _suit(card: int) -> int:
    return card // 13


# -- rules as read by the reference -----------------------------------------------


class RulesLike(Protocol):
    """The fields of ``service.core.rules.Rules`` this module reads."""

    aces: str
    card_values: tuple[int, ...]
    wild_penalty: int | None
    joker_penalty: int
    ace_penalty: int | None
    min_naturals_per_meld: int
    max_wilds_per_meld: int | None
    lay_off: bool


def deadwood_value(card: int, wild_rank: int | None, rules: RulesLike) -> int:
    """Penalty of one card left in deadwood (docs/rules.md "Presets" and "Options").

    Printed joker → ``joker_penalty``; a card of the wild rank → ``wild_penalty``
    unless that is null; otherwise ``ace_penalty`` for an ace if set, else
    ``card_values``.
    """
    if card == JOKER_CARD:
        return rules.joker_penalty
    rank = _rank(card)
    if rank == wild_rank and rules.wild_penalty is not None:
        return rules.wild_penalty
    if rank == 1 and rules.ace_penalty is not None:
        return rules.ace_penalty
    return rules.card_values[rank - 1]


# -- meld validation --------------------------------------------------------------


@cache
def _run_windows(length: int, aces: str) -> tuple[frozenset[int], ...]:
    """Every set of ``length`` consecutive ranks a run may occupy under ``aces``.

    Ranks are 1..13 with A = 1. ``low``: A only below 2; ``high``: A only above
    K (position 14); ``both``: either, each window one or the other; ``wrap``:
    round the corner, any start. No window holds a rank twice, so length ≤ 13.
    """
    if not 3 <= length <= 13:
        return ()
    low = [frozenset(range(s, s + length)) for s in range(1, 14 - length + 1)]
    high = [
        frozenset(1 if p == 14 else p for p in range(s, s + length))
        for s in range(2, 15 - length + 1)
    ]
    wrap = [frozenset((s - 1 + i) % 13 + 1 for i in range(length)) for s in range(1, 14)]
    chosen = {"low": low, "high": high, "both": low + high, "wrap": wrap}[aces]
    return tuple(dict.fromkeys(chosen))


def _is_set(naturals: Sequence[int]) -> bool:
    return len({_rank(c) for c in naturals}) <= 1


def _is_run(naturals: Sequence[int], size: int, aces: str) -> bool:
    if len({_suit(c) for c in naturals}) > 1:
        return False
    ranks = [_rank(c) for c in naturals]
    if len(set(ranks)) != len(ranks):
        return False
    need = set(ranks)
    return any(need <= window for window in _run_windows(size, aces))


def _rules_key(rules: RulesLike) -> tuple[Any, ...]:
    return (rules.aces, rules.max_wilds_per_meld, rules.min_naturals_per_meld)


def meld_kinds(cards: Sequence[int], wild_rank: int | None, rules: RulesLike) -> frozenset[str]:
    """Which kinds (``"set"``, ``"run"``) ``cards`` form as one valid meld; empty if none."""
    return _kinds(tuple(sorted(cards)), wild_rank, _rules_key(rules))


@lru_cache(maxsize=1_000_000)
def _kinds(cards: tuple[int, ...], wild_rank: int | None, key: tuple[Any, ...]) -> frozenset[str]:
    aces, max_wilds, min_naturals = key
    size = len(cards)
    if size < 3:
        return frozenset()
    jokers = sum(1 for c in cards if c == JOKER_CARD)
    fixed = [c for c in cards if c != JOKER_CARD and _rank(c) != wild_rank]
    flexible = [c for c in cards if c != JOKER_CARD and _rank(c) == wild_rank]
    distinct_flexible = sorted(set(flexible))
    found: set[str] = set()
    # For each distinct wild-rank card, how many of its copies are used as wild
    # (the rest stand for themselves and are natural). Copies are interchangeable.
    for wild_counts in product(*(range(flexible.count(c) + 1) for c in distinct_flexible)):
        naturals = list(fixed)
        for c, as_wild in zip(distinct_flexible, wild_counts, strict=True):
            naturals += [c] * (flexible.count(c) - as_wild)
        used_as_wild = jokers + sum(wild_counts)
        if max_wilds is not None and used_as_wild > max_wilds:
            continue
        if len(naturals) < min_naturals:
            continue
        if _is_set(naturals):
            found.add("set")
        if _is_run(naturals, size, aces):
            found.add("run")
    return frozenset(found)


def contract_met(kinds: Sequence[frozenset[str]], contract: tuple[int, int] | None) -> bool:
    """Can the melds (given by their kinds) be counted as ≥ min_sets sets and ≥ min_runs runs?

    Each meld counts once; one that is both kinds may count as either. Brute
    force over every assignment.
    """
    if contract is None:
        return True
    min_sets, min_runs = contract
    options = [[*sorted(k), "none"] for k in kinds]
    for choice in product(*options):
        if choice.count("set") >= min_sets and choice.count("run") >= min_runs:
            return True
    return False


# -- enumeration of melds inside a hand -------------------------------------------


def _meld_masks(
    cards: Sequence[int], wild_rank: int | None, rules: RulesLike, base: Sequence[int] = ()
) -> list[tuple[int, frozenset[str]]]:
    """Every nonempty bitmask ``m`` over ``cards`` such that ``base + cards[m]`` is one meld.

    With ``base`` empty these are the melds of the hand; with ``base`` a table
    meld they are the groups that may be laid off onto it. The search prunes a
    branch once the cards that can only be natural (not jokers, not wild rank)
    can no longer be one rank nor one suit with distinct ranks — adding cards
    never repairs that, so no meld is lost (checked by a test against the
    unpruned enumeration).
    """
    n = len(cards)
    out: list[tuple[int, frozenset[str]]] = []
    base_fixed = [c for c in base if c != JOKER_CARD and _rank(c) != wild_rank]

    def compatible(fixed: list[int]) -> bool:
        ranks = [_rank(c) for c in fixed]
        one_rank = len(set(ranks)) <= 1
        run_like = len({_suit(c) for c in fixed}) <= 1 and len(set(ranks)) == len(ranks)
        return one_rank or run_like

    def walk(i: int, mask: int, chosen: list[int], fixed: list[int]) -> None:
        if i == n:
            if mask and len(base) + len(chosen) >= 3:
                kinds = meld_kinds(list(base) + chosen, wild_rank, rules)
                if kinds:
                    out.append((mask, kinds))
            return
        walk(i + 1, mask, chosen, fixed)
        c = cards[i]
        is_fixed = c != JOKER_CARD and _rank(c) != wild_rank
        new_fixed = [*fixed, c] if is_fixed else fixed
        if is_fixed and not compatible(new_fixed):
            return
        walk(i + 1, mask | (1 << i), [*chosen, c], new_fixed)

    if compatible(base_fixed):
        walk(0, 0, [], base_fixed)
    return out


def _meld_masks_exhaustive(
    cards: Sequence[int], wild_rank: int | None, rules: RulesLike
) -> list[tuple[int, frozenset[str]]]:
    """The unpruned version of :func:`_meld_masks` (every bitmask), for checking it."""
    out = []
    for mask in range(1, 1 << len(cards)):
        group = [c for i, c in enumerate(cards) if mask >> i & 1]
        kinds = meld_kinds(group, wild_rank, rules)
        if kinds:
            out.append((mask, kinds))
    return out


# -- the search -------------------------------------------------------------------


@dataclass(frozen=True)
class RefAnalysis:
    """What the reference computes for a hand.

    ``go_out`` is the set of distinct cards whose discard leaves the rest fully
    melded (and meeting the contract); ``discards`` pairs each distinct card
    with the least penalty of the hand without one copy of it, sorted by
    (penalty, card).
    """

    penalty: int
    go_out: frozenset[int]
    discards: tuple[tuple[int, int], ...]


def analyze(
    hand: Sequence[int],
    wild_rank: int | None,
    rules: RulesLike,
    table: Sequence[Sequence[int]] = (),
    contract: tuple[int, int] | None = None,
) -> RefAnalysis:
    """Brute-force penalty, go-out discards and per-discard penalties of ``hand``."""
    cards = list(hand)
    n = len(cards)
    values = [deadwood_value(c, wild_rank, rules) for c in cards]
    tables = [list(t) for t in table] if rules.lay_off else []

    melds_by_low: list[list[tuple[int, frozenset[str]]]] = [[] for _ in range(n)]
    meld_kinds_of: dict[int, frozenset[str]] = {}
    for mask, kinds in _meld_masks(cards, wild_rank, rules):
        melds_by_low[(mask & -mask).bit_length() - 1].append((mask, kinds))
        meld_kinds_of[mask] = kinds
    # lay-off groups: (table index, mask), bucketed by the lowest hand card
    layoffs_by_low: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for t, meld in enumerate(tables):
        for mask, _kinds in _meld_masks(cards, wild_rank, rules, base=meld):
            layoffs_by_low[(mask & -mask).bit_length() - 1].append((t, mask))

    def melds_within(mask: int, low: int) -> Iterable[tuple[int, frozenset[str]]]:
        """The melds inside ``mask`` that contain its lowest card ``low``.

        Two equivalent ways, whichever is shorter: filter the melds whose
        lowest card is ``low``, or try every sub-mask of ``mask`` holding ``low``.
        """
        bucket = melds_by_low[low]
        rest = mask & ~(1 << low)
        if len(bucket) <= 1 << rest.bit_count():
            for m, kinds in bucket:
                if m & mask == m:
                    yield m, kinds
            return
        sub = rest
        while True:
            m = sub | 1 << low
            kinds = meld_kinds_of.get(m)
            if kinds is not None:
                yield m, kinds
            if sub == 0:
                return
            sub = (sub - 1) & rest

    @cache
    def least(mask: int, used: int) -> int:
        """Least deadwood penalty of the cards in ``mask`` with table melds ``used`` taken.

        Stops early at 0, since no penalty is negative.
        """
        if mask == 0:
            return 0
        low = (mask & -mask).bit_length() - 1
        best = values[low] + least(mask & ~(1 << low), used)
        for m, _kinds in melds_within(mask, low):
            if best == 0:
                return 0
            best = min(best, least(mask & ~m, used))
        for t, m in layoffs_by_low[low]:
            if not used >> t & 1 and m & mask == m:
                best = min(best, least(mask & ~m, used | 1 << t))
        return best

    @cache
    def clears(mask: int, used: int, sets: int, runs: int) -> bool:
        """Can ``mask`` be melded with no deadwood while new melds still owe ``sets``/``runs``?"""
        if mask == 0:
            return sets == 0 and runs == 0
        low = (mask & -mask).bit_length() - 1
        for m, kinds in melds_within(mask, low):
            rest = mask & ~m
            if clears(rest, used, sets, runs):
                return True
            if "set" in kinds and sets and clears(rest, used, sets - 1, runs):
                return True
            if "run" in kinds and runs and clears(rest, used, sets, runs - 1):
                return True
        for t, m in layoffs_by_low[low]:
            if not used >> t & 1 and m & mask == m and clears(mask & ~m, used | 1 << t, sets, runs):
                return True
        return False

    full = (1 << n) - 1
    need_sets, need_runs = contract if contract is not None else (0, 0)
    discards = []
    go_out = set()
    for card in sorted(set(cards)):
        without = full & ~(1 << cards.index(card))
        discards.append((card, least(without, 0)))
        if clears(without, 0, need_sets, need_runs):
            go_out.add(card)
    discards.sort(key=lambda pair: (pair[1], pair[0]))
    return RefAnalysis(least(full, 0), frozenset(go_out), tuple(discards))


# -- checking an arrangement returned by the solver -------------------------------


def arrangement_problems(
    cards: Sequence[int],
    arrangement: Any,
    wild_rank: int | None,
    rules: RulesLike,
    table: Sequence[Sequence[int]] = (),
    expected_penalty: int | None = None,
    contract: tuple[int, int] | None = None,
    going_out: bool = False,
) -> list[str]:
    """Everything wrong with ``arrangement`` (``.melds .deadwood .penalty .layoffs``) for ``cards``.

    Empty list = valid: every meld is one valid meld, every lay-off makes its
    table meld one valid meld (distinct table melds, only with ``lay_off``),
    the cards used are exactly ``cards`` as a multiset, the penalty is the sum
    of the deadwood values (and equals ``expected_penalty`` if given); a
    going-out arrangement has no deadwood and meets ``contract``.
    """
    problems = []
    melds = [tuple(m) for m in arrangement.melds]
    layoffs = [(i, tuple(g)) for i, g in arrangement.layoffs]
    deadwood = list(arrangement.deadwood)
    kinds = []
    for m in melds:
        k = meld_kinds(m, wild_rank, rules)
        kinds.append(k)
        if not k:
            problems.append(f"not a meld: {cards_text(m)}")
    if layoffs and not rules.lay_off:
        problems.append("lay-offs although lay_off is off")
    seen_tables = set()
    for index, group in layoffs:
        if not 0 <= index < len(table):
            problems.append(f"lay-off onto missing table meld {index}")
            continue
        if index in seen_tables:
            problems.append(f"two lay-off groups on table meld {index}")
        seen_tables.add(index)
        if not group:
            problems.append(f"empty lay-off group on table meld {index}")
        if not meld_kinds(list(table[index]) + list(group), wild_rank, rules):
            problems.append(
                f"lay-off {cards_text(group)} onto {cards_text(table[index])} is not a meld"
            )
    used = [c for m in melds for c in m] + [c for _i, g in layoffs for c in g] + deadwood
    if sorted(used) != sorted(cards):
        problems.append(
            f"cards used {cards_text(sorted(used))} != hand {cards_text(sorted(cards))}"
        )
    value = sum(deadwood_value(c, wild_rank, rules) for c in deadwood)
    if value != arrangement.penalty:
        problems.append(f"penalty {arrangement.penalty} but deadwood is worth {value}")
    if expected_penalty is not None and arrangement.penalty != expected_penalty:
        problems.append(f"penalty {arrangement.penalty}, optimum is {expected_penalty}")
    if going_out:
        if deadwood:
            problems.append(f"going out with deadwood {cards_text(deadwood)}")
        if not contract_met(kinds, contract):
            problems.append(f"melds do not meet the contract {contract}")
    return problems
