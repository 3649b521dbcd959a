"""Stream followers for the fault tests: clients that keep following a game's NDJSON
stream through faults, the way the docs tell a bot or a page to, and the check of what
they received against the game's full event log.

Why a follower of its own (not a :class:`.waiters.Waiter`): a waiter reads one answer,
while a follower must live through faults. When its stream ends (``end`` with a retry
hint: the store failed, the server is stopping) or its connection drops (its worker was
killed), it reconnects with ``Last-Event-ID`` set to the last event ``seq`` it received,
as ``EventSource`` does; so the events it collects over all its connections must be the
game's log exactly, each once and in order, if resuming loses and repeats nothing.

A follower reads NDJSON (a message is a whole line: one cut short by a dropped connection
is no message) or Server-Sent Events as ``EventSource`` reads them (a message counts once
its blank line has come; ``Last-Event-ID`` is the last ``id`` field received), and
resumes with ``Last-Event-ID`` or, as a client of the NDJSON form may, with ``?after=``.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterator
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
    #: Server-Sent Events rather than NDJSON
    sse: bool = False
    #: resume with ``?after=<last seq>`` rather than the ``Last-Event-ID`` header
    resume_by_query: bool = False
    #: where its connections go, in turn (a proxy's round robin); empty: ``base`` always
    bases: tuple[str, ...] = ()
    #: the last SSE ``id`` field received (what ``EventSource`` resumes from)
    last_id: str | None = None

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
        attempts = len(self.statuses) + len(self.drops)
        base = self.bases[attempts % len(self.bases)] if self.bases else self.base
        url = urlsplit(base)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=self.read_timeout)
        headers = {"Accept": "text/event-stream" if self.sse else "application/x-ndjson"}
        path = f"/v1/games/{self.game_id}/stream"
        if self.events and self.resume_by_query:
            path += f"?after={self.last_seq}"
        elif self.sse and self.last_id is not None:
            headers["Last-Event-ID"] = self.last_id
        elif self.events and not self.sse:
            headers["Last-Event-ID"] = str(self.last_seq)
        if self.token is not None:
            headers["Authorization"] = f"Bearer {self.token}"
        try:
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            self.statuses.append(response.status)
            if response.status != 200:
                response.read()
                return "refused"  # (a 503 while Redis is away: ask again)
            self.connected.set()
            for message in (self._sse(response) if self.sse else _ndjson(response)):
                if self.stop.is_set():
                    return "stopped"
                if message is None:
                    continue  # a heartbeat
                if message["type"] == "event":
                    self.events.append(message["event"])
                elif message["type"] == "view":
                    self.versions.append((time.monotonic(), message["view"]["version"]))
                elif message["type"] == "end":
                    self.ends.append((time.monotonic(), message["reason"]))
                    return "finished" if message["reason"] == "finished" else "ended"
            if self.stop.is_set():
                return "stopped"
            self.drops.append((time.monotonic(), "closed without an end message"))
            return "dropped"
        except (OSError, http.client.HTTPException) as exc:  # cut, or silent too long
            self.drops.append((time.monotonic(), repr(exc)))
            return "dropped"
        finally:
            conn.close()

    def _sse(self, response: http.client.HTTPResponse) -> Iterator[dict[str, Any] | None]:
        """The stream's messages as NDJSON's (``None``: a heartbeat), read as
        ``EventSource`` reads them: fields up to a blank line make one message, and an
        ``id`` field becomes the id to resume from once its message is complete."""
        kind, data, last_id = "message", [], None
        while True:
            line = response.readline()
            if not line.endswith(b"\n"):
                return  # closed: a message without its blank line is no message
            line = line.rstrip(b"\r\n")
            if line:
                name, _, value = line.decode().partition(":")
                value = value.removeprefix(" ")
                if name == "event":
                    kind = value
                elif name == "data":
                    data.append(value)
                elif name == "id":
                    last_id = value
                continue
            if last_id is not None:
                self.last_id = last_id
            if not data:
                yield None  # a comment (the heartbeat) or the preamble's retry
            else:
                body = json.loads("\n".join(data))
                yield ({"type": kind, kind: body} if kind in ("event", "view")
                       else {"type": kind, **body})
            kind, data, last_id = "message", [], None


def _ndjson(response: http.client.HTTPResponse) -> Iterator[dict[str, Any] | None]:
    """The stream's messages (``None``: a heartbeat); a last line cut short by a dropped
    connection is no message."""
    while True:
        line = response.readline()
        if not line.endswith(b"\n"):
            return
        yield json.loads(line) if line.strip() else None


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
