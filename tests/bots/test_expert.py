"""``expert`` is ``strong``'s one-draw expectimax searched to the end: on nearly every
classic position its look-ahead tries every unseen kind of card on every candidate
within its budget, and then it decides as ``strong`` would with no budget and no sample."""

from __future__ import annotations

import random

import pytest

from service.bots import EXPERT_BUDGET, ExpertBot, StrongBot
from service.bots.base import Bot

from .positions import SeatPosition, positions


@pytest.fixture(scope="module")
def looking() -> list[SeatPosition]:
    """Classic 2-seat positions where a look-ahead decides: a discard with a choice, or a
    draw with the pile's top on offer (from a whole game, rounds of 3 to 13 cards)."""
    found = positions({"preset": "classic"}, 2, 1, "expert")
    chosen = [p for p in found if p[0]["round"]["phase"] in ("draw", "discard")
              and p[0]["round"]["discard_top"] is not None]
    return random.Random("expert").sample(chosen, 40)


def _decided(bot: Bot, position: SeatPosition) -> object:
    seat_view, events = position
    bot.start(seat_view)  # type: ignore[arg-type]
    bot.observe(events)
    return bot.choose(seat_view)  # type: ignore[arg-type]


def test_expert_decides_classic_positions_as_strong_with_no_budget_over_every_unseen_card(
    looking: list[SeatPosition],
) -> None:
    """Save where its budget ran out (a few 14-card discards of hands ``greedy`` played:
    about 1 in 100 classic decisions asks for more than ``EXPERT_BUDGET``)."""
    short = 0
    for position in looking:
        expert = ExpertBot("x")
        exact = StrongBot("x", max_kinds=53, budget=None)
        expert_move, exact_move = _decided(expert, position), _decided(exact, position)
        assert expert.last_budget is not None and expert.last_budget.spent <= EXPERT_BUDGET
        if expert.last_budget.refused:
            short += 1
        else:
            assert expert_move == exact_move
    assert short <= len(looking) // 20


def test_expert_and_strong_part_where_strongs_budget_cuts_its_look_ahead_short(
    looking: list[SeatPosition],
) -> None:
    """The two differ in what they searched, not in anything else: wherever ``strong``'s
    look-ahead ran to its end they decide alike, and some decisions ran short."""
    short = 0
    for position in looking:
        strong = StrongBot("x", max_kinds=53)
        expert_move, strong_move = _decided(ExpertBot("x"), position), _decided(strong, position)
        assert strong.last_budget is not None
        short += strong.last_budget.refused
        if not strong.last_budget.refused:
            assert expert_move == strong_move
    assert short > 0
