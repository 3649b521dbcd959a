"""``service/play/streams.py`` on the in-memory stores: what a stream sends, in which order,
and how it ends; stream tickets."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from service import play
from service.config import Config
from service.play import AuthError, Message
from service.play.credentials import hash_token
from service.play.errors import InvalidCursorError
from service.storage import GameRecord, StorageUnavailableError, Stores, redis_stores
from service.storage.memory import MemoryGameStore

from .conftest import with_games


def _game(stores: Stores, hand_sizes: list[int] | None = None
          ) -> tuple[GameRecord, list[str]]:
    rules: dict[str, Any] = {"preset": "classic"}
    if hand_sizes:
        rules["hand_sizes"] = hand_sizes
    record, tokens = play.create_game(stores, rules, ["ann", "bob"], "7")
    return record, [t for t in tokens if t is not None]


def _move(stores: Stores, game_id: str, tokens: list[str], rng: random.Random) -> None:
    """One legal action of the seat on turn (going out when it can)."""
    record = stores.games.load(game_id)
    seat = record.state.current_seat
    assert seat is not None
    legal = play.game_view(game_id, record.state, seat)["legal_actions"]
    go_out = [a for a in legal if a["type"] == "go_out"]
    play.act(stores, game_id, hash_token(tokens[seat]), go_out[0] if go_out else rng.choice(legal))


def _stream(stores: Stores, game_id: str, seat: int | None, after: int = 0,
            **kw: Any) -> Iterator[Message]:
    options: dict[str, Any] = {"max_seconds": 30.0, "heartbeat_seconds": 30.0,
                               "stopping": lambda: False, **kw}
    return play.stream_messages(stores, game_id, seat, after, **options)


def _take(messages: Iterator[Message], n: int) -> list[Message]:
    return [next(messages) for _ in range(n)]


def test_a_stream_first_sends_the_events_after_the_cursor_then_the_current_view(
    stores: Stores,
) -> None:
    record, tokens = _game(stores)
    rng = random.Random(1)
    for _ in range(3):
        _move(stores, record.game_id, tokens, rng)
    newest = stores.games.load(record.game_id).state.event_seq
    messages = _stream(stores, record.game_id, 0, after=1)
    got = _take(messages, newest - 1 + 1)
    assert [m.kind for m in got] == ["event"] * (newest - 1) + ["view"]
    assert [m.seq for m in got[:-1]] == list(range(2, newest + 1))
    view = orjson.loads(got[-1].body or b"")
    assert view["version"] == 3 and view["you"]["seat"] == 0
    messages.close()


def test_every_move_sends_its_new_events_then_the_new_view(stores: Stores) -> None:
    record, tokens = _game(stores)
    messages = _stream(stores, record.game_id, None, after=record.state.event_seq)
    assert [m.kind for m in _take(messages, 1)] == ["view"]
    threading.Timer(0.05, _move, (stores, record.game_id, tokens, random.Random(2))).start()
    first = next(messages)
    assert first.kind == "event" and first.seq == record.state.event_seq + 1
    rest = []
    while (m := next(messages)).kind == "event":
        rest.append(m)
    assert m.kind == "view" and orjson.loads(m.body or b"")["version"] == 1
    assert [e.seq for e in [first, *rest]] == list(range(first.seq, first.seq + 1 + len(rest)))
    messages.close()


def test_a_seat_sees_its_own_private_fields_and_a_spectator_only_public_ones(
    stores: Stores,
) -> None:
    record, _ = _game(stores)
    dealt = next(_stream(stores, record.game_id, 0))
    public = next(_stream(stores, record.game_id, None))
    assert dealt.kind == public.kind == "event"
    assert dealt.data is not None and public.data is not None
    assert dealt.data["type"] == "round_started" and "hand" in dealt.data
    assert "hand" not in public.data


def test_an_idle_stream_sends_heartbeats_and_ends_at_its_maximum_duration_with_a_retry_hint(
    stores: Stores,
) -> None:
    record, _ = _game(stores)
    start = time.monotonic()
    got = list(_stream(stores, record.game_id, None, after=record.state.event_seq,
                       max_seconds=1.0, heartbeat_seconds=0.1))
    assert 0.95 < time.monotonic() - start < 15  # its 1 s, not the 30 s of _stream's defaults
    assert got[0].kind == "view"
    assert [m.kind for m in got[1:-1]] == ["heartbeat"] * len(got[1:-1])
    assert 3 <= len(got[1:-1]) <= 12  # some even on a loaded machine; not a busy loop
    assert got[-1] == Message("end", {"reason": "max_duration", "retry_ms": play.END_RETRY_MS})


def test_a_shutdown_wakes_an_idle_stream_which_ends_at_once(stores: Stores) -> None:
    record, _ = _game(stores)
    stopping = threading.Event()
    messages = _stream(stores, record.game_id, None, after=record.state.event_seq,
                       stopping=stopping.is_set)
    assert next(messages).kind == "view"

    def stop() -> None:
        stopping.set()
        stores.games.wake_all()

    threading.Timer(0.1, stop).start()
    start = time.monotonic()
    assert next(messages).data == {"reason": "shutdown", "retry_ms": play.END_RETRY_MS}
    # woken by the shutdown, not by its next heartbeat (30 s): a bound far from both
    assert time.monotonic() - start < 15
    with pytest.raises(StopIteration):
        next(messages)


def test_a_finished_game_ends_the_stream_after_its_final_view(stores: Stores) -> None:
    record, tokens = _game(stores, hand_sizes=[3])
    rng = random.Random(3)
    while not stores.games.load(record.game_id).state.finished:
        _move(stores, record.game_id, tokens, rng)
    got = list(_stream(stores, record.game_id, 1))
    assert [m.kind for m in got[-2:]] == ["view", "end"]
    assert orjson.loads(got[-2].body or b"")["status"] == "finished"
    assert got[-1].data == {"reason": "finished", "retry_ms": play.END_RETRY_MS}
    events = [m.data for m in got if m.kind == "event"]
    assert events == [e.for_seat(1) for e in stores.games.events(record.game_id, 0, 10_000)]
    assert events[-1] is not None and events[-1]["type"] == "game_finished"


def test_a_finished_games_stream_follows_its_analysis_until_done_then_ends(
    stores: Stores,
) -> None:
    record, tokens = _game(stores, hand_sizes=[3])
    rng = random.Random(3)
    while not stores.games.load(record.game_id).state.finished:
        _move(stores, record.game_id, tokens, rng)
    game_id = record.game_id
    stores.analyses.request(game_id, 0.0, 10, "r")
    messages = _stream(stores, game_id, None, after=stores.games.load(game_id).state.event_seq)
    assert next(messages).kind == "view"
    assert next(messages) == Message("analysis", {"status": "queued", "progress": 0.0})

    def work() -> None:  # what an analysis worker writes, each change waking the stream
        time.sleep(0.05)
        stores.analyses.start(game_id, "w", 1.0, 60.0)
        time.sleep(0.05)
        stores.analyses.progress(game_id, 0.5, 2.0)
        time.sleep(0.05)
        stores.analyses.finish(game_id, b"{}")

    threading.Thread(target=work).start()
    got = list(messages)
    shown = [m.data for m in got if m.kind == "analysis"]
    assert shown[-1] == {"status": "done", "progress": 1.0}
    # in order, never backwards (changes that come faster than the stream reads may merge)
    order = ["queued", "running", "done"]
    assert [order.index(a["status"]) for a in shown] == sorted(
        order.index(a["status"]) for a in shown)
    assert [a["progress"] for a in shown] == sorted(a["progress"] for a in shown)
    assert [m.kind for m in got if m.kind != "analysis"] == ["end"]
    assert got[-1].data == {"reason": "finished", "retry_ms": play.END_RETRY_MS}


def test_a_finished_game_without_an_analysis_ends_its_stream_at_once(stores: Stores) -> None:
    record, tokens = _game(stores, hand_sizes=[3])
    rng = random.Random(4)
    while not stores.games.load(record.game_id).state.finished:
        _move(stores, record.game_id, tokens, rng)
    got = list(_stream(stores, record.game_id, None,
                       after=stores.games.load(record.game_id).state.event_seq))
    assert [m.kind for m in got] == ["view", "end"]


def test_a_cursor_beyond_the_newest_event_is_refused(stores: Stores) -> None:
    record, _ = _game(stores)
    play.check_cursor(record, record.state.event_seq)
    with pytest.raises(InvalidCursorError):
        play.check_cursor(record, record.state.event_seq + 1)


def test_a_stream_ticket_opens_one_stream_as_its_seat_then_never_again(
    stores: Stores,
) -> None:
    record, tokens = _game(stores)
    ticket = play.issue_ticket(stores, record.game_id, hash_token(tokens[1]))
    assert tokens[1] not in ticket
    _, seat = play.redeem_ticket(stores, record.game_id, ticket)
    assert seat == 1
    with pytest.raises(AuthError):
        play.redeem_ticket(stores, record.game_id, ticket)


def test_a_ticket_needs_a_seat_token_and_is_good_for_its_game_only(
    stores: Stores,
) -> None:
    record, tokens = _game(stores)
    other, _ = _game(stores)
    with pytest.raises(AuthError):
        play.issue_ticket(stores, record.game_id, None)
    with pytest.raises(AuthError):
        play.issue_ticket(stores, record.game_id, hash_token("not-a-token"))
    ticket = play.issue_ticket(stores, record.game_id, hash_token(tokens[0]))
    with pytest.raises(AuthError):
        play.redeem_ticket(stores, other.game_id, ticket)


def test_an_expired_ticket_is_refused(stores: Stores) -> None:
    record, tokens = _game(stores)
    assert stores.tickets.put_ticket(record.game_id, "h", play.hash_token(tokens[0]), 0)
    assert stores.tickets.take_ticket(record.game_id, "h") is None


class _FailingStore(MemoryGameStore):
    """A game store whose reads fail once told to (as Redis does while it restarts)."""

    failing = False

    def load(self, game_id: str) -> GameRecord:
        if self.failing:
            raise StorageUnavailableError("connection refused")
        return super().load(game_id)


def test_a_store_failing_mid_stream_ends_it_as_unavailable_with_a_retry_hint() -> None:
    stores = with_games(_FailingStore)
    record, _ = _game(stores)
    messages = _stream(stores, record.game_id, None, after=record.state.event_seq)
    assert next(messages).kind == "view"
    stores.games.failing = True
    stores.games.wake_all()
    assert next(messages).data == {"reason": "unavailable", "retry_ms": play.END_RETRY_MS}
    with pytest.raises(StopIteration):
        next(messages)


def test_streams_opening_together_on_one_game_share_its_first_redis_read(
    redis_server: str,
) -> None:
    """On Redis (the hub shares reads): streams that open on a game at a version the
    bearer check has just read cost one read for all, and each sends that view."""
    on_redis = redis_stores(Config(redis_url=f"{redis_server}/9", game_ttl_seconds=60))
    try:
        record, _tokens = _game(on_redis)
        reads = []
        load = on_redis.games.load
        on_redis.games.load = lambda game_id: reads.append(game_id) or load(game_id)  # type: ignore[method-assign]
        version = record.state.version
        newest = record.state.event_seq
        streams = [_stream(on_redis, record.game_id, None, after=newest,
                           known_version=version) for _ in range(20)]
        firsts = [next(s) for s in streams]  # each parked on the hub after its first view
        assert [(m.kind, orjson.loads(m.body or b"{}")["version"]) for m in firsts] == [
            ("view", version)] * 20
        assert len(reads) == 1, f"{len(reads)} Redis reads for 20 streams opening"
        for s in streams:
            s.close()  # type: ignore[attr-defined]
    finally:
        on_redis.close()
