"""Hand-checked golden hands (``golden_hands.txt``) against the solver and the reference.

Why both: the random comparison (``reference_hands.py``, ``test_reference_*.py``) only
shows that the solver and the brute-force reference agree; these cases, each
worked out by hand from the rules (docs/rules.md), show that the reference itself is right.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from service import solver
from service.core.melds import meld_kinds
from service.core.rules import Rules, resolve_rules
from tests.solver import reference_solver as ref

GOLDEN = Path(__file__).with_name("golden_hands.txt")


@dataclass(frozen=True)
class GoldenCase:
    """One line of the golden file, parsed."""

    line: int
    comment: str
    text: str
    rules: Rules
    wild_rank: int | None
    cards: tuple[int, ...]
    table: tuple[tuple[int, ...], ...] = ()
    contract: tuple[int, int] | None = None
    penalty: int | None = None
    go_out: frozenset[int] | None = None
    kinds: frozenset[str] | None = None


def _option_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_rules(text: str) -> Rules:
    """``classic aces=wrap max_wilds_per_meld=1`` → resolved Rules."""
    words = text.split()
    spec: dict[str, Any] = {"preset": words[0]}
    for word in words[1:]:
        key, _, value = word.partition("=")
        spec[key] = _option_value(value)
    return resolve_rules(spec)


def _cards_or_dash(text: str) -> list[int]:
    return [] if text.strip() == "-" else ref.parse_many(text)


def parse_case(line_no: int, comment: str, line: str) -> GoldenCase:
    """Parse one case line (see the header of golden_hands.txt for the format)."""
    fields = [f.strip() for f in line.split(" | ")]
    rules = parse_rules(fields[0])
    keyword, _, wild = fields[1].partition(" ")
    assert keyword == "wild", f"line {line_no}: second field must be 'wild R'"
    wild_rank = None if wild.strip() == "none" else ref.parse_rank_char(wild)
    cards = tuple(ref.parse_many(fields[2]))
    found: dict[str, Any] = {}
    for field in fields[3:]:
        key, _, rest = field.partition(" ")
        if key == "table":
            found["table"] = tuple(tuple(ref.parse_many(m)) for m in rest.split(","))
        elif key == "contract":
            sets, runs = rest.split()
            found["contract"] = (int(sets), int(runs))
        elif key == "penalty":
            found["penalty"] = int(rest)
        elif key == "go_out":
            found["go_out"] = frozenset(_cards_or_dash(rest))
        elif key == "kinds":
            found["kinds"] = frozenset() if rest.strip() == "-" else frozenset(rest.split())
        else:
            raise AssertionError(f"line {line_no}: unknown field {field!r}")
    assert ("penalty" in found) != ("kinds" in found), f"line {line_no}: penalty xor kinds"
    return GoldenCase(line_no, comment, line, rules, wild_rank, cards, **found)


def load_cases() -> list[GoldenCase]:
    """Every case of the golden file; the nearest ``#`` line above names it."""
    cases = []
    comment = ""
    for number, raw in enumerate(GOLDEN.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            comment = line.lstrip("# ").strip()
            continue
        cases.append(parse_case(number, comment, line))
    return cases


CASES = load_cases()
HAND_CASES = [c for c in CASES if c.penalty is not None]
KINDS_CASES = [c for c in CASES if c.kinds is not None]


def _id(case: GoldenCase) -> str:
    return f"line{case.line}"


def _solver() -> Any:
    return solver


def test_the_golden_file_has_the_worked_examples_and_forty_more_hands() -> None:
    """Every worked example of the rules (docs/rules.md), plus at least 40 hand cases."""
    assert len(HAND_CASES) >= 45
    texts = {c.text.split(" | penalty")[0] for c in HAND_CASES}
    assert "classic | wild 5 | 4S 5H 6S KD KC 9H" in texts
    assert "classic | wild 3 | 3H 3D 9C 9S" in texts


@pytest.mark.parametrize("case", HAND_CASES, ids=_id)
def test_the_reference_solver_scores_each_golden_hand_as_worked_out_by_hand(
    case: GoldenCase,
) -> None:
    """Pins the reference to hand-checked answers, so agreeing with it means something."""
    got = ref.analyze(case.cards, case.wild_rank, case.rules, case.table, case.contract)
    assert got.penalty == case.penalty, case.comment
    if case.go_out is not None:
        assert got.go_out == case.go_out, (case.comment, ref.cards_text(sorted(got.go_out)))


@pytest.mark.parametrize("case", KINDS_CASES, ids=_id)
def test_the_reference_validator_names_the_kinds_of_each_golden_meld(case: GoldenCase) -> None:
    """The reference's meld validator matches the hand-checked kinds."""
    assert ref.meld_kinds(case.cards, case.wild_rank, case.rules) == case.kinds, case.comment


@pytest.mark.parametrize("case", HAND_CASES, ids=_id)
def test_the_solver_scores_each_golden_hand_as_worked_out_by_hand(case: GoldenCase) -> None:
    """The solver's penalty, go-out discards and arrangements match the hand-checked case."""
    solver = _solver()
    analysis = solver.analyze(
        list(case.cards), case.wild_rank, case.rules, table=case.table, contract=case.contract
    )
    assert analysis.penalty == case.penalty, case.comment
    problems = ref.arrangement_problems(
        case.cards, analysis.best, case.wild_rank, case.rules, case.table, case.penalty
    )
    assert not problems, (case.comment, problems)
    if case.go_out is not None:
        assert frozenset(analysis.go_out) == case.go_out, (
            case.comment,
            ref.cards_text(sorted(analysis.go_out)),
        )
    for discard, arrangement in analysis.go_out.items():
        rest = list(case.cards)
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
        assert not problems, (case.comment, ref.card_text(discard), problems)
    best = solver.solve(list(case.cards), case.wild_rank, case.rules, table=case.table)
    assert best.penalty == case.penalty, case.comment


@pytest.mark.parametrize("case", KINDS_CASES, ids=_id)
def test_the_solver_names_the_kinds_of_each_golden_meld(case: GoldenCase) -> None:
    """``meld_kinds`` matches the hand-checked kinds."""
    assert frozenset(meld_kinds(list(case.cards), case.wild_rank, case.rules)) == (
        case.kinds
    ), case.comment
