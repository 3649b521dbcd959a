"""An analysis' work is counted in engine steps, where its playouts apply them
(``service/analysis/budget.py``): a game whose rounds never end early (a stalled one,
run to its turn limit) is analysed within the steps it was given, on fewer worlds, with
the decisions it could not afford left unjudged and spread over the game; the steps are
counted, never timed."""

from __future__ import annotations

from dataclasses import replace

import pytest

import service.bots.playout
from service.analysis.budget import DECISION_STEPS, StepBudget, StepsSpent, playouts
from service.analysis.game import analyse
from service.analysis.judge import DEFAULT, Settings

from .records import stalled

#: 100 turns each of two seats: 400 decisions, each playout up to 200 turns of 13 cards
TURNS = 100


@pytest.fixture(scope="module")
def record() -> dict:
    return stalled(TURNS)


@pytest.mark.slow  # 400 decisions judged until the budget ends them: make test's
def test_a_long_stalled_game_is_analysed_within_its_step_budget(
        record: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    applied = 0
    real = service.bots.playout.apply

    def counted(*args: object, **kwargs: object) -> object:
        nonlocal applied
        applied += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(service.bots.playout, "apply", counted)
    budget = 4_000
    result = analyse(record, DEFAULT, steps=budget)
    decisions = 2 * TURNS * 2
    # every action a playout applied was charged, and the charges stayed within the budget
    assert 0 < applied <= result["steps"]["spent"] <= budget
    assert result["steps"] == {"budget": budget, "spent": result["steps"]["spent"]}
    judged = result["decisions"]
    unjudged = sum(row["unjudged"] for row in result["seats"])
    assert len(judged) + unjudged == decisions and unjudged > 0
    assert sum(row["decisions"] for row in result["seats"]) == len(judged)
    assert all(d["worlds"] < DEFAULT.worlds for d in judged[len(judged) // 4:])
    # what it could afford is spread over the game, not spent on its first decisions
    versions = [d["version"] for d in judged]
    assert min(versions) < decisions // 4 and max(versions) > 3 * decisions // 4


def test_the_same_record_and_budget_give_the_same_analysis(record: dict) -> None:
    short = {**record, "actions": record["actions"][:40], "finish_reason": None}
    quick = Settings(worlds=2, candidates=1)
    assert analyse(short, quick, steps=600) == analyse(short, quick, steps=600)


def test_a_charge_past_the_limit_is_refused_and_takes_nothing() -> None:
    budget = StepBudget(10)
    budget.charge(9)
    budget.step()
    with pytest.raises(StepsSpent):
        budget.step()
    assert budget.spent == 10 and budget.playout_steps == 1


def test_a_short_share_draws_fewer_worlds_then_fewer_candidates_then_smaller_second_looks(
) -> None:
    budget = StepBudget(1_000_000)
    assert budget.fit(DEFAULT, 1) == DEFAULT  # the whole budget for one decision
    unit = budget.per_unit

    def share_for(s: Settings) -> float:  # the steps that fit exactly ``s``, a decision
        return DECISION_STEPS + playouts(s) * unit

    one_world = replace(DEFAULT, worlds=1)
    assert budget.fit(DEFAULT, int(budget.limit // share_for(one_world))) == one_world
    least = Settings(worlds=1, candidates=1, policy=DEFAULT.policy, seed=DEFAULT.seed,
                     relook=1)
    assert budget.fit(DEFAULT, int(budget.limit // share_for(least))) == least
    # a final discard runs no playout: it fits while a decision's own charge does
    assert budget.fit(DEFAULT, 10**9, exact=True) == DEFAULT
    assert StepBudget(DECISION_STEPS - 1).fit(DEFAULT, 1, exact=True) is None


def test_without_a_limit_every_decision_gets_the_settings_asked_for() -> None:
    assert StepBudget().fit(DEFAULT, 10**9) == DEFAULT
