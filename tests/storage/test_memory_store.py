"""``service/storage/memory.py`` keeps the promises of ``GameStore`` that the service layer
relies on: compare-and-set, events with the state, replies stored once, real waits."""

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
    UnknownGameError,
    VersionConflictError,
)
from service.storage.memory import MemoryGameStore

DRAW = {"type": "draw", "source": "stock"}


def _stored() -> tuple[MemoryGameStore, GameState]:
    store = MemoryGameStore()
    state = new_game(resolve_rules({"preset": "classic"}), ["ann", "bob"], "1")
    store.create("g", state, ["a", "b"], opening_events(state))
    return store, state


def _seat(state: GameState) -> int:
    assert state.current_seat is not None
    return state.current_seat


def test_a_game_is_created_once_and_an_unknown_one_is_not_found() -> None:
    store, state = _stored()
    with pytest.raises(GameExistsError):
        store.create("g", state, ["a", "b"], [])
    with pytest.raises(UnknownGameError):
        store.load("nope")


def test_a_save_from_a_stale_version_writes_nothing() -> None:
    store, state = _stored()
    moved, events = apply(state, _seat(state), DRAW)
    store.save("g", 0, moved, events)
    with pytest.raises(VersionConflictError) as conflict:
        store.save("g", 0, moved, events)
    assert conflict.value.current == 1
    assert [e.seq for e in store.events("g", 0, 10)] == [1, *[e.seq for e in events]]


def test_a_reply_key_already_used_returns_the_earlier_reply_and_writes_nothing() -> None:
    store, state = _stored()
    moved, events = apply(state, _seat(state), DRAW)
    first = StoredReply("f", 200, '"1"', b"{}")
    assert store.save("g", 0, moved, events, reply_key="k", reply=first) is None
    assert store.save("g", 1, moved, events, reply_key="k",
                      reply=StoredReply("f", 200, '"2"', b"[]")) == first
    assert store.load("g").state.version == 1 and store.stored_reply("g", "k") == first


def test_a_watch_times_out_without_news_and_wakes_on_the_next_write() -> None:
    store, state = _stored()
    with store.watch("g") as watch:
        started = time.monotonic()
        assert not watch.wait(0.05)
        assert time.monotonic() - started >= 0.05
        moved, events = apply(state, _seat(state), DRAW)
        saver = threading.Timer(0.05, lambda: store.save("g", 0, moved, events))
        saver.start()
        assert watch.wait(10)
        saver.join()
        assert watch.load().state.version == 1
        assert [e.seq for e in watch.events(state.event_seq, 10)] == [e.seq for e in events]


def test_a_slot_keeps_only_its_latest_reply_and_refuses_the_keys_it_replaced() -> None:
    store, state = _stored()
    first = StoredReply("f1", 200, '"1"', b"{1}")
    moved, events = apply(state, _seat(state), DRAW)
    assert store.save("g", 0, moved, events, reply_key="seat0:k1", reply=first) is None
    card = moved.hands[_seat(state)][0]
    again, more = apply(moved, _seat(state), {"type": "discard", "card": card_name(card)})
    second = StoredReply("f2", 200, '"2"', b"{2}")
    assert store.save("g", 1, again, more, reply_key="seat0:k2", reply=second) is None
    assert store.stored_reply("g", "seat0:k2") == second
    assert store.stored_reply("g", "seat1:k1") is None  # another slot
    with pytest.raises(ReplyKeySupersededError):
        store.stored_reply("g", "seat0:k1")
    with pytest.raises(ReplyKeySupersededError):
        store.save("g", 2, again, more, reply_key="seat0:k1", reply=first)
    assert store.load("g").state.version == 2  # nothing written
