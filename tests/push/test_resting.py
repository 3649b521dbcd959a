"""A resting stream's wake-ups (``service/push/streams.py``'s :class:`Resting`, and the
alarms it waits on: ``service/push/alarms.py``) and a feed's shared reads, in a bare
event loop: no server."""

from __future__ import annotations

import asyncio
from typing import Any

from service.push.alarms import Alarms
from service.push.feed import Feed
from service.push.http import Writer
from service.push.streams import Resting, frames_of
from service.wire.framing import NDJSON

BOUND = 30.0  # generous: these wait for events, not for a time


class Transport:
    """What a :class:`Writer` writes to: the bytes, kept."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.sent.append(data)


def resting(writer: Writer) -> Resting:
    return Resting(frames_of(NDJSON, True), None, 0, None, writer)


def test_a_paused_stream_resting_for_its_drain_is_left_resting_by_a_new_version() -> None:
    async def run() -> None:
        writer = Writer(Transport())  # type: ignore[arg-type]
        writer.pause()
        rest = resting(writer)
        waiting = asyncio.ensure_future(rest.wait(Alarms(), 3600, writer.writable()))
        await asyncio.sleep(0)  # (it registers for the drain)
        feed: Any = None  # a paused writer's stream asks the feed for nothing
        assert rest.follow(feed) is True  # stays with the feed, its task not woken
        await asyncio.sleep(0)
        assert not waiting.done()
        writer.resume()  # the drain wakes it
        assert await asyncio.wait_for(waiting, BOUND) is True

    asyncio.run(run())


def test_a_stream_paused_after_it_began_resting_is_woken_to_wait_for_its_drain() -> None:
    async def run() -> None:
        writer = Writer(Transport())  # type: ignore[arg-type]
        rest = resting(writer)
        waiting = asyncio.ensure_future(rest.wait(Alarms(), 3600, None))
        await asyncio.sleep(0)
        writer.pause()  # (the feed's last write filled it)
        feed: Any = None
        assert rest.follow(feed) is False  # the feed wakes it, then
        rest.wake()
        assert await asyncio.wait_for(waiting, BOUND) is True

    asyncio.run(run())


def test_alarms_ring_each_one_set_once_and_not_one_cancelled() -> None:
    class Ringing:
        def __init__(self, rang: asyncio.Event) -> None:
            self.rang, self.times = rang, 0

        def ring(self) -> None:
            self.times += 1
            self.rang.set()

    async def run() -> None:
        alarms = Alarms()
        rang = asyncio.Event()
        soon = [Ringing(rang) for _ in range(3)]
        cancelled = Ringing(asyncio.Event())
        for alarm in soon:
            alarms.set(0.01, alarm)
        alarms.cancel(alarms.set(0.01, cancelled), cancelled)
        later = Ringing(asyncio.Event())
        alarms.set(3600, later)
        await asyncio.wait_for(rang.wait(), BOUND)
        assert [alarm.times for alarm in soon] == [1, 1, 1]  # one tick's timer rang all
        assert cancelled.times == 0 and later.times == 0
        assert alarms.pending() == 1

    asyncio.run(run())


def test_a_feeds_shared_read_that_failed_is_read_afresh_by_the_next_asker() -> None:
    """A store's hiccup must not be every later asker's answer until the channel's next
    publication (an account's notes may be quiet for hours)."""
    async def run() -> None:
        feed = Feed(None, "acct:ann")  # type: ignore[arg-type]  # (no publication here)
        outcomes = iter([TimeoutError("the store is slow"), ["note 1"]])

        def read() -> Any:
            outcome = next(outcomes)
            if isinstance(outcome, Exception):
                raise outcome
            return outcome

        try:
            await feed.shared_read(("notes", 0), read)
            raise AssertionError("the failure was not raised")
        except TimeoutError:
            pass
        assert await asyncio.wait_for(feed.shared_read(("notes", 0), read), BOUND) == ["note 1"]

    asyncio.run(run())
