"""Reads only read: a page of the lobby (stale entries and all) and a finished game's
record (kept, or not kept) make no write to any store. Every method of every storage
interface is named here as a read or a write, so a new write cannot slip past the count."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from service import play
from service.play.credentials import hash_token
from service.play.errors import GameNotFinishedError
from service.play.moves import due
from service.storage import (
    AccountStore,
    GameStore,
    LobbyStore,
    RecordStore,
    ReplyStore,
    Schedule,
    SeekBoard,
    Stores,
    TicketStore,
    UnknownGameError,
    memory_stores,
)

from .conftest import drain

SHORT = {"preset": "classic", "hand_sizes": [3]}

#: Per store of the bundle: its interface, and the methods that write.
WRITES: dict[str, tuple[type, set[str]]] = {
    "games": (GameStore, {"create", "save", "mark_handled"}),
    "replies": (ReplyStore, set()),
    "records": (RecordStore, set()),
    "lobby": (LobbyStore, {"list_game", "relist_game"}),
    "schedule": (Schedule, {"plan", "take", "release"}),
    "tickets": (TicketStore, {"put_ticket", "take_ticket"}),
    "seeks": (SeekBoard, {"add", "cancel", "hold", "release", "index", "unindex"}),
    "accounts": (AccountStore, {"create", "update", "add_game", "finish_game", "append",
                                "wake"}),
}
READS = {"load", "load_many", "events", "watch", "wake_all", "ping", "stored_reply",
         "load_record", "load_records", "listed", "visits_due", "wait", "get",
         "match_record", "indexed", "games", "finished_time", "finished_page", "notes",
         "newest"}


def _counted(write: Callable[..., Any], name: str, writes: list[str]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        writes.append(name)
        return write(*args, **kwargs)
    return counted


def counting_writes(stores: Stores) -> list[str]:
    """Make every write method of ``stores`` append its name to the list returned."""
    writes: list[str] = []
    for concept, (_, names) in WRITES.items():
        store = getattr(stores, concept)
        for name in names:
            setattr(store, name, _counted(getattr(store, name), f"{concept}.{name}", writes))
    return writes


def test_every_method_of_every_storage_interface_is_counted_as_a_read_or_a_write() -> None:
    for interface, names in WRITES.values():
        assert interface.__abstractmethods__ <= READS | names, interface
        assert names <= interface.__abstractmethods__, interface


def _finished(stores: Stores, seed: str) -> str:
    record, _ = play.create_game(stores, SHORT, [None, None], seed, bots=["greedy", "random"])
    drain(stores)
    assert stores.games.load(record.game_id).state.finished
    return record.game_id


@pytest.fixture
def lobby_with_stale_entries() -> Stores:
    """Memory stores whose listings hold a live entry of each and a stale one of each kind:
    a full game on ``open``, a finished one and a gone one on ``in_progress``."""
    stores = memory_stores()
    play.create_game(stores, SHORT, ["ann", None], None)
    full, _ = play.create_game(stores, SHORT, ["ann", None], None)
    play.claim_seat(stores, full.game_id, 1, "bob")
    stores.lobby.relist_game(full.game_id, "in_progress", "open")  # the claim's move failed
    stores.lobby.list_game(_finished(stores, "over"), "in_progress", time.time())
    stores.lobby.list_game("gone", "in_progress", time.time() - 7200)
    play.create_game(stores, SHORT, ["ann", "bob"], None)
    return stores


def test_a_page_of_the_lobby_skips_stale_entries_and_writes_nothing(
        lobby_with_stale_entries: Stores) -> None:
    stores = lobby_with_stale_entries
    writes = counting_writes(stores)
    for status in ("open", "in_progress"):
        page = play.lobby_page(stores, status, limit=1)
        while page.next_cursor is not None:
            page = play.lobby_page(stores, status, cursor=page.next_cursor, limit=1)
        assert len(play.lobby_page(stores, status).games) == 1
    assert writes == []
    assert play.prune_listing(stores, "open", None, 10)[0] == 1  # a move worker's job
    assert play.prune_listing(stores, "in_progress", None, 10)[0] == 2
    assert writes == ["lobby.relist_game"] * 3


def test_reading_a_record_or_a_past_view_writes_nothing_kept_or_not(stores: Stores) -> None:
    kept = _finished(stores, "kept")
    lost = _finished(stores, "lost")
    stores.games.shared.records.pop(lost)  # type: ignore[attr-defined]  # as if it expired
    playing, _ = play.create_game(stores, SHORT, ["ann", "bob"], None)
    writes = counting_writes(stores)
    record = play.game_record(stores, kept).body
    assert play.view_at(stores, kept, None, record["versions"])[1] is None
    with pytest.raises(UnknownGameError):
        play.game_record(stores, lost)
    with pytest.raises(GameNotFinishedError):
        play.game_record(stores, playing.game_id)
    assert writes == []


def test_views_long_polls_events_and_streams_of_games_owing_moves_write_nothing(
        stores: Stores) -> None:
    """With a bot on turn and a turn clock run out, every read of those games (a view, a
    long-poll to its end, the events, a stream) saves nothing: the moves are the move
    workers' to make."""
    bots, _ = play.create_game(stores, SHORT, [None, None], "bots", bots=["greedy", "random"])
    clocked, tokens = play.create_game(stores, SHORT, ["ann", "bob"], "clock", turn_seconds=1,
                                       now=time.time() - 10)
    seat = clocked.state.current_seat
    writes = counting_writes(stores)
    for game_id, token in ((bots.game_id, None), (clocked.game_id, tokens[seat])):
        stores.games.load(game_id)
        play.view_when(stores, game_id, (None if token is None else hash_token(token)), play.on_turn, 0.3)
        play.view_when(stores, game_id, None, play.changed_from(0), 0.3, seen_version=0)
        play.events_when(stores.games, game_id, 1_000, 10, 0.3)
        for _ in play.stream_messages(stores, game_id, None, 0, max_seconds=0.3,
                                      heartbeat_seconds=0.1, stopping=lambda: False):
            pass
    assert writes == []
    assert due(stores.games.load(bots.game_id), time.time())
    assert due(stores.games.load(clocked.game_id), time.time())
