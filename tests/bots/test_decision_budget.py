"""A bot decision's work is bounded by its budget, counted in the solver's own steps.

The steps are read from the solver's ``Budget`` object of each analysis (``analyze`` is
wrapped to see them), never timed: the bound then holds, and is the same, on any
machine. Positions are from an 8-player round of 14-card hands with 8 jokers and
lay-offs, the costliest the rules allow.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from service.bots import EXPERT_BUDGET, STRONG_BUDGET, ExpertBot, StrongBot
from service.bots import budget as budget_module
from service.bots.budget import LAY_OFF_WEIGHT, DecisionBudget, clear_cache, units
from service.core.cards import JOKER, parse_cards
from service.core.rules import resolve_rules
from service.solver.budget import Budget

from .positions import WORST, SeatPosition, positions

#: A refused search stops at the first step past its limit; the solver spends steps a
#: few at a time (an expanded state and its options at once), so it may pass by that much.
OVERSHOOT = LAY_OFF_WEIGHT * 100

Search = tuple[tuple[tuple[int, ...], ...], Budget]


@pytest.fixture
def searches(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Search]]:
    """Every solver search the bots run, with its table and the solver's own step counter."""
    seen: list[Search] = []
    real = budget_module.analyze

    def counted(hand: Any, wild: Any, rules: Any, table: Any = (), contract: Any = None,
                **kw: Any) -> Any:
        seen.append((table, kw["budget"]))
        return real(hand, wild, rules, table, contract, **kw)

    monkeypatch.setattr(budget_module, "analyze", counted)
    clear_cache()
    yield seen
    clear_cache()


@pytest.fixture(scope="module")
def worst() -> list[SeatPosition]:
    found = positions(WORST, 8, 1, "budget")
    looking = [p for p in found if p[0]["round"]["phase"] in ("discard", "final_draw")]
    return random.Random("budget").sample(looking, 8)


def _decide(position: SeatPosition, budget: int | None,
            kind: type[StrongBot] = StrongBot) -> DecisionBudget:
    seat_view, events = position
    bot = kind("b", budget=budget)
    bot.start(seat_view)  # type: ignore[arg-type]
    bot.observe(events)
    assert bot.choose(seat_view) in seat_view["legal_actions"]  # type: ignore[arg-type]
    assert bot.last_budget is not None
    return bot.last_budget


def _work(searches: list[Search]) -> int:
    return sum(units(b.steps, table) for table, b in searches)


@pytest.mark.parametrize(("kind", "limit", "binding"), [
    (StrongBot, STRONG_BUDGET, 4),
    pytest.param(ExpertBot, EXPERT_BUDGET, 1, marks=pytest.mark.slow)])  # ten times strong's
def test_a_strong_or_expert_decision_does_no_more_solver_work_than_its_budget(
    worst: list[SeatPosition], searches: list[Search], kind: type[StrongBot], limit: int,
    binding: int,
) -> None:
    """``binding``: how many of the positions at least need more than the budget."""
    bounded = 0
    for position in worst:
        searches.clear()
        clear_cache()
        spent = _decide(position, limit, kind)
        assert _work(searches) <= limit + OVERSHOOT
        assert spent.spent <= limit
        searches.clear()
        clear_cache()
        _decide(position, None, kind)
        bounded += _work(searches) > limit + OVERSHOOT  # the budget did bind
    assert bounded >= binding


def test_what_a_decision_is_charged_is_the_work_its_solver_searches_did(
    searches: list[Search],
) -> None:
    found = positions({"preset": "classic", "hand_sizes": [8], "lay_off": True}, 3, 1, "charged")
    checked = 0
    for position in random.Random("charged").sample(found, 12):
        searches.clear()
        clear_cache()
        spent = _decide(position, STRONG_BUDGET)
        if not spent.refused:
            assert spent.spent == _work(searches) and spent.analyses == len(searches)
            checked += 1
    assert checked >= 6


RULES = resolve_rules({"preset": "classic"})
HAND = [*parse_cards(["3H", "4H", "5H", "9C", "9D", "JS", "QS", "KD", "2C", "7D"]), JOKER]


def _steps_of(hand: list[int], table: tuple[tuple[int, ...], ...] = ()) -> int:
    clear_cache()
    b = DecisionBudget(None)
    b.analyze(hand, 10, RULES, table)
    return b.spent


@pytest.mark.parametrize("warm", [False, True])
def test_a_look_ahead_is_refused_exactly_when_its_charge_passes_what_is_left(warm: bool) -> None:
    cost = _steps_of(HAND)
    assert cost > units(0)
    for limit, refused in ((cost - 1, True), (cost, False)):
        if not warm:
            clear_cache()
        b = DecisionBudget(limit)
        got = b.analyze(HAND, 10, RULES, required=False)
        assert (got is None) == refused
        assert b.spent == (limit if refused else cost)


def test_a_lay_off_search_is_charged_its_steps_times_the_lay_off_weight() -> None:
    lay_off = resolve_rules({"preset": "classic", "lay_off": True})
    table = (tuple(parse_cards(["6H", "7H", "8H"])), tuple(parse_cards(["KS", "KH", "KC"])))
    clear_cache()
    plain, with_table = DecisionBudget(None), DecisionBudget(None)
    plain.analyze(HAND, 10, lay_off)
    counter = Budget(None)
    budget_module.analyze(HAND, 10, lay_off, table, budget=counter)
    with_table.analyze(HAND, 10, lay_off, table)
    assert with_table.spent == counter.steps * LAY_OFF_WEIGHT + units(0)
    assert plain.spent < with_table.spent


def test_required_analyses_are_charged_but_never_refused_and_a_refusal_ends_the_look_ahead() -> None:
    clear_cache()
    b = DecisionBudget(0)
    assert b.analyze(HAND, 10, RULES) is not None  # the bot's own hand: needed to move
    assert b.spent == _steps_of(HAND)
    small = parse_cards(["3H", "4H", "5H"])
    b = DecisionBudget(units(0) - 1)
    assert b.analyze(small, 10, RULES, required=False) is None
    b.limit = 10**9  # even with room again, a decision that stopped looking stays stopped
    assert b.analyze(small, 10, RULES, required=False) is None
    assert b.analyze(small, 10, RULES) is not None  # still answers what it needs
