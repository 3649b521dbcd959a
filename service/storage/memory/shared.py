"""What the in-memory stores of one bundle share, as the Redis ones share a server.

Why shared at all: the save of a move writes the game, its events, the acting seat's
reply and a finished game's record in one step, and the reply and record stores read
those back; waiters of a game and of a seek pool are woken alike, and all of them by
``wake_all``. So the games, the replies and the records live here, under one lock: what
one write changes is changed under that lock, which is what the Redis store's Lua
scripts guarantee there. Watches block on that lock's ``threading.Condition``, which
every write announces on (per *channel*: a game id or a seek pool, as the Redis hub's
channels), so a waiter wakes on its own game's writes only.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from service.engine import Event, GameState

from ..replies import StoredReply

__all__ = ["ChannelWaiter", "Shared", "StoredGame"]


@dataclass
class StoredGame:
    """A game as the memory keeps it."""

    state: GameState
    token_hashes: tuple[str | None, ...]
    events: list[Event] = field(default_factory=list)
    #: per reply slot: the key ids, latest first (then the superseded ones), and its reply
    replies: dict[str, tuple[list[str], StoredReply]] = field(default_factory=dict)
    created_at: float = field(default_factory=time.time)
    #: the last event whose effects have run (a new game owes all of its own)
    handled: int = 0


class Shared:
    """The games (with their reply slots), the records, and what watches wait on."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.games: dict[str, StoredGame] = {}
        self.records: dict[str, bytes] = {}  # kept apart from the games, as on Redis
        self._announced: Counter[str] = Counter()
        self._wakeups = 0  # wake_all() calls: every waiter wakes on these too

    def announce(self, channel: str) -> None:
        """Wake the waiters of ``channel`` (call with :attr:`lock` held, after the write)."""
        self._announced[channel] += 1
        self.lock.notify_all()

    def wake_all(self) -> None:
        """Wake every waiter (a shutdown), whatever its channel."""
        with self.lock:
            self._wakeups += 1
            self.lock.notify_all()

    def mark(self, channel: str) -> tuple[int, int]:
        """Where ``channel`` stands now (call with :attr:`lock` held)."""
        return self._announced[channel], self._wakeups

    def waiter(self, channel: str) -> ChannelWaiter:
        """A waiter on ``channel``, woken by the announcements after this call."""
        return ChannelWaiter(self, channel)


class ChannelWaiter:
    """Sleeps until its channel is announced (or everything is woken) after the last wake-up."""

    def __init__(self, shared: Shared, channel: str) -> None:
        self._shared = shared
        self._channel = channel
        with shared.lock:
            self._seen = shared.mark(channel)

    def wait(self, timeout: float) -> bool:
        """``True`` once woken, ``False`` after ``timeout`` seconds without news."""
        shared = self._shared
        deadline = time.monotonic() + timeout
        with shared.lock:
            while shared.mark(self._channel) == self._seen:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                shared.lock.wait(remaining)
            self._seen = shared.mark(self._channel)
            return True
