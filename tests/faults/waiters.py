"""Waiting clients for the tests against the real server: each kind of wait a frontend or
bot parks on a game, opened on its own socket and read back as "what version it saw".

Why raw ``http.client`` on threads: hundreds of waiters at once must cost the test
little (no session pools), and a waiter must be *opened* (request sent) separately from
being *read* (answer awaited), so a test can park them all, act, and then collect.
Every kind answers the same question, so each is one entry in :data:`KINDS`: the
long-polls (``wait_version``, ``wait=turn``, ``events?timeout``) and the pushed NDJSON
stream (read up to the first view newer than the version it knew).
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import requests

from tests.conftest import PATIENCE


@dataclass
class Game:
    """A 2-seat game made over HTTP; ``mover`` is the seat on turn at the start (its draw
    and discard end its turn and put the other seat, ``waiting``, on turn)."""

    base: str
    game_id: str
    tokens: list[str]
    version: int = 0
    last_seq: int = 0
    mover: int = 0

    @property
    def waiting(self) -> int:
        return 1 - self.mover

    @classmethod
    def create(cls, base: str, seed: str) -> Game:
        r = requests.post(f"{base}/v1/games", timeout=10, json={
            "players": [{"name": "ann"}, {"name": "bob"}], "seed": seed})
        assert r.status_code == 201, r.text
        game = cls(base, r.json()["game_id"], [s["token"] for s in r.json()["seats"]])
        game.refresh()
        game.mover = game.view()["round"]["current_seat"]
        return game

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def view(self, seat: int | None = None, timeout: float = 10) -> dict[str, Any]:
        headers = self.auth(seat) if seat is not None else {}
        r = requests.get(f"{self.base}/v1/games/{self.game_id}", headers=headers,
                         timeout=timeout)
        assert r.status_code == 200, r.text
        return r.json()

    def refresh(self) -> None:
        self.version = self.view()["version"]
        r = requests.get(f"{self.base}/v1/games/{self.game_id}/events", timeout=10)
        self.last_seq = r.json()["events"][-1]["seq"] if r.json()["events"] else 0

    def act(self, seat: int, pick: Callable[[list[dict[str, Any]]], dict[str, Any]]) -> int:
        """Play ``pick(legal actions)`` for ``seat``; the new version."""
        view = self.view(seat)
        r = requests.post(f"{self.base}/v1/games/{self.game_id}/actions", timeout=10,
                          json=pick(view["legal_actions"]),
                          headers={**self.auth(seat), "If-Match": f'"{view["version"]}"'})
        assert r.status_code == 200, r.text
        self.refresh()
        return self.version

    def to_a_discard(self) -> None:
        """The seat on turn draws (unless it has): its next action, a discard, ends its
        turn. ``mover`` is that seat, ``waiting`` the one its discard puts on turn."""
        self.mover = self.view()["round"]["current_seat"]
        legal = self.view(self.mover)["legal_actions"]
        if any(a["type"] == "draw" for a in legal):
            self.act(self.mover, lambda legal: next(a for a in legal if a["type"] == "draw"))

    def discard(self) -> int:
        """The mover discards (ending its turn); the new version."""
        return self.act(self.mover, lambda legal: next(a for a in legal
                                                       if a["type"] == "discard"))


@dataclass
class Waiter:
    """One parked request: its path and headers, and how to read the version it saw.

    ``seen`` gets the JSON body of a 200. A stream kind gives ``read`` instead: it
    reads from the open response only as far as the first message after the move
    (a stream never ends by itself) and returns the version that message carries."""

    kind: str
    path: str
    headers: dict[str, str]
    seen: Callable[[dict[str, Any]], int] = lambda body: -1
    read: Callable[[http.client.HTTPResponse], int] | None = None
    status: int | None = None
    version: int | None = None
    answered_at: float | None = None
    error: BaseException | None = None
    sent: threading.Event = field(default_factory=threading.Event)
    #: the client port of its connection, once sent (which worker holds it: /proc)
    port: int | None = None

    def run(self, base: str, read_timeout: float) -> None:
        """Send the request, then block until the answer (or the socket fails)."""
        url = urlsplit(base)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=read_timeout)
        try:
            conn.request("GET", self.path, headers=self.headers)
            assert conn.sock is not None
            self.port = conn.sock.getsockname()[1]
            self.sent.set()
            response = conn.getresponse()
            if response.status == 200 and self.read is not None:
                self.version = self.read(response)
                self.answered_at = time.monotonic()
                self.status = response.status
                return
            body = response.read()
            self.answered_at = time.monotonic()
            self.status = response.status
            if response.status == 200:
                self.version = self.seen(json.loads(body))
        except BaseException as exc:  # reported by the test
            self.answered_at = time.monotonic()
            self.error = exc
        finally:
            self.sent.set()
            conn.close()


def spectator(game: Game, timeout: float) -> Waiter:
    """``wait_version``: no token, answered when the game leaves the version it knows."""
    return Waiter("spectator", f"/v1/games/{game.game_id}?wait_version={game.version}"
                  f"&timeout={timeout}", {}, lambda view: view["version"])


def seat_turn(game: Game, timeout: float) -> Waiter:
    """``wait=turn`` for the seat that the mover's discard puts on turn."""
    return Waiter("seat", f"/v1/games/{game.game_id}?wait=turn&timeout={timeout}",
                  game.auth(game.waiting), lambda view: view["version"])


def events(game: Game, timeout: float) -> Waiter:
    """``events?after=<newest>&timeout``: answered with the move's events (their
    version is the game's after the move: one past the version that was waited on)."""
    after = game.last_seq
    known = game.version
    return Waiter("events", f"/v1/games/{game.game_id}/events?after={after}&timeout={timeout}",
                  {}, lambda body: known + 1 if body["events"] else known)


def stream(game: Game, timeout: float) -> Waiter:
    """A spectator's NDJSON stream from the newest event: answered (for this test) by
    the first view it pushes that is newer than the version it knew."""
    known = game.version

    def first_newer_view(response: http.client.HTTPResponse) -> int:
        while True:
            line = response.readline()
            if not line:
                raise ConnectionError("the stream ended before a newer view")
            message = json.loads(line) if line.strip() else {}
            if message.get("type") == "view" and message["view"]["version"] > known:
                return int(message["view"]["version"])
            if message.get("type") == "end":
                raise ConnectionError(f"the stream ended: {message}")

    return Waiter("stream", f"/v1/games/{game.game_id}/stream?after={game.last_seq}",
                  {"Accept": "application/x-ndjson"}, read=first_newer_view)


#: Every kind of waiter, by name.
KINDS: dict[str, Callable[[Game, float], Waiter]] = {
    "spectator": spectator, "seat": seat_turn, "events": events, "stream": stream}


def park(base: str, waiters: list[Waiter], read_timeout: float) -> list[threading.Thread]:
    """Open every waiter on its own thread; return once every request is sent."""
    threads = [threading.Thread(target=w.run, args=(base, read_timeout), daemon=True)
               for w in waiters]
    for t in threads:
        t.start()
    for w in waiters:
        assert w.sent.wait(PATIENCE), "a waiter could not send its request"
    return threads


def mixed(game: Game, n: int, timeout: float, kinds: tuple[str, ...] = tuple(KINDS)
          ) -> list[Waiter]:
    """``n`` waiters, the ``kinds`` (all of :data:`KINDS` unless told) in turn."""
    makers = [KINDS[kind] for kind in kinds]
    return [makers[i % len(makers)](game, timeout) for i in range(n)]


#: The waits that end by themselves at their timeout (a stream stays open).
LONG_POLLS = ("spectator", "seat", "events")


def timed_get(url: str, timeout: float = 5, **kw: Any) -> tuple[int, float]:
    """Status and seconds of one fresh-connection GET."""
    start = time.monotonic()
    r = requests.get(url, timeout=timeout, headers={"Connection": "close"}, **kw)
    return r.status_code, time.monotonic() - start
