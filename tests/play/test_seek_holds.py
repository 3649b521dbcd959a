"""Seeks held by connections (``service/play/seek_holds.py``) on the in-memory stores: a
seek ends when the connection holding it closes, a seek whose connection closed is never
matched with a seeker who came after, a group waits until every holder has looked at its
connection since its newest seeker arrived, a lapsed hold ends its seek, and an account's
stream holds the account's seeks."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from service.play import (
    create_account,
    note_messages,
    open_seek,
    seek_status,
    stream_holds,
    wait_for_match,
)
from service.play.credentials import account_credential, hash_token
from service.play.errors import UnknownSeekError
from service.play.seek_holds import LOOK_SECONDS, look_and_hold, new_holder
from service.play.seeks import _follow_up, _parse
from service.storage import Account, Hold, Stores
from tests.conftest import PATIENCE

TTL = 60.0


class Line:
    """A client's connection, which the test closes."""

    def __init__(self) -> None:
        self.is_closed = False

    def closed(self) -> bool:
        return self.is_closed


def account(stores: Stores, handle: str) -> Account:
    return create_account(stores, handle, False)[0]


def status(stores: Stores, seek: Any) -> str:
    try:
        return seek_status(stores, seek.seek_id, hash_token(seek.token)).status
    except UnknownSeekError:
        return "gone"


def held_wait(stores: Stores, seek: Any, line: Line, holder: str | None = None,
              timeout: float = 10) -> tuple[threading.Thread, list[Any]]:
    """A long-poll on ``seek`` over ``line``, on a thread: what it answered (or raised)."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(wait_for_match(stores, seek.seek_id, hash_token(seek.token), timeout,
                                      seek.token, line, holder))
        except UnknownSeekError as gone:
            out.append(gone)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


def until(check: Any, seconds: float = PATIENCE) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "it never happened"
        time.sleep(0.01)


def holders(stores: Stores, seek: Any) -> dict[str, list[int]]:
    record = stores.seeks.get(*_parse(seek.seek_id)).record
    assert record is not None
    return {holder: list(hold) for holder, hold in record.holds.items()}


def test_a_long_poll_whose_connection_closes_ends_its_seek(stores: Stores) -> None:
    line = Line()
    holder = new_holder()
    ann = open_seek(stores, "classic", 2, "ann", TTL, holder=holder)
    thread, out = held_wait(stores, ann, line, holder)
    until(lambda: holder in holders(stores, ann))
    line.is_closed = True
    thread.join(LOOK_SECONDS + 5)  # it looks at least once a LOOK_SECONDS
    assert isinstance(out[0], UnknownSeekError) and status(stores, ann) == "gone"
    assert open_seek(stores, "classic", 2, "bob", TTL).status == "waiting"  # not with ann


def test_a_seek_whose_connection_closed_is_never_matched_with_seekers_racing_in_after(
    stores: Stores,
) -> None:
    """Ann's connection closes before her long-poll has looked at it; nine seekers then race
    in, each holding its own seek with a wait: they pair among themselves, never with ann,
    however the wake-ups and the arrivals interleave."""
    line = Line()
    holder = new_holder()
    ann = open_seek(stores, "classic", 2, "ann", TTL, holder=holder)
    thread, out = held_wait(stores, ann, line, holder)
    until(lambda: holder in holders(stores, ann))
    line.is_closed = True  # closed: the seekers below all arrive after it
    start = threading.Barrier(9)
    seekers: list[Any] = []

    def seeker(n: int) -> None:
        start.wait()
        mine = new_holder()
        seek = open_seek(stores, "classic", 2, f"s{n}", TTL, holder=mine)
        seekers.append(seek)
        wait_for_match(stores, seek.seek_id, hash_token(seek.token), 3, seek.token, Line(),
                       mine)

    threads = [threading.Thread(target=seeker, args=(n,)) for n in range(9)]
    for t in threads:
        t.start()
    for t in [*threads, thread]:
        t.join(PATIENCE)
    assert isinstance(out[0], UnknownSeekError) and status(stores, ann) == "gone"
    games = [seek_status(stores, s.seek_id, hash_token(s.token)).game_id for s in seekers]
    matched = [g for g in games if g is not None]
    assert len(matched) == 8 and all(n == 2 for n in
                                     (matched.count(g) for g in set(matched)))
    for game_id in set(matched):
        assert "ann" not in stores.games.load(game_id).state.names


def test_a_group_waits_until_each_holder_has_looked_since_its_newest_seeker_arrived(
    stores: Stores,
) -> None:
    holder = new_holder()
    ann = open_seek(stores, "classic", 2, "ann", TTL, holder=holder)  # held, nobody looks
    bob = open_seek(stores, "classic", 2, "bob", TTL)
    assert (bob.status, status(stores, ann)) == ("waiting", "waiting")
    pool, key = _parse(ann.seek_id)
    entry = stores.seeks.get(pool, key)
    settled: list[Any] = []
    look_and_hold(stores, pool, key, entry, holder, Line(), time.monotonic(),
                  lambda p, g, m: settled.append((p, g, m)))
    assert settled and settled[0][2].matched, "the look completed the group"
    # the game itself is made by whoever settles the match (here: the test, as a
    # stream's hold does), not by a read: matched once it exists
    assert seek_status(stores, bob.seek_id, hash_token(bob.token)).status == "waiting"
    _follow_up(stores, *settled[0])
    assert seek_status(stores, bob.seek_id, hash_token(bob.token)).status == "matched"


def test_a_hold_that_lapses_ends_its_seek(stores: Stores) -> None:
    """A hold's worker died: nobody renews it, and the seek is not matched but dropped."""
    ann = open_seek(stores, "classic", 2, "ann", TTL)
    pool, key = _parse(ann.seek_id)
    assert stores.seeks.hold(pool, key, Hold("p.dead", time.time() + 0.05, 0), "g1",
                             time.time()) is not None
    time.sleep(0.1)
    assert open_seek(stores, "classic", 2, "bob", TTL).status == "waiting"
    assert status(stores, ann) == "gone"


def test_a_long_poll_that_ends_normally_releases_its_hold_and_the_seek_waits_on(
    stores: Stores,
) -> None:
    holder = new_holder()
    ann = open_seek(stores, "classic", 2, "ann", TTL, holder=holder)
    answered = wait_for_match(stores, ann.seek_id, hash_token(ann.token), 0.05, ann.token,
                              Line(), holder)
    assert answered.status == "waiting" and holders(stores, ann) == {}
    bob = open_seek(stores, "classic", 2, "bob", TTL)
    assert bob.status == "matched", "held by nothing, it is matched as it is"


def _stream(stores: Stores, ann: Account, line: Line, seconds: float) -> tuple[
        threading.Thread, list[Any]]:
    """Ann's stream over ``line``, read on a thread until it ends."""
    messages: list[Any] = []

    def run() -> None:
        stream: Iterator[Any] = note_messages(
            stores, ann, 0, max_seconds=seconds, heartbeat_seconds=60,
            stopping=lambda: False, holds=stream_holds(stores, ann, line))
        messages.extend(stream)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, messages


def test_an_account_stream_holds_its_seeks_and_a_match_waits_for_it_to_look(
    stores: Stores,
) -> None:
    ann = account(stores, "ann")
    thread, messages = _stream(stores, ann, Line(), 5)
    seek = open_seek(stores, "classic", 2, "", TTL, ann)
    until(lambda: any(h.startswith("s.ann.") for h in holders(stores, seek)))
    bob = open_seek(stores, "classic", 2, "bob", TTL)
    assert bob.status == "waiting", "ann's stream must look first"
    until(lambda: seek_status(stores, bob.seek_id, hash_token(bob.token)).status == "matched")
    mine = seek_status(stores, seek.seek_id, account_credential("ann"))
    assert mine.status == "matched"
    thread.join(PATIENCE)
    assert any(m.data and m.data.get("type") == "game_started" for m in messages)


def test_an_account_seek_ends_when_its_stream_closes_and_waits_on_when_it_ends(
    stores: Stores,
) -> None:
    ann = account(stores, "ann")
    line = Line()
    thread, _ = _stream(stores, ann, line, 30)
    seek = open_seek(stores, "classic", 3, "", TTL, ann)
    until(lambda: any(h.startswith("s.ann.") for h in holders(stores, seek)))
    line.is_closed = True
    thread.join(LOOK_SECONDS + 5)
    with pytest.raises(UnknownSeekError):
        seek_status(stores, seek.seek_id, account_credential("ann"))
    assert stores.seeks.indexed("ann", time.time()) == []
    later = open_seek(stores, "classic", 3, "", TTL, ann)
    thread, _ = _stream(stores, ann, Line(), 0.5)  # ends by its max duration
    until(lambda: any(h.startswith("s.ann.") for h in holders(stores, later)))
    thread.join(PATIENCE)
    assert holders(stores, later) == {}
    assert seek_status(stores, later.seek_id, account_credential("ann")).status == "waiting"
