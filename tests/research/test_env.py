"""The PettingZoo environment (``service/research/env.py``): PettingZoo's own API and seed
tests at 2, 4 and 8 seats, observations that change with nothing a seat cannot see, the
service's records replayed exactly, and worlds drawn for an agent."""

from __future__ import annotations

import os
import random
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from service.engine import view
from service.research.encoding import ACTIONS, action_body, action_index, observation_size
from service.research.env import ThreeThirteenEnv, env
from service.verify.replay import replay

from .games import record_of

SHORT = {"preset": "classic", "hand_sizes": [3, 4, 5]}
RECORD_RULES = {"preset": "classic", "hand_sizes": [3, 4]}
#: records replayed (the full count in `make test`; fewer in the fast tier)
RECORDS = int(os.environ.get("RESEARCH_RECORDS", "1000"))


# PettingZoo's test warns of any observation that is not a Box (a dict with the action
# mask, as its own card games have, is what its documentation recommends)
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("players", [2, 4, 8])
def test_pettingzoos_api_test_passes(players: int) -> None:
    api_test(env(players=players, rules=SHORT), num_cycles=200)


@pytest.mark.parametrize("players", [2, 4, 8])
def test_pettingzoos_seed_test_passes(players: int) -> None:
    seed_test(lambda: env(players=players, rules=SHORT), num_cycles=50)


def test_every_action_integer_is_an_action_body_and_back() -> None:
    for i in range(ACTIONS):
        assert action_index(action_body(i)) == i
    with pytest.raises(ValueError):
        action_body(ACTIONS)
    with pytest.raises(ValueError):
        action_index({"type": "resign"})


def play(game: ThreeThirteenEnv, rng: random.Random) -> dict[str, float]:
    """Random legal moves to the end; each agent's return."""
    returns = dict.fromkeys(game.possible_agents, 0.0)
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, _ = game.last()
        returns[agent] += reward
        if terminated or truncated:
            game.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        game.step(int(rng.choice(legal)))
    return returns


def test_a_game_ends_and_each_return_is_minus_the_total() -> None:
    game = env(players=3, rules=SHORT)
    game.reset(seed=11)
    returns = play(game, random.Random(1))
    assert game.state is not None and game.state.finished
    totals = game.state.totals()
    assert [returns[a] for a in game.possible_agents] == [-float(t) for t in totals]


def test_the_mask_is_the_engines_legal_actions() -> None:
    game = env(players=4, rules=SHORT)
    game.reset(seed=5)
    rng = random.Random(2)
    for _ in range(150):
        agent = game.agent_selection
        obs = game.observe(agent)
        assert game.state is not None
        seat = game.possible_agents.index(agent)
        legal = {action_index(a) for a in view(game.state, seat)["legal_actions"]}
        assert set(np.flatnonzero(obs["action_mask"])) == legal
        for other in game.possible_agents:  # nobody else may move
            if other != agent:
                assert not game.observe(other)["action_mask"].any()
        game.step(int(rng.choice(sorted(legal))))
        if game.state.finished:
            break


def test_an_observation_changes_with_nothing_the_seat_cannot_see() -> None:
    game = env(players=3, rules=SHORT)
    game.reset(seed=3)
    rng = random.Random(4)
    for _ in range(40):
        agent = game.agent_selection
        game.step(int(rng.choice(np.flatnonzero(game.observe(agent)["action_mask"]))))
    assert game.state is not None
    before = {a: game.observe(a)["observation"] for a in game.possible_agents}
    assert before["player_0"].shape == (observation_size(3),)
    # another world the same seats cannot tell apart: hidden cards and the stock redealt
    for agent in game.possible_agents:
        seat = game.possible_agents.index(agent)
        real = game.state
        for world in game.sample_worlds(agent, 5, random.Random(seat)):
            game.state = world
            assert np.array_equal(game.observe(agent)["observation"], before[agent])
        game.state = real


def test_worlds_for_an_agent_keep_its_hand_and_deal_the_rest_again() -> None:
    game = env(players=4, rules=SHORT)
    game.reset(seed=8)
    assert game.state is not None
    worlds = game.sample_worlds("player_2", 30, random.Random(1))
    assert all(w.hands[2] == game.state.hands[2] for w in worlds)
    assert len({w.hands[0] for w in worlds}) > 1 and len({w.stock for w in worlds}) > 1


def records(count: int) -> list[dict[str, Any]]:
    # short games of bots that go out early: a thousand records in seconds, each replayed
    # action by action
    tables = [["greedy", "simple"], ["simple", "greedy", "random"],
              ["greedy", "greedy", "simple", "greedy"]]
    return [record_of(tables[i % 3], f"rec{i}", RECORD_RULES) for i in range(count)]


def test_service_records_replay_to_identical_views_and_legal_actions() -> None:
    replayed = 0
    for record in records(RECORDS):
        n = len(record["players"])
        game = env(players=n, rules=RECORD_RULES)
        game.reset(options={"record": record})
        states = replay(record)
        expected = next(states)
        for action in record["actions"]:
            assert game.state == expected
            assert game.agent_selection == f"player_{action['seat']}"
            game.step(action_index(action))
            expected = next(states)
        assert game.state == expected and expected.finished
        for s in range(n):
            assert view(game.state, s) == view(expected, s)
        assert all(game.terminations.values())
        replayed += 1
    assert replayed == RECORDS
