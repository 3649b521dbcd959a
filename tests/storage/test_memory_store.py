"""The in-memory game and reply stores (``service/storage/memory/``) keep the promises of
``GameStore`` and ``ReplyStore`` that the service layer relies on: compare-and-set,
events with the state, replies stored once, records never replaced, real waits."""

from __future__ import annotations

import threading
import time

import pytest

from service.core.cards import card_name
from service.core.rules import resolve_rules
from service.engine import GameState, apply, new_game, opening_events
from service.storage import (
    GameExistsError,
    ReplyKeySupersededError,
    StoredReply,
    Stores,
    UnknownGameError,
    VersionConflictError,
    memory_stores,
)
from tests.conftest import PATIENCE

DRAW = {"type": "draw", "source": "stock"}


def _stored() -> tuple[Stores, GameState]:
    stores = memory_stores()
    state = new_game(resolve_rules({"preset": "classic"}), ["ann", "bob"], "1")
    stores.games.create("g", state, ["a", "b"], opening_events(state))
    return stores, state


def _seat(state: GameState) -> int:
    assert state.current_seat is not None
    return state.current_seat


def test_a_game_is_created_once_and_an_unknown_one_is_not_found() -> None:
    stores, state = _stored()
    with pytest.raises(GameExistsError):
        stores.games.create("g", state, ["a", "b"], [])
    with pytest.raises(UnknownGameError):
        stores.games.load("nope")


def test_a_save_from_a_stale_version_writes_nothing() -> None:
    stores, state = _stored()
    moved, events = apply(state, _seat(state), DRAW)
    stores.games.save("g", 0, moved, events)
    with pytest.raises(VersionConflictError) as conflict:
        stores.games.save("g", 0, moved, events)
    assert conflict.value.current == 1
    assert [e.seq for e in stores.games.events("g", 0, 10)] == [1, *[e.seq for e in events]]


def test_a_reply_key_already_used_returns_the_earlier_reply_and_writes_nothing() -> None:
    stores, state = _stored()
    moved, events = apply(state, _seat(state), DRAW)
    first = StoredReply("f", 200, '"1"', b"{}")
    assert stores.games.save("g", 0, moved, events, reply_key="k", reply=first) is None
    assert stores.games.save("g", 1, moved, events, reply_key="k",
                      reply=StoredReply("f", 200, '"2"', b"[]")) == first
    assert stores.games.load("g").state.version == 1
    assert stores.replies.stored_reply("g", "k") == first


def test_a_watch_times_out_without_news_and_wakes_on_the_next_write() -> None:
    stores, state = _stored()
    with stores.games.watch("g") as watch:
        started = time.monotonic()
        assert not watch.wait(0.05)
        assert time.monotonic() - started >= 0.05
        moved, events = apply(state, _seat(state), DRAW)
        saver = threading.Timer(0.05, lambda: stores.games.save("g", 0, moved, events))
        saver.start()
        assert watch.wait(PATIENCE)
        saver.join()
        assert watch.load().state.version == 1
        assert [e.seq for e in watch.events(state.event_seq, 10)] == [e.seq for e in events]


def test_a_slot_keeps_only_its_latest_reply_and_refuses_the_keys_it_replaced() -> None:
    stores, state = _stored()
    first = StoredReply("f1", 200, '"1"', b"{1}")
    moved, events = apply(state, _seat(state), DRAW)
    assert stores.games.save("g", 0, moved, events, reply_key="seat0:k1", reply=first) is None
    card = moved.hands[_seat(state)][0]
    again, more = apply(moved, _seat(state), {"type": "discard", "card": card_name(card)})
    second = StoredReply("f2", 200, '"2"', b"{2}")
    assert stores.games.save("g", 1, again, more, reply_key="seat0:k2", reply=second) is None
    assert stores.replies.stored_reply("g", "seat0:k2") == second
    assert stores.replies.stored_reply("g", "seat1:k1") is None  # another slot
    with pytest.raises(ReplyKeySupersededError):
        stores.replies.stored_reply("g", "seat0:k1")
    with pytest.raises(ReplyKeySupersededError):
        stores.games.save("g", 2, again, more, reply_key="seat0:k1", reply=first)
    assert stores.games.load("g").state.version == 2  # nothing written


def test_a_record_is_written_by_a_save_once_and_never_replaced() -> None:
    stores, state = _stored()
    moved, events = apply(state, _seat(state), DRAW)
    assert stores.records.load_record("g") is None
    stores.games.save("g", 0, moved, events, record=b"first")
    stores.games.save("g", 1, moved, [], record=b"second")
    assert stores.records.load_record("g") == b"first"


def test_a_pool_watch_wakes_on_its_pools_match_only_and_every_watch_on_wake_all() -> None:
    stores, _ = _stored()
    with stores.seeks.watch("pool-a") as a, stores.seeks.watch("pool-b") as b, \
            stores.games.watch("g") as game:
        stores.seeks.add("pool-a", "k1", {"name": "x", "th": "h1"}, time.time() + 60, 2,
                         "m1", b'"classic"', time.time())
        assert not a.wait(0.01)  # one seeker: no match yet
        stores.seeks.add("pool-a", "k2", {"name": "y", "th": "h2"}, time.time() + 60, 2,
                         "m1", b'"classic"', time.time())
        assert a.wait(PATIENCE) and not b.wait(0.01) and not game.wait(0.01)
        stores.games.wake_all()
        assert b.wait(PATIENCE) and game.wait(PATIENCE)
