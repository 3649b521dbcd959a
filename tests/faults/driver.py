"""Players that keep playing through faults, and the checks of what they leave behind.

Each :class:`Player` drives one game over HTTP from one thread, the way a careful
client does: every action carries ``If-Match`` and an ``Idempotency-Key``, and a
``503`` or a dropped connection is retried with the *same* key until the service
answers, so the player's list of actions is exactly what the game applied (the key
returns the first reply when the lost attempt had in fact been applied). Every
response is recorded with its start and end time for the checks.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

import orjson
import redis
import requests

from service.core.rules import Rules
from service.engine import apply, from_dict, new_game, opening_events
from service.storage.redis.games import event_of, game_keys
from tests.engine.game_helpers import check_invariants

PROBLEM = "application/problem+json"


@dataclass
class Reply:
    start: float
    end: float
    method: str
    status: int  # 0: no HTTP answer (connection dropped)
    content_type: str = ""
    retry_after: str | None = None
    code: str | None = None


@dataclass
class Player:
    base: str
    seed: str
    stop: threading.Event
    max_actions: int = 400
    #: Seconds between its actions (0: as fast as the service answers): a test whose
    #: clients read every move paces its players so that the clients, not the players,
    #: are what the machine's cores are busy with.
    pace: float = 0.0
    actions: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    game_id: str = ""
    tokens: list[str] = field(default_factory=list)
    error: BaseException | None = None

    def __post_init__(self) -> None:
        self.http = requests.Session()
        self.rng = random.Random(self.seed)

    def _call(self, method: str, path: str, **kw: Any) -> requests.Response | None:
        start = time.monotonic()
        try:
            r = self.http.request(method, self.base + path, timeout=10, **kw)
        except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
            # the worker died before or while answering: the reply (if any) is lost
            self.replies.append(Reply(start, time.monotonic(), method, 0))
            self.http = requests.Session()
            return None
        reply = Reply(start, time.monotonic(), method, r.status_code,
                      r.headers.get("Content-Type", ""), r.headers.get("Retry-After"))
        if r.headers.get("Content-Type", "").startswith(PROBLEM):
            reply.code = r.json().get("code")
        self.replies.append(reply)
        return r

    def _until_answered(self, method: str, path: str, **kw: Any) -> requests.Response:
        """Retry 503s and dropped connections (same request, same key) until an answer."""
        while True:
            r = self._call(method, path, **kw)
            if r is not None and r.status_code != 503:
                return r
            time.sleep(0.02)

    def _auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def run(self) -> None:
        try:
            self._run()
        except BaseException as exc:  # reported by the test
            self.error = exc

    def _run(self) -> None:
        body = {"players": [{"name": "ann"}, {"name": "bob"}], "seed": self.seed}
        r = self._until_answered("POST", "/v1/games", json=body)
        assert r.status_code == 201, r.text
        self.game_id = r.json()["game_id"]
        self.tokens = [s["token"] for s in r.json()["seats"]]
        game = f"/v1/games/{self.game_id}"
        view = r.json()["state"]
        while not self.stop.is_set() and len(self.actions) < self.max_actions:
            seat = view["round"]["current_seat"]
            if view["status"] == "finished":
                return
            if (view.get("you") or {}).get("seat") != seat:
                r = self._until_answered("GET", game, headers=self._auth(seat))
                assert r.status_code == 200, r.text
                view = r.json()
                continue
            action = self.rng.choice(view["legal_actions"])
            headers = {**self._auth(seat), "If-Match": f'"{view["version"]}"',
                       "Idempotency-Key": uuid.uuid4().hex}
            r = self._until_answered("POST", f"{game}/actions", json=action, headers=headers)
            assert r.status_code == 200, (r.status_code, r.text)
            self.actions.append((seat, action))
            view = r.json()
            if self.pace:
                self.stop.wait(self.pace)


def play_all(players: list[Player]) -> list[threading.Thread]:
    threads = [threading.Thread(target=p.run, daemon=True) for p in players]
    for t in threads:
        t.start()
    return threads


def join_all(threads: list[threading.Thread], players: list[Player], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    assert not any(t.is_alive() for t in threads), "a player hung"
    for p in players:
        if p.error is not None:
            raise p.error


def check_stored_game(client: redis.Redis, player: Player) -> None:
    """The stored game is exactly the replay of the actions its player saw applied:
    version field, state, event log and invariants agree (no game between versions)."""
    key, stream = game_keys(player.game_id)
    version, blob = client.hmget(key, "v", "s")
    stored = from_dict(orjson.loads(blob))
    check_invariants(stored)
    assert int(version) == stored.version == len(player.actions), player.game_id
    rules: Rules = stored.rules
    state = new_game(rules, list(stored.names), seed=stored.seed, seed_salt=stored.seed_salt,
                     table_nonce=stored.table_nonce)
    events = list(opening_events(state))
    for seat, action in player.actions:
        state, new = apply(state, seat, action)
        events += new
    assert state == stored, f"game {player.game_id}: replay differs from the stored state"
    logged = [event_of(fields[b"e"]) for _, fields in client.xrange(stream, "-", "+")]
    assert logged == events, f"game {player.game_id}: the event log differs from the replay"
