"""A save that times out is not sent again: it may have run, and a second run would
answer a move that was applied with a version conflict (found by a flaky fault test on a
loaded machine: a 412 for the client's own move)."""

from __future__ import annotations

import time

import pytest
import redis

from service.config import Config
from service.core.cards import card_name
from service.core.rules import preset_rules
from service.engine import apply, new_game
from service.storage import StorageUnavailableError, redis_stores
from tests.conftest import redis_url_for_tests

TIMEOUT = 0.5
#: Keeps Redis busy for ARGV[1] milliseconds.
BUSY = """
local t = redis.call('TIME')
local until_us = (t[1] * 1000000 + t[2]) + ARGV[1] * 1000
repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] >= until_us
return 1
"""


def test_a_save_that_times_out_is_a_503_and_the_move_is_applied_once(redis_server: str) -> None:
    url = redis_url_for_tests(redis_server, 11)
    client = redis.Redis.from_url(url)
    client.flushdb()
    stores = redis_stores(Config(redis_url=url, redis_timeout_seconds=TIMEOUT))
    store = stores.games
    state = new_game(preset_rules("classic"), ["ann", "bob"], seed="timeouts")
    store.create("g1", state, [None, None], [])
    drawn, events = apply(state, state.current_seat, {"type": "draw", "source": "stock"})
    store.save("g1", 0, drawn, events)  # (Redis now holds the script: EVALSHA runs it)
    card = card_name(drawn.hands[drawn.current_seat][0])
    new, events = apply(drawn, drawn.current_seat, {"type": "discard", "card": card})
    # Redis busy (a script) a little longer than the timeout: the save, already sent, runs
    # once Redis is free, after the client gave up on it. A retry would run second, less
    # than a timeout later, and find version 2: the client would hear a version conflict
    # for its own move, not this 503. (The script is sent from here, not from a thread
    # that might start late on a busy machine; no time is measured.)
    busy = client.connection_pool.get_connection()
    busy.send_command("EVAL", BUSY, 0, int(TIMEOUT * 1000 + 300))
    time.sleep(0.05)
    with pytest.raises(StorageUnavailableError):
        store.save("g1", 1, new, events)
    assert busy.read_response() == 1
    client.connection_pool.release(busy)
    assert store.load("g1").state.version == 2
    client.flushdb()
    stores.close()
