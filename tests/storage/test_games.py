"""The game store's promises (``service/storage/games.py``) and those of the reply and
record stores that read what its saves write (``replies.py``, ``records.py``), on a
real Redis and in memory: a game is created once; a save is a compare-and-set that
writes the state, its events, the acting seat's reply and a finished game's record
together or nothing; a reply key replays its reply, its slot keeps only its latest and
refuses the keys it replaced lately; a record is never replaced; events read in order
by position; a watch wakes on its game's next save, and every watch on ``wake_all``."""

from __future__ import annotations

import threading
import time

import pytest

from service.core.cards import card_name
from service.core.rules import resolve_rules
from service.engine import Event, GameState, apply, new_game, opening_events
from service.storage import (
    GameExistsError,
    ReplyKeySupersededError,
    SeekRecord,
    StoredReply,
    Stores,
    UnknownGameError,
    VersionConflictError,
)
from service.storage.replies import SUPERSEDED_KEYS_KEPT
from tests.conftest import PATIENCE

DRAW = {"type": "draw", "source": "stock"}


def _stored(stores: Stores, game_id: str = "g") -> GameState:
    state = new_game(resolve_rules({"preset": "classic"}), ["ann", "bob"], "1")
    stores.games.create(game_id, state, ["a", "b"], opening_events(state))
    return state


def _seat(state: GameState) -> int:
    assert state.current_seat is not None
    return state.current_seat


def _key(n: int, slot: str = "seat0") -> str:
    """A reply key as the play layer makes them: its slot, then 16 hex digits."""
    return f"{slot}:{n:016x}"


def _moves(state: GameState, count: int) -> list[tuple[GameState, list[Event]]]:
    """``count`` moves on from ``state``: draw, discard, draw… (each with its events)."""
    out = []
    for n in range(count):
        seat = _seat(state)
        body = DRAW if n % 2 == 0 else {"type": "discard",
                                        "card": card_name(state.hands[seat][0])}
        state, events = apply(state, seat, body)
        out.append((state, events))
    return out


def test_a_game_is_created_once_and_loaded_as_it_was_stored(stores: Stores) -> None:
    before = time.time()
    state = _stored(stores)
    with pytest.raises(GameExistsError):
        stores.games.create("g", state, ["c", "d"], [])
    record = stores.games.load("g")
    assert (record.game_id, record.state, record.token_hashes) == ("g", state, ("a", "b"))
    assert record.created_at is not None and before - 1 <= record.created_at <= time.time() + 1
    with pytest.raises(UnknownGameError):
        stores.games.load("nope")


def test_load_many_reads_games_in_order_and_none_for_those_missing(stores: Stores) -> None:
    state = _stored(stores, "g1")
    _stored(stores, "g2")
    found = stores.games.load_many(["g2", "nope", "g1"])
    assert [r and r.game_id for r in found] == ["g2", None, "g1"]
    assert found[2] is not None and found[2].state == state
    assert stores.games.load_many([]) == []


def test_a_save_from_a_stale_version_writes_nothing(stores: Stores) -> None:
    state = _stored(stores)
    moved, events = apply(state, _seat(state), DRAW)
    assert stores.games.save("g", 0, moved, events, token_hashes=["a2", "b"]) is None
    with pytest.raises(VersionConflictError) as conflict:
        stores.games.save("g", 0, moved, events, record=b"r")
    assert conflict.value.current == 1
    loaded = stores.games.load("g")
    assert (loaded.state, loaded.token_hashes) == (moved, ("a2", "b"))
    assert [e.seq for e in stores.games.events("g", 0, 100)] == [
        *[e.seq for e in opening_events(state)], *[e.seq for e in events]]
    assert stores.records.load_record("g") is None
    with pytest.raises(UnknownGameError):
        stores.games.save("nope", 0, moved, events)


def test_events_read_in_order_after_a_position(stores: Stores) -> None:
    state = _stored(stores)
    version, last = 0, state
    for moved, events in _moves(state, 6):
        stores.games.save("g", version, moved, events)
        version, last = moved.version, moved
    everything = stores.games.all_events("g")
    assert [e.seq for e in everything] == list(range(1, last.event_seq + 1))
    assert stores.games.events("g", 2, 3) == everything[2:5]
    assert stores.games.all_events("g", last.event_seq - 1) == everything[-1:]
    assert stores.games.events("g", last.event_seq, 10) == []
    assert stores.games.events("nope", 0, 10) == []


def test_a_reply_key_already_used_returns_the_earlier_reply_and_writes_nothing(
        stores: Stores) -> None:
    state = _stored(stores)
    (moved, events), (again, more) = _moves(state, 2)
    first = StoredReply("f", 200, '"1"', b"{}")
    assert stores.games.save("g", 0, moved, events, reply_key=_key(1), reply=first) is None
    assert stores.replies.stored_reply("g", _key(1)) == first
    # a retry of the same request, even from the version it saw then: its first reply
    assert stores.games.save("g", 0, moved, events, reply_key=_key(1),
                             reply=StoredReply("f", 200, '"2"', b"[]")) == first
    assert stores.games.save("g", 1, again, more, reply_key=_key(1),
                             reply=StoredReply("f", 200, '"2"', b"[]")) == first
    assert stores.games.load("g").state.version == 1


def test_a_slot_keeps_only_its_latest_reply_and_refuses_the_keys_it_replaced_lately(
        stores: Stores) -> None:
    state = _stored(stores)
    version = 0
    replies = [StoredReply(f"f{n}", 200, f'"{n}"', b"{%d}" % n) for n in range(20)]
    for n, (moved, events) in enumerate(_moves(state, SUPERSEDED_KEYS_KEPT + 2)):
        assert stores.games.save("g", version, moved, events, reply_key=_key(n),
                                 reply=replies[n]) is None
        version = moved.version
    latest = SUPERSEDED_KEYS_KEPT + 1
    assert stores.replies.stored_reply("g", _key(latest)) == replies[latest]
    assert stores.replies.stored_reply("g", _key(latest, "seat1")) is None  # another slot
    for n in range(1, latest):  # replaced lately: refused, to act nor to replay
        with pytest.raises(ReplyKeySupersededError):
            stores.replies.stored_reply("g", _key(n))
    assert stores.replies.stored_reply("g", _key(0)) is None  # replaced long ago: new
    with pytest.raises(ReplyKeySupersededError):
        stores.games.save("g", version, state, [], reply_key=_key(1), reply=replies[1])
    assert stores.games.load("g").state.version == version  # nothing written
    assert stores.replies.stored_reply("nope", _key(latest)) is None


def test_a_record_is_written_by_a_save_once_and_never_replaced(stores: Stores) -> None:
    state = _stored(stores)
    _stored(stores, "other")
    (moved, events), (again, more) = _moves(state, 2)
    assert stores.records.load_record("g") is None
    stores.games.save("g", 0, moved, events, record=b"first")
    stores.games.save("g", 1, again, more, record=b"second")
    assert stores.records.load_record("g") == b"first"
    assert stores.records.load_records(["other", "g", "nope"]) == [None, b"first", None]
    assert stores.records.load_records([]) == []


def test_a_watch_times_out_without_news_and_wakes_on_its_games_next_save(
        stores: Stores) -> None:
    state = _stored(stores)
    _stored(stores, "other")
    with stores.games.watch("g") as watch, stores.games.watch("other") as other:
        started = time.monotonic()
        assert not watch.wait(0.05)
        assert time.monotonic() - started >= 0.05
        moved, events = apply(state, _seat(state), DRAW)
        saver = threading.Timer(0.05, lambda: stores.games.save("g", 0, moved, events))
        saver.start()
        assert watch.wait(PATIENCE)
        saver.join()
        assert watch.load().state.version == 1
        assert watch.load(at_least=1).state.version == 1
        assert [e.seq for e in watch.events(state.event_seq, 10)] == [e.seq for e in events]
        assert not other.wait(0.05)


def test_a_pool_watch_wakes_on_its_pools_match_only_and_every_watch_on_wake_all(
        stores: Stores) -> None:
    _stored(stores)
    with stores.seeks.watch("pool-a.2") as a, stores.seeks.watch("pool-b.2") as b, \
            stores.games.watch("g") as game:
        stores.seeks.add("pool-a.2", "k1", SeekRecord("x", "h1", None, False), time.time() + 60,
                         2, "m1", b'"classic"', time.time())
        assert not a.wait(0.01)  # one seeker: no match yet
        stores.seeks.add("pool-a.2", "k2", SeekRecord("y", "h2", None, False), time.time() + 60,
                         2, "m1", b'"classic"', time.time())
        assert a.wait(PATIENCE) and not b.wait(0.01) and not game.wait(0.01)
        stores.games.wake_all()
        assert b.wait(PATIENCE) and game.wait(PATIENCE)


def test_a_store_that_answers_pings(stores: Stores) -> None:
    stores.games.ping()


def test_the_effects_cursor_starts_at_zero_and_only_moves_forward(stores: Stores) -> None:
    """A new game owes the effects of all its events (``service/play/effects.py``): its
    cursor starts at 0; marking moves it forward only, and marks nothing on a game that
    is gone."""
    state = _stored(stores)
    assert stores.games.load("g").handled == 0
    stores.games.mark_handled("g", state.event_seq)
    stores.games.mark_handled("g", 0)  # a late run of an older batch
    assert stores.games.load("g").handled == state.event_seq
    assert stores.games.load_many(["g"])[0].handled == state.event_seq  # type: ignore[union-attr]
    stores.games.mark_handled("gone", 5)
    with pytest.raises(UnknownGameError):
        stores.games.load("gone")
    # a save may move it in the same step (a change that owes no effects)
    (moved, events), = _moves(state, 1)
    stores.games.save("g", state.version, moved, events, handled=moved.event_seq)
    assert stores.games.load("g").handled == moved.event_seq
