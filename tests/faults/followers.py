"""Stream followers for the fault tests: clients that keep following a game's NDJSON
stream through faults, the way the docs tell a bot or a page to, and the check of what
they received against the game's full event log.

Why a follower of its own (not a :class:`.waiters.Waiter`): a waiter reads one answer,
while a follower must live through faults. When its stream ends (``end`` with a retry
hint: the store failed, the server is stopping) or its connection drops (its worker was
killed), it reconnects with ``Last-Event-ID`` set to the last event ``seq`` it received,
as ``EventSource`` does; so the events it collects over all its connections must be the
game's log exactly, each once and in order, if resuming loses and repeats nothing.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson
import redis

from service.storage.redis.games import event_of, game_keys
from tests.conftest import PATIENCE


@dataclass
class Follower:
    """One client following ``game_id`` (as ``token``'s seat, or a spectator)."""

    base: str
    game_id: str
    token: str | None = None
    #: Give up reconnecting after this many connections (a fault test's safety net).
    max_connections: int = 20
    #: Socket read timeout: longer than the service's heartbeat, so an idle stream is
    #: never mistaken for a hung one; a stream that stays silent past it has hung.
    read_timeout: float = 15.0
    events: list[dict[str, Any]] = field(default_factory=list)
    versions: list[tuple[float, int]] = field(default_factory=list)  # (when, view version)
    ends: list[tuple[float, str]] = field(default_factory=list)  # (when, reason)
    statuses: list[int] = field(default_factory=list)  # one per connection that answered
    drops: list[tuple[float, str]] = field(default_factory=list)  # cut connections
    connected: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None

    @property
    def last_seq(self) -> int:
        return self.events[-1]["seq"] if self.events else 0

    @property
    def last_version(self) -> int:
        return self.versions[-1][1] if self.versions else -1

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self._run, daemon=True)
        thread.start()
        return thread

    def _run(self) -> None:
        try:
            while not self.stop.is_set() and len(self.statuses) + len(self.drops) < \
                    self.max_connections:
                if self._connection() == "finished":
                    return
                time.sleep(0.05)  # (the service's retry hint is 1 s; sooner is fine here)
        except BaseException as exc:  # reported by the test
            self.error = exc

    def _connection(self) -> str:
        """One stream from the last event received; why it ended."""
        url = urlsplit(self.base)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=self.read_timeout)
        headers = {"Accept": "application/x-ndjson"}
        if self.events:
            headers["Last-Event-ID"] = str(self.last_seq)
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        try:
            conn.request("GET", f"/v1/games/{self.game_id}/stream", headers=headers)
            response = conn.getresponse()
            self.statuses.append(response.status)
            if response.status != 200:
                response.read()
                return "refused"  # (a 503 while Redis is away: ask again)
            self.connected.set()
            while not self.stop.is_set():
                line = response.readline()
                if not line:
                    self.drops.append((time.monotonic(), "closed without an end message"))
                    return "dropped"
                if not line.strip():
                    continue  # a heartbeat
                message = json.loads(line)
                if message["type"] == "event":
                    self.events.append(message["event"])
                elif message["type"] == "view":
                    self.versions.append((time.monotonic(), message["view"]["version"]))
                elif message["type"] == "end":
                    self.ends.append((time.monotonic(), message["reason"]))
                    return "finished" if message["reason"] == "finished" else "ended"
            return "stopped"
        except (OSError, http.client.HTTPException) as exc:  # cut, or silent too long
            self.drops.append((time.monotonic(), repr(exc)))
            return "dropped"
        finally:
            conn.close()


def follow(followers: list[Follower], timeout: float = PATIENCE) -> list[threading.Thread]:
    """Start every follower; return once each has its first stream open."""
    threads = [f.start() for f in followers]
    for f in followers:
        assert f.connected.wait(timeout), f"a follower could not open its stream: {f}"
    return threads


def until(followers: list[Follower], done: Any, timeout: float, what: str) -> None:
    """Wait until ``done(follower)`` holds for every follower."""
    deadline = time.monotonic() + timeout
    while not all(done(f) for f in followers):
        errors = [f.error for f in followers if f.error is not None]
        assert not errors, errors[:3]
        late = [f for f in followers if not done(f)]
        assert time.monotonic() < deadline, (
            f"{len(late)} of {len(followers)} followers: not {what} after {timeout} s; "
            f"e.g. last seq {late[0].last_seq}, version {late[0].last_version}, "
            f"ends {late[0].ends}, drops {late[0].drops}, statuses {late[0].statuses}")
        time.sleep(0.05)


def close_all(followers: list[Follower], threads: list[threading.Thread]) -> None:
    for f in followers:
        f.stop.set()
    for t in threads:
        t.join(PATIENCE)
    assert not any(t.is_alive() for t in threads), "a follower hung"


def logged_events(client: redis.Redis, game_id: str, seat: int | None) -> list[dict[str, Any]]:
    """The game's whole event log as ``seat`` (``None``: a spectator) may see it."""
    _key, stream = game_keys(game_id)
    # (through JSON, as the stream sends them: tuples become lists)
    return [json.loads(orjson.dumps(event_of(fields[b"e"]).for_seat(seat)))
            for _, fields in client.xrange(stream, "-", "+")]


def newest_seq(client: redis.Redis, game_id: str) -> int:
    events = logged_events(client, game_id, None)
    return events[-1]["seq"] if events else 0
