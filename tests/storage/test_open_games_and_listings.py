"""The Redis game and lobby stores on a real Redis: a game with unclaimed seats lives
OPEN_GAME_TTL_SECONDS from its creation (claims that leave seats open do not renew it),
the last claim gives it the normal TTL; the lobby's listings trim the open games that
can no longer exist. (What the listings promise on both backends: ``test_lobby.py``.)"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import redis

from service.config import Config
from service.core.rules import preset_rules
from service.engine import new_game, opening_events
from service.engine.state import GameState
from service.storage import Stores, redis_stores
from service.storage.redis.scripts import game_keys
from tests.conftest import redis_client, redis_url_for_tests


@pytest.fixture
def db(redis_server: str) -> Iterator[redis.Redis]:
    client = redis_client(redis_url_for_tests(redis_server, 7))
    client.flushdb()
    yield client
    client.flushdb()


def _stores(redis_server: str, open_ttl: int) -> Stores:
    return redis_stores(Config(redis_url=redis_url_for_tests(redis_server, 7),
                               game_ttl_seconds=3600, open_game_ttl_seconds=open_ttl))


def _game() -> GameState:
    return new_game(preset_rules("classic"), ["ann", None, None])


def test_a_game_with_unclaimed_seats_is_gone_after_the_open_game_ttl(
    redis_server: str, db: redis.Redis,
) -> None:
    stores = _stores(redis_server, open_ttl=3)
    state = _game()
    stores.games.create("g1", state, ["h0", None, None], opening_events(state))
    assert 0 < db.ttl(game_keys("g1")[0]) <= 3
    time.sleep(1)
    # a claim that leaves a seat open keeps the creation's deadline (not 3 s from now)
    stores.games.save("g1", state.version, state, [], token_hashes=["h0", "h1", None])
    assert db.pttl(game_keys("g1")[0]) <= 2100
    time.sleep(2.3)
    assert db.exists(*game_keys("g1")) == 0


def test_the_claim_of_the_last_seat_gives_the_game_the_normal_ttl(
    redis_server: str, db: redis.Redis,
) -> None:
    stores = _stores(redis_server, open_ttl=5)
    state = _game()
    stores.games.create("g2", state, ["h0", None, None], opening_events(state))
    stores.games.save("g2", state.version, state, [], token_hashes=["h0", "h1", "h2"])
    assert db.ttl(game_keys("g2")[0]) > 3000
    full = _game()
    stores.games.create("g3", full, ["h0", "h1", "h2"], opening_events(full))
    assert db.ttl(game_keys("g3")[0]) > 3000


def test_listing_a_game_trims_open_games_older_than_the_open_game_ttl(
    redis_server: str, db: redis.Redis,
) -> None:
    stores = _stores(redis_server, open_ttl=60)
    stores.lobby.list_game("old", "open", time.time() - 120)
    stores.lobby.list_game("new", "open", time.time())
    assert [g for g, _ in stores.lobby.listed("open", None, 10)] == ["new"]
