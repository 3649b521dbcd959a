"""How long an idempotent reply is kept: ``IDEMPOTENCY_TTL_SECONDS``, 1 h by default.

The kept replies (the whole response, about 2.1 KB per action) were 95 % of a game's
Redis memory when kept 24 h, while a client's retry comes within seconds (README
"Capacity")."""

from __future__ import annotations

import dataclasses

import redis

from service.app import create_app
from service.config import Config
from tests.api.conftest import Table


def test_the_default_keeps_a_reply_one_hour_and_the_environment_can_change_it() -> None:
    assert Config().idempotency_ttl_seconds == 3600
    assert Config.from_env({}).idempotency_ttl_seconds == 3600
    assert Config.from_env({"IDEMPOTENCY_TTL_SECONDS": "86400"}).idempotency_ttl_seconds == 86400


def test_a_stored_reply_expires_after_the_default_hour_while_the_game_keeps_its_ttl(
        config: Config, redis_db: redis.Redis) -> None:
    # the tests' config with the game's real 7 days; the reply TTL left at its default
    app = create_app(dataclasses.replace(config, game_ttl_seconds=7 * 24 * 3600))
    table = Table(app.test_client(), {"players": [{"name": "ann"}, {"name": "bob"}], "seed": "7"})
    seat = table.view()["round"]["current_seat"]
    r = table.act(seat, {"type": "draw", "source": "stock"}, **{"Idempotency-Key": "k1"})
    assert r.status_code == 200, r.json
    (reply,) = redis_db.keys(f"ttt:{{{table.game_id}}}:reply:*")
    assert 3600 - 60 < redis_db.ttl(reply) <= 3600
    assert redis_db.ttl(f"ttt:{{{table.game_id}}}:game") > 6 * 24 * 3600
