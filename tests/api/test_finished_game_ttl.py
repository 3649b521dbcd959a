"""A finished game's keys are kept ``FINISHED_GAME_TTL_SECONDS`` (1 day by default), not
the 7 days of ``GAME_TTL_SECONDS`` that a game between moves gets: a finished game no
longer changes, and finished games are most of what a shard holds."""

from __future__ import annotations

import dataclasses

import redis

from service.app import create_app
from service.config import Config
from tests.api.conftest import Table


def test_the_default_keeps_a_finished_game_one_day_and_the_environment_can_change_it() -> None:
    assert Config().finished_game_ttl_seconds == 24 * 3600
    env = {"FINISHED_GAME_TTL_SECONDS": "600"}
    assert Config.from_env(env).finished_game_ttl_seconds == 600


def test_the_last_move_gives_the_game_and_its_log_the_finished_ttl(
        config: Config, redis_db: redis.Redis) -> None:
    app = create_app(dataclasses.replace(config, game_ttl_seconds=7 * 24 * 3600,
                                         finished_game_ttl_seconds=600))
    table = Table(app.test_client(), {"players": [{"name": "ann"}, {"name": "bob"}],
                                      "rules": {"hand_sizes": [3]}, "seed": "7"})
    keys = [f"ttt:{{{table.game_id}}}:game", f"ttt:{{{table.game_id}}}:events"]
    while (view := table.view())["status"] != "finished":
        assert all(redis_db.ttl(k) > 6 * 24 * 3600 for k in keys)  # still being played
        seat = view["round"]["current_seat"]
        legal = table.view(seat)["legal_actions"]
        go_out = [a for a in legal if a["type"] == "go_out"]
        assert table.act(seat, (go_out or legal)[0]).status_code == 200
    assert all(0 < redis_db.ttl(k) <= 600 for k in keys)
