"""The luck of a draw (``service/analysis/luck.py``): priced from what the seat knew and
the card it got, positive when the card saved it points.

A final turn's draw is priced exactly, and here checked against a brute force through
the engine itself: every card the seat could have drawn put on top of the stock, drawn,
each discard played, and the round's score read from the engine. Two positions that
differ only in cards the seat could not see give the same luck. In games of the policy
itself, a draw's luck averages zero: the card drawn is, on average, the mean of those
it could have been."""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import replace

import pytest

from service.analysis.game import Decision, analyse
from service.analysis.judge import QUICK as QUICK_LOOK
from service.analysis.judge import blind, judge
from service.analysis.luck import exact_luck, sampled_luck
from service.bots.playout import greedy_move, play_out
from service.core.cards import card_name
from service.engine import apply
from service.engine.seats import actor_of
from service.engine.state import FINAL_DRAW
from service.match.inprocess import record_in_process
from service.research.knowledge import Knowledge
from service.research.worlds import in_state, sample_worlds

from .test_judge import QUICK, some_decisions

RULES = {"preset": "classic", "hand_sizes": [3, 4, 5]}
#: Stock draws compared with a twin (make test: 60); a quarter of them final draws priced
#: by the brute force (at most 25), and judged decisions of every kind (at least 30).
#: make test-fast asks for 16.
LUCK_DRAWS = int(os.environ.get("ANALYSIS_LUCK_DRAWS", "60"))


def stock_draws(decisions: list[Decision]) -> list[Decision]:
    return [d for d in decisions if d.action == {"type": "draw", "source": "stock"}]


def brute_force_luck(d: Decision) -> float:
    """The luck of a final draw by the engine alone: for every card the seat had not seen
    (each copy), a deal with that card on top of the stock, the draw made and each
    discard played to the round's end by the engine; the best score kept per card."""
    knowledge = Knowledge.of(d.seat_view, d.seat_events)
    best: dict[int, int] = {}
    for card in set(knowledge.unseen):
        world = sample_worlds(knowledge, 1, random.Random(card), top=card)[0]
        state = in_state(d.state, world, seed="brute force")
        drawn, _ = apply(state, d.seat, {"type": "draw", "source": "stock"},
                         actor_of(state, d.seat))
        assert Counter(drawn.hands[d.seat]) - Counter(d.state.hands[d.seat]) == {card: 1}
        scores = [play_out(drawn, d.seat, {"type": "discard", "card": card_name(c)},
                           greedy_move)
                  for c in sorted(set(drawn.hands[d.seat]))]
        best[card] = min(scores)
    counts = Counter(knowledge.unseen)
    mean = sum(best[c] * n for c, n in counts.items()) / sum(counts.values())
    assert d.drawn is not None
    return mean - best[d.drawn]


def test_a_final_draws_luck_is_the_mean_over_the_cards_it_could_have_been_less_the_card_it_got(
) -> None:
    finals = [d for d in stock_draws(some_decisions(10_000, "final draws"))
              if d.state.phase == FINAL_DRAW]
    assert len(finals) >= 10
    lucky = unlucky = 0
    for d in finals[:max(4, min(25, LUCK_DRAWS // 2))]:
        verdict = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, QUICK,
                        drawn=d.drawn)
        assert verdict.luck == pytest.approx(brute_force_luck(d)), d.action
        lucky += verdict.luck > 0
        unlucky += verdict.luck < 0
    assert lucky and unlucky  # both signs met: not a constant


def test_a_draw_from_the_pile_has_no_luck_and_other_decisions_none() -> None:
    decisions = some_decisions(300, "no luck")
    seen = set()
    for d in decisions[:max(30, LUCK_DRAWS + 20)]:
        verdict = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, QUICK,
                        drawn=d.drawn)
        kind = (d.action["type"], d.action.get("source"))
        seen.add(kind)
        if kind == ("draw", "discard"):
            assert verdict.luck == 0.0
        elif kind == ("draw", "stock"):
            assert verdict.luck is not None
        else:
            assert verdict.luck is None
    assert {("draw", "discard"), ("draw", "stock"), ("discard", None)} <= seen


def test_two_positions_that_differ_only_in_cards_the_seat_could_not_see_give_one_luck(
) -> None:
    draws = stock_draws(some_decisions(600, "twin luck"))[:LUCK_DRAWS]
    assert len(draws) == LUCK_DRAWS
    differed = 0
    for n, d in enumerate(draws):
        knowledge = Knowledge.of(d.seat_view, d.seat_events)
        # the twin keeps only what the seat saw: the card it drew is on top in both
        assert d.drawn is not None
        other = sample_worlds(knowledge, 1, random.Random(n), top=d.drawn)[0]
        twin = in_state(d.state, other, seed=f"another deal {n}")
        differed += twin.hands != d.state.hands or twin.stock[1:] != d.state.stock[1:]
        first = judge(d.state, d.seat, d.seat_view, d.seat_events, d.action, QUICK,
                      drawn=d.drawn)
        second = judge(twin, d.seat, d.seat_view, d.seat_events, d.action, QUICK,
                       drawn=d.drawn)
        assert first.luck is not None and first.luck == second.luck, n
    assert differed > len(draws) // 2


def test_a_final_draws_luck_reads_the_seats_knowledge_not_the_true_deal() -> None:
    d = next(x for x in stock_draws(some_decisions(10_000, "final knowledge"))
             if x.state.phase == FINAL_DRAW)
    knowledge = Knowledge.of(d.seat_view, d.seat_events)
    assert d.drawn is not None
    assert exact_luck(d.state, d.seat, knowledge, d.drawn) == exact_luck(
        blind(d.state, knowledge), d.seat, knowledge, d.drawn)
    seen = next(c for c in range(52) if c not in knowledge.unseen)
    with pytest.raises(ValueError, match="could not see"):
        exact_luck(d.state, d.seat, knowledge, seen)


def test_sampled_luck_pairs_the_worlds() -> None:
    assert sampled_luck([10, 4], [6, 4]) == 2.0  # the card drawn saved 4 in one world
    assert sampled_luck([0, 0], [5, 15]) == -10.0
    with pytest.raises(ValueError):
        sampled_luck([1], [1, 2])


# a dozen games analysed, a mean over many draws: make test's. At the quick setting (no
# look-ahead in the playouts): a draw's luck averages zero whatever values the cards,
# since the card drawn is one of those it could have been, as likely as each
@pytest.mark.slow
def test_a_draws_luck_averages_about_zero_over_games_of_the_policy_itself() -> None:
    lucks: list[float] = []
    adjusted_differences: list[float] = []
    for i in range(12):
        game = record_in_process(["greedy", "greedy"], f"luck-{i}", RULES)
        result = analyse(game, replace(QUICK_LOOK, worlds=3, candidates=1))
        lucks += [d["luck"] for d in result["decisions"]
                  if d["luck"] is not None and d["action"]["source"] == "stock"]
        first, second = result["seats"]
        adjusted_differences.append(first["adjusted_total"] - second["adjusted_total"])
    assert len(lucks) > 200
    for values in (lucks, adjusted_differences):
        mean = sum(values) / len(values)
        spread = (sum((x - mean) ** 2 for x in values) / (len(values) - 1) / len(values)) ** 0.5
        assert spread > 0
        assert abs(mean) < 3 * spread, (mean, spread)
