"""The hands the solver is compared on with the brute-force reference, and the comparison.

Why: the solver prunes and memoises cleverly, and a pruning bug shows up only
on rare hands. The reference (``reference_solver.py``) is slow but plain, and is
itself checked against the hand-checked ``golden_hands.txt``. Both analyse the
same generated hands and must agree on the penalty, on the set of go-out
discards (from ``analyze`` and, without a table, from the going-out test
``go_out_cards``) and on every discard's penalty; every arrangement the solver returns is
also checked card by card with the reference's own meld validator.

Generation: hypothesis draws a seed per example (derandomized, so CI is
reproducible) and each example analyses a batch of hands built from that seed
with :class:`random.Random` — this keeps hypothesis' per-example overhead off
twenty thousand hands. On a disagreement the failing hand is shrunk greedily
(dropping cards while the disagreement persists) and reported in docs/rules.md
notation together with its rules.

The scenarios are compared in three files (``test_reference_*.py``) of about the same
CPU, so that ``make test``, which gives each file to one process, runs them side by side
instead of one process comparing all twenty thousand hands while the others wait. Each
file's last test checks its share of the volume (:data:`FULL_PLAN`: every hand planned
was compared, and at least :data:`LARGE_AT_LEAST` of them had 12-14 cards);
``test_reference_plan.py`` checks that the shares add up to 20,000 hands and 500 large.

``ENGINE_REFERENCE_HANDS`` (default 20,000, the full volume that ``make test`` runs)
scales every scenario's batch down for the fast tier (``make test-fast``): each scenario
still compares its hands, only fewer.
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import Phase, settings
from hypothesis import strategies as st

from service import solver
from service.core.rules import Rules, resolve_rules
from tests.solver import reference_solver as ref

ACES = ("low", "high", "both", "wrap")
PRESETS = ("classic", "bga", "family")
JOKER = ref.JOKER_CARD


@dataclass(frozen=True)
class Case:
    """One generated hand with everything the solver is asked about it."""

    hand: tuple[int, ...]
    wild_rank: int | None
    spec: tuple[tuple[str, Any], ...]  # the rules spec, kept for the failure report
    rules: Rules
    table: tuple[tuple[int, ...], ...] = ()
    contract: tuple[int, int] | None = None

    def describe(self) -> str:
        wild = "none" if self.wild_rank is None else "A23456789TJQK"[self.wild_rank - 1]
        text = f"rules {dict(self.spec)} | wild {wild} | hand {ref.cards_text(self.hand)}"
        if self.table:
            text += " | table " + ", ".join(ref.cards_text(m) for m in self.table)
        if self.contract is not None:
            text += f" | contract {self.contract[0]} {self.contract[1]}"
        return text


# -- rules, shoes and wild ranks --------------------------------------------------------


def make_rules(spec: dict[str, Any]) -> tuple[tuple[tuple[str, Any], ...], Rules]:
    return tuple(sorted(spec.items())), resolve_rules(spec)


def random_spec(rng: random.Random, **forced: Any) -> dict[str, Any]:
    """A preset with a random mix of the meld and penalty options."""
    spec: dict[str, Any] = {"preset": rng.choice(PRESETS)}
    if rng.random() < 0.6:
        spec["aces"] = rng.choice(ACES)
    if rng.random() < 0.3:
        spec["max_wilds_per_meld"] = rng.choice([0, 1, 1, 2, 3])
    if rng.random() < 0.25:
        spec["min_naturals_per_meld"] = rng.choice([0, 1, 1, 2])
    if rng.random() < 0.1:
        spec["ace_penalty"] = 15
    if rng.random() < 0.08:
        spec["wild_penalty"] = rng.choice([None, 0, 20])
    if rng.random() < 0.04:
        spec["card_values"] = {rng.choice("A23456789TJQK"): 0}
    if spec["preset"] != "bga" and rng.random() < 0.2:
        spec["jokers"] = rng.choice([2, 4])
    spec.update(forced)
    return spec


def shoe(rng: random.Random, rules: Rules) -> list[int]:
    """Two or three decks plus the rules' printed jokers."""
    return list(range(52)) * rng.choice([2, 2, 3]) + [JOKER] * rules.jokers


def round_wild(rng: random.Random, size: int) -> int | None:
    """The wild rank of a round whose hand (after drawing or not) has ``size`` cards.

    Mostly the real round's wild rank (hand size, or hand size - 1 after a draw;
    14 cards = aces), sometimes none or any rank.
    """
    roll = rng.random()
    if roll < 0.1:
        return None
    if roll < 0.2:
        return rng.randint(1, 13)
    dealt = size if rng.random() < 0.5 or size == 3 else size - 1
    return 1 if dealt == 14 else dealt


def hand_size(rng: random.Random, lo: int = 3, hi: int = 14) -> int:
    return rng.randint(lo, hi)


def is_wild(card: int, wild_rank: int | None) -> bool:
    return card == JOKER or ref._rank(card) == wild_rank


def _card(rank: int, suit: int) -> int:
    return suit * 13 + (rank - 1) % 13


def _fill(rng: random.Random, cards: list[int], pool: list[int], size: int) -> list[int]:
    """Top ``cards`` up (or cut them down) to ``size`` with cards drawn from ``pool``."""
    cards = cards[:size]
    while len(cards) < size:
        cards.append(rng.choice(pool))
    rng.shuffle(cards)
    return cards


def _clump_pool(rng: random.Random, full: list[int]) -> list[int]:
    """Cards of one or two suits within a window of about six ranks (may wrap past K)."""
    suits = rng.sample(range(4), rng.choice([1, 2, 2, 4]))
    start = rng.randint(1, 13)
    width = rng.randint(4, 8)
    ranks = {(start - 1 + i) % 13 + 1 for i in range(width)}
    pool = [c for c in full if c != JOKER and ref._suit(c) in suits and ref._rank(c) in ranks]
    return pool or [c for c in full if c != JOKER]


def _wild_pool(full: list[int], wild_rank: int | None) -> list[int]:
    return [c for c in full if is_wild(c, wild_rank)]


# -- scenarios: each builds one Case from a Random -------------------------------------


def random_hand(rng: random.Random) -> Case:
    """Plain random hands of 3-14 cards, any preset and options."""
    spec, rules = make_rules(random_spec(rng))
    size = hand_size(rng)
    return Case(tuple(rng.sample(shoe(rng, rules), size)), round_wild(rng, size), spec, rules)


def clumped_hand(rng: random.Random) -> Case:
    """Hands from a narrow band of ranks and suits plus some wilds: many overlapping melds."""
    spec, rules = make_rules(random_spec(rng))
    size = hand_size(rng)
    wild = round_wild(rng, size)
    full = shoe(rng, rules)
    pool = _clump_pool(rng, full)
    wilds = _wild_pool(full, wild)
    cards = [rng.choice(wilds) for _ in range(rng.randint(0, 3)) if wilds]
    return Case(tuple(_fill(rng, cards, pool, size)), wild, spec, rules)


def wild_heavy_hand(rng: random.Random) -> Case:
    """Four to eight wilds (wild-rank cards and jokers) among clumped naturals."""
    spec, rules = make_rules(random_spec(rng, jokers=rng.choice([0, 4, 8])))
    size = hand_size(rng, 5, 12)
    wild = rng.choice([None, *range(1, 14)]) if rules.jokers else rng.randint(1, 13)
    full = shoe(rng, rules)
    wilds = _wild_pool(full, wild)
    cards = [rng.choice(wilds) for _ in range(min(size - 1, rng.randint(4, 8)))]
    return Case(tuple(_fill(rng, cards, _clump_pool(rng, full), size)), wild, spec, rules)


def duplicates_hand(rng: random.Random) -> Case:
    """A few distinct cards, each repeated up to three times (three decks)."""
    spec, rules = make_rules(random_spec(rng))
    size = hand_size(rng, 4, 14)
    wild = round_wild(rng, size)
    pool = _clump_pool(rng, list(range(52)))
    distinct = rng.sample(pool, min(len(pool), rng.randint(2, 5)))
    cards = [c for c in distinct for _ in range(rng.randint(1, 3))]
    return Case(tuple(_fill(rng, cards, distinct, size)), wild, spec, rules)


def long_run_hand(rng: random.Random) -> Case:
    """A run of 5-13 ranks of one suit (possibly round the corner), with gaps, wilds, noise."""
    spec, rules = make_rules(random_spec(rng))
    size = hand_size(rng, 6, 14)
    wild = round_wild(rng, size)
    suit = rng.randrange(4)
    start = rng.randint(1, 13)
    length = rng.randint(5, 13)
    run = [_card(start + i, suit) for i in range(length)]
    for _ in range(rng.randint(0, 2)):
        run.pop(rng.randrange(len(run)))
    full = shoe(rng, rules)
    wilds = _wild_pool(full, wild)
    extra = [rng.choice(wilds) for _ in range(rng.randint(0, 2)) if wilds]
    noise = [c for c in full if c != JOKER]
    cards = run[: max(0, size - len(extra))] + extra
    return Case(tuple(_fill(rng, cards, noise, size)), wild, spec, rules)


def aces_hand(rng: random.Random) -> Case:
    """Cards near both ends of the suit (J Q K A 2 3) under every aces mode."""
    spec, rules = make_rules(random_spec(rng, aces=rng.choice(ACES)))
    size = hand_size(rng, 3, 12)
    wild = round_wild(rng, size)
    suits = rng.sample(range(4), rng.choice([1, 1, 2]))
    pool = [_card(r, s) for r in (11, 12, 13, 1, 2, 3) for s in suits] * 2
    full = shoe(rng, rules)
    wilds = _wild_pool(full, wild)
    cards = [rng.choice(wilds) for _ in range(rng.randint(0, 2)) if wilds]
    return Case(tuple(_fill(rng, cards, pool, size)), wild, spec, rules)


def greedy_trap_hand(rng: random.Random) -> Case:
    """A run of 4-6 plus cards of the same rank as one of its cards.

    Taking the longest run first strands those cards; the optimum gives the
    shared card to a set.
    """
    spec, rules = make_rules(random_spec(rng))
    suit = rng.randrange(4)
    start = rng.randint(1, 9)
    run = [_card(start + i, suit) for i in range(rng.randint(4, 6))]
    cards = list(run)
    for shared in rng.sample(run, rng.choice([1, 2])):
        others = [s for s in range(4) if s != suit]
        cards += [_card(ref._rank(shared), s) for s in rng.sample(others, 2)]
    size = min(14, len(cards) + rng.randint(0, 2))
    wild = round_wild(rng, size)
    if wild is not None and any(ref._rank(c) == wild for c in cards) and rng.random() < 0.7:
        wild = rng.choice([r for r in range(1, 14) if all(ref._rank(c) != r for c in cards)])
    return Case(tuple(_fill(rng, cards, list(range(52)), size)), wild, spec, rules)


def self_standing_hand(rng: random.Random) -> Case:
    """A run through the wild rank's own card, under max_wilds_per_meld 0/1 or min naturals.

    The wild-rank card must stand for itself so that another wild fits the limit.
    """
    limit = rng.choice(
        [
            {"max_wilds_per_meld": 1},
            {"max_wilds_per_meld": 0},
            {"min_naturals_per_meld": 2},
            {"max_wilds_per_meld": 1, "preset": "family"},
        ]
    )
    spec, rules = make_rules(random_spec(rng, **limit))
    wild = rng.randint(1, 13)
    suit = rng.randrange(4)
    offset = rng.randint(0, 2)
    run = [_card(wild - offset + i, suit) for i in range(rng.randint(3, 5))]
    full = shoe(rng, rules)
    wilds = _wild_pool(full, wild)
    cards = run + [rng.choice(wilds) for _ in range(rng.randint(1, 3))]
    size = min(14, len(cards) + rng.randint(0, 3))
    return Case(tuple(_fill(rng, cards, _clump_pool(rng, full), size)), wild, spec, rules)


def _random_table_meld(rng: random.Random, wild: int | None, rules: Rules) -> tuple[int, ...]:
    """A valid meld for the table: a set or run of 3-5 naturals, one card maybe a wild."""
    while True:
        length = rng.randint(3, 5)
        if rng.random() < 0.5:
            rank = rng.randint(1, 13)
            meld = [_card(rank, rng.randrange(4)) for _ in range(length)]
        else:
            suit, start = rng.randrange(4), rng.randint(1, 13)
            meld = [_card(start + i, suit) for i in range(length)]
        if rng.random() < 0.4:
            wilds = [JOKER] if rules.jokers else []
            if wild is not None:
                wilds.append(_card(wild, rng.randrange(4)))
            if wilds:
                meld[rng.randrange(length)] = rng.choice(wilds)
        if ref.meld_kinds(meld, wild, rules):
            return tuple(meld)


def lay_off_hand(rng: random.Random) -> Case:
    """lay_off on, one to three table melds, hand cards near the table's ranks."""
    spec, rules = make_rules(random_spec(rng, lay_off=True))
    size = hand_size(rng, 3, 12)
    wild = round_wild(rng, size)
    table = tuple(_random_table_meld(rng, wild, rules) for _ in range(rng.randint(1, 3)))
    near = [
        _card(ref._rank(c) + d, s)
        for meld in table
        for c in meld
        if c != JOKER
        for d in (-2, -1, 0, 1, 2)
        for s in range(4)
    ]
    full = shoe(rng, rules)
    pool = near + _wild_pool(full, wild) + rng.sample(full, 10)
    return Case(tuple(rng.choice(pool) for _ in range(size)), wild, spec, rules, table)


def contract_hand(rng: random.Random) -> Case:
    """A go-out contract of sets and runs, on clumped hands that often can go out."""
    case = clumped_hand(rng)
    contract = rng.choice([(0, 0), (1, 0), (0, 1), (1, 1), (2, 0), (0, 2), (2, 1), (1, 2)])
    table: tuple[tuple[int, ...], ...] = ()
    rules, spec = case.rules, case.spec
    if rng.random() < 0.2:
        spec, rules = make_rules({**dict(case.spec), "lay_off": True})
        table = (_random_table_meld(rng, case.wild_rank, rules),)
    return Case(case.hand, case.wild_rank, spec, rules, table, contract)


# -- the comparison -----------------------------------------------------------------------


def disagreements(case: Case) -> list[str]:
    """Every way the solver's analysis of ``case`` differs from the reference; empty = agree."""
    hand = list(case.hand)
    # a hand of a game's size is a game position: it gets the game's budget, as in play
    steps = solver.GAME_STEP_BUDGET if len(hand) <= 15 else solver.STEP_BUDGET
    got = solver.analyze(hand, case.wild_rank, case.rules, table=case.table,
                         contract=case.contract, steps=steps)
    want = ref.analyze(hand, case.wild_rank, case.rules, case.table, case.contract)
    out = []
    if got.penalty != want.penalty:
        out.append(f"penalty: solver {got.penalty}, reference {want.penalty}")
    if frozenset(got.go_out) != want.go_out:
        out.append(
            f"go_out: solver {ref.cards_text(sorted(got.go_out))}, "
            f"reference {ref.cards_text(sorted(want.go_out))}"
        )
    if not case.table:  # the going-out test of a turn (no table in a game's going out)
        fast = solver.go_out_cards(hand, case.wild_rank, case.rules, case.contract, steps=steps)
        if fast != want.go_out:
            out.append(
                f"go_out_cards: {ref.cards_text(sorted(fast))}, "
                f"reference {ref.cards_text(sorted(want.go_out))}"
            )
    if tuple(got.discards) != want.discards:
        out.append(f"discards: solver {got.discards}, reference {want.discards}")
    problems = ref.arrangement_problems(
        hand, got.best, case.wild_rank, case.rules, case.table, want.penalty
    )
    out += [f"best: {p}" for p in problems]
    for discard, arrangement in got.go_out.items():
        rest = list(hand)
        if discard not in rest:
            out.append(f"go_out discard {ref.card_text(discard)} is not in the hand")
            continue
        rest.remove(discard)
        problems = ref.arrangement_problems(
            rest,
            arrangement,
            case.wild_rank,
            case.rules,
            case.table,
            0,
            contract=case.contract,
            going_out=True,
        )
        out += [f"go_out {ref.card_text(discard)}: {p}" for p in problems]
    return out


def shrink(case: Case) -> Case:
    """Drop hand cards (then table melds) one at a time while the disagreement persists."""
    changed = True
    while changed:
        changed = False
        for i in range(len(case.hand)):
            smaller = Case(
                case.hand[:i] + case.hand[i + 1 :],
                case.wild_rank,
                case.spec,
                case.rules,
                case.table,
                case.contract,
            )
            if smaller.hand and disagreements(smaller):
                case, changed = smaller, True
                break
        for i in range(len(case.table)):
            smaller = Case(
                case.hand,
                case.wild_rank,
                case.spec,
                case.rules,
                case.table[:i] + case.table[i + 1 :],
                case.contract,
            )
            if disagreements(smaller):
                case, changed = smaller, True
                break
    return case


#: hands analysed per scenario in this process (checked by the last test of each file)
HANDS: Counter[str] = Counter()
LARGE_HANDS: Counter[str] = Counter()
SECONDS: Counter[str] = Counter()


def run_batch(name: str, make: Callable[[random.Random], Case], seed: int, count: int) -> None:
    """Analyse ``count`` hands of one scenario; fail with the shrunk hand on disagreement."""
    rng = random.Random(seed)
    started = time.perf_counter()
    for _ in range(count):
        case = make(rng)
        problems = disagreements(case)
        if problems:
            small = shrink(case)
            pytest.fail(
                f"{name} (seed {seed}): solver and reference disagree on\n"
                f"  {small.describe()}\n  "
                + "\n  ".join(disagreements(small))
                + f"\n(original hand: {case.describe()})"
            )
        HANDS[name] += 1
        LARGE_HANDS[name] += len(case.hand) >= 12
    SECONDS[name] += time.perf_counter() - started


def _settings(examples: int) -> settings:
    """The settings of a scenario's test. (Its name, like the tests' own source, is part
    of what hypothesis derives the seeds from: as it is, they draw the hands they always
    drew.)"""
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
    )


SEEDS = st.integers(min_value=0, max_value=2**32 - 1)

#: the hands of a full run, and those this run compares (``ENGINE_REFERENCE_HANDS``)
FULL_VOLUME = 20_000
VOLUME = int(os.environ.get("ENGINE_REFERENCE_HANDS", str(FULL_VOLUME)))

#: scenario → (hypothesis examples, hands per example) of a full run
FULL_PLAN: dict[str, tuple[int, int]] = {
    "random": (60, 100),
    "clumped": (60, 70),
    "wild_heavy": (40, 50),
    "duplicates": (30, 50),
    "long_run": (30, 35),
    "aces": (30, 50),
    "greedy_trap": (30, 50),
    "self_standing": (30, 50),
    "lay_off": (30, 50),
    "contract": (30, 50),
}
#: the plan of this run: every batch scaled by VOLUME / FULL_VOLUME (at least one hand)
PLAN = {name: (examples, max(1, batch * min(VOLUME, FULL_VOLUME) // FULL_VOLUME))
        for name, (examples, batch) in FULL_PLAN.items()}


#: scenario → the 12-14-card hands its full run must include at least: together the 500
#: the volume asks for, each well under what its generator gives (22,250 hands, 4,334
#: large when this was written; self_standing's runs keep its hands short)
LARGE_AT_LEAST: dict[str, int] = {
    "random": 150,
    "clumped": 100,
    "wild_heavy": 50,
    "duplicates": 40,
    "long_run": 50,
    "aces": 20,
    "greedy_trap": 20,
    "self_standing": 0,
    "lay_off": 20,
    "contract": 50,
}


def check_share(names: Iterable[str]) -> None:
    """The last test of a file comparing the scenarios ``names``: each compared every hand
    of its plan, and, at full volume, at least its share of large hands. Skipped when only
    part of the file ran (``-k``) or at a smaller volume (``make test-fast``)."""
    names = list(names)
    if not set(names) <= set(HANDS):
        pytest.skip("only part of the comparison ran")
    for name in names:
        examples, batch = PLAN[name]
        assert HANDS[name] == examples * batch, (name, HANDS[name], examples * batch)
    if PLAN != FULL_PLAN:
        pytest.skip(f"ENGINE_REFERENCE_HANDS={VOLUME}: a smaller comparison; make test runs "
                    "the full one")
    for name in names:
        assert LARGE_HANDS[name] >= LARGE_AT_LEAST[name], (name, LARGE_HANDS[name])
    print(f"hands {dict(HANDS)}; large {dict(LARGE_HANDS)}; seconds {dict(SECONDS)}")
