"""``simple``, Neller's SimpleGinRummyPlayer ported: what it takes, what it throws, when it
goes out, on hands built for the question (where ``greedy`` decides otherwise), and on
every decision of whole games against the solver's own arrangement."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from service.bots import GreedyBot, SimpleBot, make_bot
from service.bots.base import Position
from service.core.cards import parse_card

from .engine_harness import play_local
from .positions import positions

#: A 3-card round of classic (threes wild), seat 0 to draw: the view every case edits.
BASE = positions({"preset": "classic", "hand_sizes": [3]}, 2, 1, "simple")[0][0]
DRAWS = [{"type": "draw", "source": "stock"}, {"type": "draw", "source": "discard"}]


def seat_view(hand: list[str], top: str | None, phase: str = "draw",
              legal: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    v = copy.deepcopy(BASE)
    v["you"]["hand"] = hand
    v["round"]["discard_top"] = top
    v["round"]["phase"] = phase
    if legal is None:
        legal = DRAWS if phase == "draw" else [{"type": "discard", "card": c}
                                               for c in dict.fromkeys(hand)]
    v["legal_actions"] = legal
    return v


def test_it_takes_the_discard_that_joins_a_meld() -> None:
    assert SimpleBot(1).choose(seat_view(["5H", "6H", "KS"], "7H")) == DRAWS[1]  # type: ignore[arg-type]


def test_it_leaves_a_low_discard_that_joins_no_meld_where_greedy_takes_it() -> None:
    view = seat_view(["5H", "6H", "KS"], "2C")  # 2C for KS lowers the penalty by 8
    assert SimpleBot(1).choose(view) == DRAWS[0]  # type: ignore[arg-type]
    assert GreedyBot().choose(view) == DRAWS[1]  # type: ignore[arg-type]


def test_it_discards_its_highest_deadwood_card() -> None:
    view = seat_view(["5H", "6H", "7H", "9C", "KS"], None, "discard")
    assert SimpleBot(1).choose(view) == {"type": "discard", "card": "KS"}  # type: ignore[arg-type]


def test_ties_for_the_highest_deadwood_are_broken_by_its_seed() -> None:
    view = seat_view(["5H", "6H", "7H", "QC", "KS"], None, "discard")
    thrown = {SimpleBot(seed).choose(view)["card"] for seed in range(20)}  # type: ignore[arg-type]
    assert thrown == {"QC", "KS"}
    assert SimpleBot(7).choose(view) == SimpleBot(7).choose(view)  # type: ignore[arg-type]


def test_it_goes_out_as_soon_as_it_can() -> None:
    legal = [{"type": "discard", "card": c} for c in ("5H", "6H", "7H", "KS")]
    legal.append({"type": "go_out", "discard": "KS"})
    view = seat_view(["5H", "6H", "7H", "KS"], None, "discard", legal)
    assert SimpleBot(1).choose(view) == {"type": "go_out", "discard": "KS"}  # type: ignore[arg-type]


@pytest.mark.parametrize("preset", ["classic", "bga", "family"])
def test_every_decision_of_a_game_follows_the_three_rules(preset: str) -> None:
    decisions = 0

    def check(bot: Any, seat: int, state: Any) -> None:
        nonlocal decisions
        if not isinstance(bot, SimpleBot):
            return
        from service.engine import view

        v = {"game_id": "x", **view(state, seat)}
        pos = Position.of(v)  # type: ignore[arg-type]
        action = copy.deepcopy(bot).choose(v)
        if pos.drawing:
            if pos.top is not None and pos.can_take_discard:
                taken = pos.analyze((*pos.hand, pos.top))
                joins = any(pos.top in meld for meld in taken.best.melds)
                out = bool(taken.go_out) and pos.phase == "draw"
                assert (action["source"] == "discard") == (joins or out), (v, action)
        elif action["type"] == "discard":
            a = pos.analyze(pos.hand)
            assert not (a.go_out and pos.go_out_action()), "it goes out when it can"
            values = pos.rules.penalty_table(pos.wild)
            if a.best.deadwood:
                card = parse_card(action["card"])
                legal = {parse_card(x["card"]) for x in pos.legal if x["type"] == "discard"}
                assert values[card] == max(values[c] for c in a.best.deadwood if c in legal)
        decisions += 1

    final = play_local(["simple", "greedy"], preset, seed=f"simple-{preset}",
                       rules_spec={"hand_sizes": [3, 5, 7, 9]}, check=check)
    assert final["status"] == "finished" and decisions > 20


def test_it_is_a_reference_bot_by_name() -> None:
    assert isinstance(make_bot("simple", seed="x"), SimpleBot)
