"""``make bench-solve``: wall time of the solver's full result, against the brute force.

A full result is what ``POST /v1/solve`` returns: the penalty, the go-out discards
and the discard analysis (``solver.analyze``). Each hand set is timed one hand at a
time (``time.perf_counter``). On a sample of the same hands, in the same run, two
references that share no code with the solver are timed
(tests/solver/reference_solver.py): the *brute force* as the issue defines it
(validate every one of the 2^n subsets of the hand, then a DP over bitmasks for
the partition, giving every discard at once), and the test suite's *reference*,
the same with the subset enumeration pruned as soon as a subset can no longer be
a meld. The speed-up is against the brute force.

A second table times the going-out test of a turn (``solver.go_out_cards``, the
search bounded at zero deadwood) against the path it replaced (``analyze(...).go_out``)
on the same 14-card hands in the same run, hand by hand in turn, so both see the
same machine load.

Medians and the 99th percentile are quoted: the machine is shared and noisy.
The hand sets are fixed by seed, so runs are comparable.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence

from service.core.cards import JOKER, make_card
from service.core.errors import SolverBudgetExceeded
from service.core.rules import resolve_rules
from service.solver import analyze, go_out_cards
from tests.solver import reference_solver

CLASSIC = resolve_rules({"preset": "classic"})
BGA = resolve_rules({"preset": "bga"})
KING = 13


def _shoe(decks: int, jokers: int = 0) -> list[int]:
    return list(range(52)) * decks + [JOKER] * jokers


def random_classic(rng: random.Random, count: int) -> list[list[int]]:
    """(a) Round 11 after drawing: 14 cards from the 2-deck classic shoe, kings wild."""
    shoe = _shoe(2)
    return [rng.sample(shoe, 14) for _ in range(count)]


def adversarial_wilds(rng: random.Random, count: int) -> list[list[int]]:
    """(b) 14 cards with 6-8 wilds (kings), the naturals close together in two suits."""
    hands = []
    for _ in range(count):
        wilds = rng.randint(6, 8)
        kings = [make_card(KING, rng.randrange(4)) for _ in range(wilds)]
        suits = rng.sample(range(4), 2)
        naturals = [make_card(rng.randint(1, 12), rng.choice(suits)) for _ in range(14 - wilds)]
        hands.append(kings + naturals)
    return hands


def bga_jokers(rng: random.Random, count: int) -> list[list[int]]:
    """(c) bga, round 11 after drawing: 14 cards holding all 4 printed jokers."""
    shoe = _shoe(2)
    return [rng.sample(shoe, 10) + [JOKER] * 4 for _ in range(count)]


def thirty_cards(rng: random.Random, count: int) -> list[list[int]]:
    """(d) 30 cards from a 3-deck shoe (the largest hand the API accepts)."""
    shoe = _shoe(3)
    return [rng.sample(shoe, 30) for _ in range(count)]


def bounded_cases() -> dict[str, tuple[list[int], object]]:
    """Inputs built to make a search run away; each must stay within the (d) bound."""
    kings = [make_card(KING, s) for s in range(4)]
    one_suit = [make_card(r, 0) for r in range(1, 14)] * 3
    return {
        "30 wilds (kings + jokers, bga)": (kings * 6 + [JOKER] * 6, BGA),
        "30 kings (classic)": ((kings * 8)[:30], CLASSIC),
        "30 cards of one suit (classic)": (one_suit[:30], CLASSIC),
        "30 cards of one suit (wrap)": (one_suit[:30], resolve_rules({"aces": "wrap"})),
        "30 of one suit (max 1 wild)": (one_suit[:30], resolve_rules({"max_wilds_per_meld": 1})),
        "30 of one suit (family)": (one_suit[:30], resolve_rules({"preset": "family"})),
        "8 identical cards": ([make_card(7, 1)] * 8, CLASSIC),
    }


def _brute_force(hand: Sequence[int], wild: int, rules: object) -> object:
    """The reference with its subset search unpruned: every subset of the hand."""
    pruned = reference_solver._meld_masks

    def every_subset(cards, wild_rank, rules, base=()):
        if base:
            return pruned(cards, wild_rank, rules, base)
        return reference_solver._meld_masks_exhaustive(cards, wild_rank, rules)

    reference_solver._meld_masks = every_subset
    try:
        return reference_solver.analyze(hand, wild, rules)
    finally:
        reference_solver._meld_masks = pruned


def _time(fn: Callable[[Sequence[int]], object], hands: list[list[int]]) -> list[float]:
    """Milliseconds per hand; a hand refused by the step budget counts with its time."""
    out = []
    for hand in hands:
        start = time.perf_counter()
        try:
            fn(hand)
        except SolverBudgetExceeded:
            REFUSED.append(hand)
        out.append((time.perf_counter() - start) * 1000.0)
    return out


#: hands refused by the step budget in this run (printed after the tables)
REFUSED: list[list[int]] = []


def _p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def going_out_rows(sets: list[tuple[str, list[list[int]], object, int]]) -> None:
    """The going-out test, 14-card hands: the old path (the full analysis) against the
    bounded search, timed alternately on each hand; both must give the same set."""
    print(
        f"{'going-out test, 14-card hands':38s} {'n':>5s} {'analyze p50':>11s} {'p99':>7s}"
        f" {'bounded p50':>11s} {'p99':>7s} {'p50 speed-up':>12s}"
    )
    for name, hands, rules, wild in sets:
        old: list[float] = []
        new: list[float] = []
        for hand in hands:
            start = time.perf_counter()
            before = frozenset(analyze(hand, wild, rules).go_out)
            middle = time.perf_counter()
            after = go_out_cards(hand, wild, rules)
            end = time.perf_counter()
            assert after == before, hand
            old.append((middle - start) * 1000.0)
            new.append((end - middle) * 1000.0)
        p50_old, p50_new = statistics.median(old), statistics.median(new)
        print(
            f"{name:38s} {len(hands):5d} {p50_old:11.3f} {_p(old, 0.99):7.3f}"
            f" {p50_new:11.3f} {_p(new, 0.99):7.3f} {p50_old / p50_new:11.1f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000, help="hands per set (a, b, c)")
    parser.add_argument("--ref-hands", type=int, default=40, help="hands timed on the references")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    sets = [
        ("(a) random 14-card classic, K wild", random_classic(rng, args.hands), CLASSIC, KING),
        ("(b) adversarial 14-card, 6-8 wilds", adversarial_wilds(rng, args.hands), CLASSIC, KING),
        ("(c) bga 14-card with 4 jokers", bga_jokers(rng, args.hands), BGA, KING),
        (
            "(d) random 30-card, 3 decks",
            thirty_cards(rng, max(20, args.hands // 10)),
            CLASSIC,
            KING,
        ),
    ]
    print(
        f"{'hand set':38s} {'n':>5s} {'p50 ms':>8s} {'p99 ms':>8s} {'max ms':>8s}"
        f" {'ref p50':>8s} {'brute p50':>10s} {'speed-up':>9s}"
    )
    for name, hands, rules, wild in sets:
        times = _time(lambda h, r=rules, w=wild: analyze(h, w, r), hands)
        ref = brute = speed = ""
        if not name.startswith("(d)"):
            sample = hands[: args.ref_hands]
            ref_ms = statistics.median(
                _time(lambda h, r=rules, w=wild: reference_solver.analyze(h, w, r), sample)
            )
            brute_ms = statistics.median(
                _time(lambda h, r=rules, w=wild: _brute_force(h, w, r), sample)
            )
            ours = statistics.median(_time(lambda h, r=rules, w=wild: analyze(h, w, r), sample))
            ref, brute = f"{ref_ms:8.2f}", f"{brute_ms:10.1f}"
            speed = f"{brute_ms / ours:8.0f}x"
        print(
            f"{name:38s} {len(hands):5d} {statistics.median(times):8.3f} {_p(times, 0.99):8.3f}"
            f" {max(times):8.3f} {ref:>8s} {brute:>10s} {speed:>9s}"
        )
    print()
    going_out_rows(sets[:3])
    print()
    print(f"{'bounded input':38s} {'ms':>8s} {'penalty':>8s}")
    for name, (hand, rules) in bounded_cases().items():
        start = time.perf_counter()
        try:
            penalty = str(analyze(hand, KING, rules).penalty)
        except SolverBudgetExceeded:
            penalty = "refused"
        ms = (time.perf_counter() - start) * 1000.0
        print(f"{name:38s} {ms:8.1f} {penalty:>8s}")
    print(f"\nhands refused by the step budget: {len(REFUSED)}")


if __name__ == "__main__":
    main()
