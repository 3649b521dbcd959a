"""Decisions judged from what their seat could see (``service/analysis/judge.py``).

Secrecy by construction: for 200 decisions of in-process games, the true position and
another one that differs only in the cards the seat could not see (the other seats'
unknown cards and the stock dealt again from what the seat has not seen, and another
seed) get identical verdicts. A final discard is judged exactly: its values are the
solver's scores. The words and the accuracy follow the documented thresholds."""

from __future__ import annotations

import functools
import os
import random
from dataclasses import replace
from typing import Any

import pytest

from service.analysis.final_turn import final_discard_scores
from service.analysis.game import Decision, decisions_of
from service.analysis.judge import (
    MARGIN,
    THRESHOLDS,
    Settings,
    accuracy,
    blind,
    judge,
    judgement,
    key_of,
)
from service.core.cards import card_name
from service.engine.state import FINAL_DISCARD
from service.match.inprocess import record_in_process
from service.research.knowledge import Knowledge
from service.research.worlds import in_state, sample_worlds

#: decisions judged twice (the full count in `make test`; fewer in the fast tier)
SECRECY_DECISIONS = int(os.environ.get("ANALYSIS_SECRECY_DECISIONS", "200"))
#: small and quick: two worlds, two candidate discards, short rounds
QUICK = Settings(worlds=2, candidates=2)

TABLES: list[tuple[list[str], dict[str, Any]]] = [
    (["greedy", "random"], {"preset": "classic", "hand_sizes": [3, 5, 7]}),
    (["simple", "greedy", "random"], {"preset": "classic", "hand_sizes": [4, 6],
                                      "lay_off": True}),
    (["random", "greedy", "simple", "greedy"], {"preset": "bga", "hand_sizes": [3, 5]}),
]


@functools.cache
def _pool() -> tuple[Decision, ...]:
    """Every decision of twelve in-process games of the tables above (about 800), played
    once per process: the games cost as much as judging what a test samples from them,
    and the judge only reads a decision. Each test draws its own sample by its seed."""
    pool: list[Decision] = []
    for g in range(12):
        bots, rules = TABLES[g % len(TABLES)]
        pool.extend(decisions_of(record_in_process(bots, f"pool-{g}", rules)))
    return tuple(pool)


def some_decisions(count: int, seed: str) -> list[Decision]:
    """``count`` decisions of the pool, drawn by ``seed``: a seed gives its own sample."""
    pool = _pool()
    return random.Random(seed).sample(pool, min(count, len(pool)))


def test_two_positions_that_differ_only_in_cards_the_seat_could_not_see_get_one_verdict(
) -> None:
    decisions = some_decisions(SECRECY_DECISIONS, "secrecy")
    assert len(decisions) == SECRECY_DECISIONS
    differed = 0
    for n, d in enumerate(decisions):
        knowledge = Knowledge.of(d.seat_view, d.seat_events)
        other = sample_worlds(knowledge, 1, random.Random(n))[0]
        twin = in_state(d.state, other, seed=f"another deal {n}")
        differed += twin.hands != d.state.hands or twin.stock != d.state.stock
        # the card a stock draw gave is what the seat saw next: its luck is priced by it
        first = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, QUICK,
                      drawn=d.drawn)
        second = judge(twin, d.seat, d.seat_view, d.seat_events, d.action, QUICK,
                       drawn=d.drawn)
        assert first == second, (n, d.action)
    assert differed > SECRECY_DECISIONS // 2  # the twins really were other deals


def test_a_blinded_position_keeps_the_seats_hand_and_what_is_public_and_nothing_hidden(
) -> None:
    for d in some_decisions(40, "blind"):
        knowledge = Knowledge.of(d.seat_view, d.seat_events)
        blinded = blind(d.state, knowledge)
        assert blinded.hands[d.seat] == d.state.hands[d.seat]
        assert (blinded.discard, blinded.table, blinded.scores, blinded.current_seat) == (
            d.state.discard, d.state.table, d.state.scores, d.state.current_seat)
        assert (blinded.seed, blinded.seed_salt) == ("blind", "blind")
        for s, known in enumerate(knowledge.known):  # the known cards stay where they are
            assert not set(known) - set(blinded.hands[s])


def test_a_final_discard_is_judged_exactly_by_the_solvers_scores() -> None:
    finals = [d for d in some_decisions(10_000, "finals") if d.state.phase == FINAL_DISCARD]
    assert len(finals) >= 20
    for d in finals[:60]:
        verdict = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, QUICK)
        scores = final_discard_scores(d.state, d.seat)
        assert verdict.exact
        assert verdict.values == {f"discard:{card_name(c)}": float(v)
                                  for c, v in scores.items()}
        assert verdict.regret == verdict.values[key_of(d.action)] - min(scores.values())


def test_the_verdict_names_a_best_action_among_those_it_compared_and_the_regret_is_not_negative(
) -> None:
    for d in some_decisions(30, "verdicts"):
        verdict = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, QUICK)
        assert key_of(verdict.best) in verdict.values
        assert key_of(d.action) in verdict.values
        assert verdict.regret >= 0
        assert verdict.values[key_of(verdict.best)] == min(verdict.values.values())
        assert verdict.judgement == judgement(
            max(0.0, verdict.regret - MARGIN * verdict.standard_error))
        if verdict.exact:
            assert verdict.standard_error == 0.0
        if d.state.phase in ("draw", "final_draw"):
            assert {k.split(":")[0] for k in verdict.values} == {"draw"}


def test_the_same_decision_and_settings_give_the_same_verdict_and_another_seed_the_same_candidates() -> None:
    d = next(x for x in some_decisions(200, "seeds") if x.state.phase == "discard"
             and len(set(x.state.hands[x.seat])) > 4)
    once = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, QUICK)
    assert judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, QUICK) == once
    other = Settings(worlds=2, candidates=2, seed="another")
    again = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, other)
    assert set(again.values) == set(once.values)  # the same candidates, other worlds


def test_every_judgement_a_first_look_names_inaccuracies_included_is_looked_at_again(
) -> None:
    # the first look alone (relook 1), then the same decision with second looks: every
    # word the first look names is put to a second look, and nothing else is
    first_only = Settings(worlds=2, candidates=1, relook=1, lookahead=0)
    with_relook = replace(first_only, relook=2)
    named: list[str] = []
    for d in some_decisions(10_000, "relook"):
        if d.state.phase == FINAL_DISCARD:
            continue
        first = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, first_only)
        full = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, with_relook)
        assert full.relooked == (first.judgement is not None), (first, full)
        if first.judgement is not None:
            named.append(first.judgement)
        if named.count("inaccuracy") >= 3:
            break
    assert named.count("inaccuracy") >= 3, named


@pytest.mark.parametrize(("regret", "word"), [
    (0.0, None), (1.99, None), (THRESHOLDS["inaccuracy"], "inaccuracy"),
    (4.99, "inaccuracy"), (THRESHOLDS["mistake"], "mistake"),
    (THRESHOLDS["blunder"], "blunder"), (40.0, "blunder")])
def test_a_regret_is_named_by_the_worst_threshold_it_reaches(regret: float,
                                                              word: str | None) -> None:
    assert judgement(regret) == word


def test_accuracy_is_100_for_a_best_move_and_falls_with_the_regret() -> None:
    assert accuracy(0.0) == 100.0
    assert accuracy(2.0) > accuracy(5.0) > accuracy(10.0) > accuracy(30.0) > 0
    assert round(accuracy(10.0), 1) == 36.8


def test_a_move_that_is_not_a_decision_is_refused() -> None:
    with pytest.raises(ValueError, match="not a decision"):
        key_of({"type": "resign"})
