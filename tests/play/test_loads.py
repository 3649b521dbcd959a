"""The weight of bot games one client may hold (``service/play/loads.py``) on the memory
stores: a game weighs its bots' costs times its cards; past the cap a creation or a
rematch is refused before anything is stored; a game that ends frees its room; another
client is not affected."""

from __future__ import annotations

import pytest

from service.core.rules import resolve_rules
from service.play import (
    LoadLimit,
    TooManyBotGamesError,
    ask_for_rematch,
    bot_game_weight,
    create_game,
)
from service.play.credentials import hash_token
from service.storage import Stores

from .conftest import drain, play_out

SHORT = {"preset": "classic", "hand_sizes": [3]}


def test_a_game_weighs_its_bots_costs_times_its_cards_against_the_standard_deal() -> None:
    standard = resolve_rules({"preset": "classic"})
    assert bot_game_weight(standard, ["strong", None]) == 4.0
    assert bot_game_weight(standard, [None, "greedy", "greedy", "strong"]) == 6.0
    assert bot_game_weight(standard, [None, None]) == 0.0
    short = resolve_rules({"hand_sizes": [3, 4, 5]})  # 12 cards of the standard 88
    assert bot_game_weight(short, [None, "strong"]) == pytest.approx(4 * 12 / 88)


def test_a_client_past_its_cap_is_refused_before_anything_is_stored(stores: Stores) -> None:
    ann = LoadLimit("ann", cap=8.0)
    for n in range(2):  # two games against one strong seat: 4 + 4
        create_game(stores, None, ["ann", None], f"g{n}", bots=[None, "strong"], load=ann)
    games = stores.games.load_many([g for g in stores.loads.held("ann")])
    with pytest.raises(TooManyBotGamesError) as refused:
        create_game(stores, None, ["ann", None], "g2", bots=[None, "greedy"], load=ann)
    assert refused.value.details == {"held": 8.0, "weight": 1.0, "cap": 8.0}
    assert len(stores.loads.held("ann")) == 2 and all(games)
    assert len(stores.lobby.listed("in_progress", None, 10)) == 2  # nothing of the third
    # another client, and a game of players only, are not held back
    create_game(stores, None, ["bob", None], "b", bots=[None, "strong"], load=LoadLimit("bob", 8))
    create_game(stores, None, ["ann", "cy"], "humans", load=ann)


def test_a_game_heavier_than_the_cap_alone_is_refused_saying_so(stores: Stores) -> None:
    standard = resolve_rules({"preset": "classic"})
    assert bot_game_weight(standard, [None, "expert", "expert", "expert"]) == 48.0
    with pytest.raises(TooManyBotGamesError) as refused:
        create_game(stores, None, ["ann", None, None, None], "heavy",
                    bots=[None, "expert", "expert", "expert"], load=LoadLimit("ann", 32.0))
    assert "alone weigh 48, more than the 32" in str(refused.value)
    assert refused.value.details == {"held": 0.0, "weight": 48.0, "cap": 32.0}
    assert not stores.loads.held("ann")
    create_game(stores, None, ["ann", None, None], "two", bots=[None, "expert", "expert"],
                load=LoadLimit("ann", 32.0))  # two expert seats fit


def test_a_game_that_ends_frees_its_room_for_the_next(stores: Stores) -> None:
    weight = bot_game_weight(resolve_rules(SHORT), ["greedy", "random"])
    ann = LoadLimit("ann", cap=weight * 1.5)
    first, _ = create_game(stores, SHORT, [None, None], "a", bots=["greedy", "random"],
                           load=ann)
    with pytest.raises(TooManyBotGamesError):
        create_game(stores, SHORT, [None, None], "b", bots=["greedy", "random"], load=ann)
    drain(stores)
    assert stores.games.load(first.game_id).state.finished
    create_game(stores, SHORT, [None, None], "c", bots=["greedy", "random"], load=ann)
    assert list(stores.loads.held("ann")) != [first.game_id]  # the finished one forgotten


def test_a_rematch_with_bot_seats_counts_against_the_cap(stores: Stores) -> None:
    weight = bot_game_weight(resolve_rules(SHORT), [None, "greedy"])  # the rematch's too
    ann = LoadLimit("ann", cap=weight * 2.5)
    record, tokens = create_game(stores, SHORT, ["ann", None], "r", bots=[None, "greedy"],
                                 load=ann)
    create_game(stores, SHORT, ["ann", None], "other", bots=[None, "greedy"], load=ann)
    play_out(stores, record.game_id, {0: tokens[0]})
    with pytest.raises(TooManyBotGamesError):  # the other game held, and the rematch
        ask_for_rematch(stores, record.game_id, hash_token(tokens[0]), LoadLimit("ann", cap=weight * 1.5))
    again = ask_for_rematch(stores, record.game_id, hash_token(tokens[0]), ann).state.rematch_game
    assert again is not None and again in stores.loads.held("ann")
