"""Three-Thirteen as a PettingZoo AEC environment, on the service's own engine.

``pip install 'three-thirteen[research]'``, then::

    from service.research.env import env
    game = env(players=4, rules={"preset": "bga"})
    game.reset(seed=7)
    for agent in game.agent_iter():
        obs, reward, terminated, truncated, info = game.last()
        action = None if terminated or truncated else \\
            game.action_space(agent).sample(obs["action_mask"])
        game.step(action)

Agents are ``player_0`` … in seat order; each observes only what its seat may see
(:mod:`.encoding`, built from the seat's view and events: :mod:`.knowledge`), with the
engine's legal actions as ``action_mask``. A round's end rewards every agent with minus
its score for the round, so an agent's return is minus its total, the number the game is
won by. The game always ends (the rules' ``turn_limit`` bounds every round).

:meth:`ThreeThirteenEnv.sample_worlds` draws full states an agent cannot tell from the
real one (from its knowledge only: :mod:`.worlds`), for search. A record of the service
(``GET /v1/games/{id}/record``) replays here exactly: ``reset(options={"record": r})``
deals its game, and stepping its actions gives the states the service had.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from service.core.rules import resolve_rules
from service.engine import GameState, apply, new_game, opening_events, view
from service.engine.seats import actor_of
from service.verify.replay import initial_state

from .encoding import ACTIONS, action_body, action_index, observation, observation_size
from .knowledge import Knowledge
from .worlds import in_state, sample_worlds

__all__ = ["ThreeThirteenEnv", "env"]

TURN_MOVES = frozenset({"draw", "discard", "go_out"})


def env(**kwargs: Any) -> ThreeThirteenEnv:
    """The environment (PettingZoo's convention for an environment module)."""
    return ThreeThirteenEnv(**kwargs)


class ThreeThirteenEnv(AECEnv):  # type: ignore[misc]  # pettingzoo's classes are untyped
    """One game of 2 to 8 players under ``rules`` (a preset and options, as
    ``POST /v1/games`` takes them)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "three_thirteen_v0",
                                          "is_parallelizable": False}

    def __init__(self, players: int = 2, rules: Mapping[str, Any] | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.rules = resolve_rules(dict(rules or {"preset": "classic"}))
        if not self.rules.min_players <= players <= self.rules.max_players:
            raise ValueError(f"these rules seat {self.rules.min_players} to "
                             f"{self.rules.max_players} players, not {players}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode is None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        size = observation_size(players)
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0.0, np.inf, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (ACTIONS,), np.int8),
        }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(ACTIONS) for a in self.possible_agents}
        self._seeds = random.Random()
        self.state: GameState | None = None
        self._logs: list[list[dict[str, Any]]] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- the game ------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game: dealt from ``seed`` (the same seed, the same deal and the same
        game for the same actions); ``options={"record": r}`` deals a record's game."""
        if seed is not None:
            self._seeds = random.Random(seed)
        record = (options or {}).get("record")
        if record is not None:
            if len(record["players"]) != len(self.possible_agents):
                raise ValueError("the record's game has another number of players")
            self.state = initial_state(record)
        else:
            deal = f"{self._seeds.getrandbits(64):016x}"
            self.state = new_game(self.rules, list(self.possible_agents), deal,
                                  seed_salt=f"env:{deal}")
        opening = opening_events(self.state)
        self._logs = [[e.for_seat(s) for e in opening] for s in range(self.state.players)]
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._game()
        seat = self.possible_agents.index(agent)
        if action is None:
            raise ValueError(f"{agent} is to move: an action is needed")
        body = action_body(int(action))
        self._cumulative_rewards[agent] = 0.0
        state, events = apply(state, seat, body, actor_of(state, seat))
        self.state = state
        for s, log in enumerate(self._logs):
            log.extend(e.for_seat(s) for e in events)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        for e in events:
            if e.type == "round_ended":
                for result in e.public["results"]:
                    self.rewards[self.possible_agents[result["seat"]]] = -float(result["score"])
        if state.finished:
            self.terminations = dict.fromkeys(self.agents, True)
        self._select()
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, Any]:
        state = self._game()
        seat = self.possible_agents.index(agent)
        seat_view = view(state, seat, actor_of(state, seat))
        knowledge = Knowledge.of(seat_view, self._logs[seat])
        mask = np.zeros(ACTIONS, np.int8)
        for a in seat_view["legal_actions"]:
            if a["type"] in TURN_MOVES:
                mask[action_index(a)] = 1
        return {"observation": np.asarray(observation(seat_view, knowledge), np.float32),
                "action_mask": mask}

    def render(self) -> str | None:
        """The table as a spectator sees it (no hidden card), in ``ansi`` mode."""
        if self.render_mode is None:
            return None
        state = self._game()
        table = view(state, None)
        rnd = table["round"]
        lines = [f"round {rnd['number']}/{rnd['rounds']} wild {rnd['wild_rank']}, "
                 f"pile {rnd['discard_top']}, stock {rnd['stock_count']}"]
        lines += [f"{'>' if rnd['current_seat'] == p['seat'] else ' '} {p['name']}: "
                  f"{p['hand_count']} cards, total {p['total']}" for p in table["players"]]
        return "\n".join(lines)

    def close(self) -> None:
        pass

    # -- for search and analysis ------------------------------------------------------

    def knowledge(self, agent: str) -> Knowledge:
        """What ``agent`` knows of the round in play (:mod:`.knowledge`)."""
        state = self._game()
        seat = self.possible_agents.index(agent)
        return Knowledge.of(view(state, seat, actor_of(state, seat)), self._logs[seat])

    def sample_worlds(self, agent: str, n: int, rng: random.Random | None = None,
                      ) -> list[GameState]:
        """``n`` full states ``agent`` cannot tell from the real one: hidden cards drawn
        from its knowledge alone (:func:`.worlds.sample_worlds`), the public part the
        game's, and a fresh seed for whatever the rest of the round shuffles."""
        rng = rng or random.Random()
        state = self._game()
        return [in_state(state, world, f"world:{rng.getrandbits(64):016x}")
                for world in sample_worlds(self.knowledge(agent), n, rng)]

    # -- helpers -------------------------------------------------------------------------

    def _game(self) -> GameState:
        if self.state is None:
            raise RuntimeError("reset() the environment first")
        return self.state

    def _select(self) -> None:
        state = self._game()
        seat = state.current_seat if state.current_seat is not None else 0
        self.agent_selection = self.possible_agents[seat]
