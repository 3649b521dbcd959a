"""The reference bots, driven by the engine directly (the same views and events the
server would send their seats), so many decisions can be checked quickly: every
action they choose must be legal (the engine raises otherwise), under every preset
and under the options that change what is legal (lay-offs, contracts, jokers)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from service.bots import StrongBot, make_bot
from service.bots.base import Position

from .engine_harness import play_local

SHORT = {"hand_sizes": [3, 4, 5, 6, 7, 8]}


#: a whole game of five bots is a second or more: the fast tier plays classic and lay-offs,
#: `make test` every preset and option
SLOW = pytest.mark.slow


@pytest.mark.parametrize("preset", ["classic", pytest.param("bga", marks=SLOW),
                                    pytest.param("family", marks=SLOW)])
def test_every_bot_only_chooses_legal_actions(preset: str) -> None:
    final = play_local(["random", "simple", "greedy", "strong", "expert"], preset, seed=preset, rules_spec=SHORT)
    assert final["status"] == "finished"


@pytest.mark.parametrize("options", [
    {"lay_off": True},
    pytest.param({"contracts": [{"sets": 1, "runs": 0}, None, {"sets": 0, "runs": 1}, None,
                                None, None]}, marks=SLOW),
    pytest.param({"jokers": 4, "max_wilds_per_meld": 1}, marks=SLOW),
    pytest.param({"stock_exhausted": "end_round", "aces": "wrap"}, marks=SLOW),
])
def test_bots_cope_with_rule_options(options: dict[str, Any]) -> None:
    final = play_local(["greedy", "strong", "random"], "classic", seed="opt",
                       rules_spec={**SHORT, **options})
    assert final["status"] == "finished"


def test_greedy_beats_random_by_a_wide_margin() -> None:
    final = play_local(["greedy", "random"], "classic", seed="margin")
    greedy, rnd = (p["total"] for p in final["players"])
    assert greedy + 100 < rnd


def test_the_strong_bot_never_believes_a_card_is_gone_that_is_still_in_the_stock() -> None:
    checked = 0

    def check(bot: Any, seat: int, state: Any) -> None:
        nonlocal checked
        if not isinstance(bot, StrongBot):
            return
        from service.engine import view

        unseen = bot.unseen(Position.of({"game_id": "x", **view(state, seat)}))
        hidden = Counter(state.stock)
        for s, hand in enumerate(state.hands):
            if s != seat:
                hidden.update(hand)
        assert not Counter(state.stock) - unseen  # every stock card is counted as unseen
        assert not unseen - hidden  # and nothing it has seen is counted as unseen
        checked += 1

    play_local(["strong", "greedy", "random"], "bga", seed="count", rules_spec=SHORT,
               check=check)
    assert checked > 20


def test_make_bot_names_the_five_bots() -> None:
    assert {make_bot(n).name for n in ("random", "simple", "greedy", "strong", "expert")} == {
        "random", "simple", "greedy", "strong", "expert"}
    with pytest.raises(ValueError):
        make_bot("psychic")
