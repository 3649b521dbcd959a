"""The weight of bot games one client may hold (``service/play/loads.py``) on the memory
stores: a game weighs the most work its bots can ask for; past the cap a creation or a
rematch is refused before anything is stored; a game that ends frees its room; another
client is not affected."""

from __future__ import annotations

import pytest

from service.core.rules import resolve_rules
from service.play import LoadLimit, ask_for_rematch, create_game
from service.play.credentials import hash_token
from service.play.errors import TooManyBotGamesError
from service.play.loads import (
    CREATING_SECONDS,
    STANDARD_WORK,
    admit_bot_game,
    bot_game_weight,
    decisions_per_seat,
    lane_of,
)
from service.storage import HEAVY, LIGHT, Stores
from service.workers.moves import MoveWorker

from .conftest import drain, play_out

SHORT = {"preset": "classic", "hand_sizes": [3]}
#: A time every visit planned now is due by (a schedule keeps whole milliseconds, as
#: Redis does: infinity is no time it can keep)
LATER = 4e9


def test_a_game_weighs_its_bots_worst_work_in_standard_games() -> None:
    standard = resolve_rules({"preset": "classic"})
    assert bot_game_weight(standard, [None, "greedy"]) == 1.0  # the standard game itself
    assert bot_game_weight(standard, ["strong", None]) == 9.0  # (2,000 + 16,000) / 2,000
    assert bot_game_weight(standard, [None, "greedy", "greedy", "strong"]) == 11.0
    assert bot_game_weight(standard, [None, "expert"]) == 76.0
    assert bot_game_weight(standard, [None, None]) == 0.0
    short = resolve_rules({"hand_sizes": [3, 4, 5]})  # 3 rounds of the standard 11
    assert bot_game_weight(short, [None, "strong"]) == pytest.approx(9 * 3 / 11)


def test_a_game_weighs_the_turns_its_rules_allow_not_its_cards() -> None:
    """One round of 13 cards, 100 turns each and a contract nobody meets: few cards, but
    1,616 decisions of eight expert seats (the game that slowed everyone's bots 83x)."""
    endless = resolve_rules({"preset": "classic", "hand_sizes": [13], "turn_limit": 100,
                             "contracts": [{"sets": 4, "runs": 0}]})
    assert decisions_per_seat(endless) == 202
    heavy = bot_game_weight(endless, [None] + ["expert"] * 7)
    assert heavy == pytest.approx(7 * 152_000 * 202 / STANDARD_WORK)
    assert heavy > 150  # within a cap of 160 standard games, nothing else beside it
    harder = resolve_rules({"preset": "classic", "jokers": 8, "lay_off": True})
    assert bot_game_weight(harder, [None, "greedy"]) == 6.0  # its analyses cost 6x


def test_a_client_past_its_cap_is_refused_before_anything_is_stored(stores: Stores) -> None:
    ann = LoadLimit("ann", cap=18.0)
    for n in range(2):  # two games against one strong seat: 9 + 9
        create_game(stores, None, ["ann", None], f"g{n}", bots=[None, "strong"], load=ann)
    games = stores.games.load_many([g for g in stores.loads.held("ann")])
    with pytest.raises(TooManyBotGamesError) as refused:
        create_game(stores, None, ["ann", None], "g2", bots=[None, "greedy"], load=ann)
    assert refused.value.details == {"held": 18.0, "weight": 1.0, "cap": 18.0}
    assert len(stores.loads.held("ann")) == 2 and all(games)
    assert len(stores.lobby.listed("in_progress", None, 10)) == 2  # nothing of the third
    # another client, and a game of players only, are not held back
    create_game(stores, None, ["bob", None], "b", bots=[None, "strong"], load=LoadLimit("bob", 9))
    create_game(stores, None, ["ann", "cy"], "humans", load=ann)


def test_a_game_heavier_than_the_cap_alone_is_refused_saying_so(stores: Stores) -> None:
    standard = resolve_rules({"preset": "classic"})
    assert bot_game_weight(standard, [None, "expert", "expert", "expert"]) == 228.0
    with pytest.raises(TooManyBotGamesError) as refused:
        create_game(stores, None, ["ann", None, None, None], "heavy",
                    bots=[None, "expert", "expert", "expert"], load=LoadLimit("ann", 160.0))
    assert "alone weigh 228, more than the 160" in str(refused.value)
    assert refused.value.details == {"held": 0.0, "weight": 228.0, "cap": 160.0}
    assert not stores.loads.held("ann")
    create_game(stores, None, ["ann", None, None], "two", bots=[None, "expert", "expert"],
                load=LoadLimit("ann", 160.0))  # two expert seats fit


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


def test_a_game_with_a_searching_bot_is_planned_on_the_heavy_lane(stores: Stores) -> None:
    light, _ = create_game(stores, SHORT, [None, None], "l", bots=["random", "greedy"])
    heavy, _ = create_game(stores, SHORT, [None, None], "h", bots=["random", "strong"])
    assert lane_of([None, "greedy", "random", "simple"]) == LIGHT
    assert lane_of([None, "expert"]) == HEAVY
    on = {lane: stores.schedule.visits_due(LATER, (lane,))[0] for lane in (LIGHT, HEAVY)}
    assert on == {LIGHT: 1, HEAVY: 1}
    assert drain(stores) > 0  # a worker of both lanes plays both
    for record in (light, heavy):
        assert stores.games.load(record.game_id).state.version > record.state.version


def test_creations_racing_from_one_client_cannot_pass_the_cap_together(stores: Stores) -> None:
    """Admitted games not stored yet (their creations still under way) are held: six
    creations of 76 each against a cap of 160, admitted before any is stored, let two in;
    a game whose creation never stored it is forgotten a minute later."""
    ann = LoadLimit("ann", cap=160.0)
    admitted = []
    for n in range(6):
        try:
            admit_bot_game(stores, ann, f"g{n}", 76.0, now=1000.0)
            admitted.append(f"g{n}")
        except TooManyBotGamesError:
            pass
    assert admitted == ["g0", "g1"]
    with pytest.raises(TooManyBotGamesError):
        admit_bot_game(stores, ann, "g6", 76.0, now=1000.0 + CREATING_SECONDS)
    admit_bot_game(stores, ann, "g7", 76.0, now=1001.0 + CREATING_SECONDS)  # g0, g1 gone
    assert list(stores.loads.held("ann")) == ["g7"]


def test_a_visit_found_on_the_wrong_lane_is_moved_to_the_games_own(stores: Stores) -> None:
    """A strong game planned on the light lane (before lanes were deployed) is visited
    once there and then planned on the heavy lane only."""
    record, _ = create_game(stores, SHORT, [None, None], "w", bots=["random", "strong"])
    stores.schedule.plan(record.game_id, 0.0, LIGHT)  # as an older release planned it
    light = MoveWorker(stores, lanes=(LIGHT,))
    assert light.work()  # its visit, from the light lane
    assert stores.schedule.visits_due(LATER, (LIGHT,))[0] == 0
    assert stores.schedule.visits_due(LATER, (HEAVY,))[0] == 1
