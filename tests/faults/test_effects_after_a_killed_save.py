"""SIGKILL a web worker right after it saved a change and before it ran the change's
effects (``tests/faults/dying_app.py``): everything the change causes still happens,
once, from the game's own event log, run by the move worker's visit planned before the
save (``service/play/effects.py``). Three changes: a discard that ends a turn (the next
seat's account hears ``your_turn``, and its webhook sends it), and a resignation that
finishes a rated tournament game (both accounts hear ``game_finished``, the webhook sends
it, the game is rated and the tournament moves on)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from service.config import Config
from service.play.commit import SAFETY_SECONDS
from service.storage import Stores, redis_stores
from tests.conftest import ROOT, wait_until
from tests.webhooks.receiver import Receiver, receiving

from .conftest import Gunicorn, RedisProcess

#: How long after the save its effects may take: the safety visit's delay, a worker's
#: wake-up and the webhook's send, with room for a busy machine.
WITHIN = SAFETY_SECONDS + 25


@pytest.fixture
def dying(aof_redis: RedisProcess, tmp_path: Path) -> Iterator[tuple[Gunicorn, Path]]:
    flag = tmp_path / "die"
    server = Gunicorn(aof_redis.url, app="tests.faults.dying_app:create_app()",
                      DIE_AFTER_SAVE=str(flag), WEBHOOK_ALLOW_PRIVATE="1",
                      CHALLENGE_LIMIT="off", REDIS_TIMEOUT_SECONDS="2")
    try:
        yield server, flag
    finally:
        server.close()


@pytest.fixture
def mover(aof_redis: RedisProcess, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = {**os.environ, "REDIS_URL": aof_redis.url, "WEBHOOK_ALLOW_PRIVATE": "1",
           "WORKER_NICE": "0", "LOG_LEVEL": "info"}
    with (tmp_path / "mover.log").open("wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", "service.workers"], cwd=ROOT,
                                env=env, stderr=log)
    yield proc
    proc.kill()
    proc.wait(10)


@pytest.fixture
def stores(aof_redis: RedisProcess) -> Iterator[Stores]:
    made = redis_stores(Config(redis_url=aof_redis.url))
    yield made
    made.close()


def call(base: str, method: str, path: str, key: str | None = None,
         **body: Any) -> Any:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    r = requests.request(method, f"{base}{path}", json=body or None, headers=headers,
                         timeout=10)
    assert r.status_code < 300, r.text
    return r.json()


def dies(base: str, path: str, key: str, body: dict[str, Any]) -> None:
    """The request whose worker dies after its save: no answer comes."""
    with pytest.raises(requests.ConnectionError):
        requests.post(f"{base}{path}", json=body, timeout=10,
                      headers={"Authorization": f"Bearer {key}"})


def notes(stores: Stores, handle: str, kind: str, game_id: str) -> list[dict[str, Any]]:
    return [n.body for n in stores.accounts.notes(handle, 0, 1000)
            if n.body["type"] == kind and n.body.get("game_id") == game_id]


def games_rated(stores: Stores, handle: str) -> int:
    """The account's rated classic games so far."""
    stored = stores.ratings.ratings(handle).get("classic")
    return 0 if stored is None else stored.games


def hooks(receiver: Receiver, kind: str, game_id: str, version: int | None = None
          ) -> list[str]:
    """The webhook ids of the deliveries of ``kind`` about ``game_id`` (at ``version``)."""
    out = []
    for got in list(receiver.received):
        body = json.loads(got.body)
        data = body["data"]
        if body["type"] == kind and data.get("game_id") == game_id and (
                version is None or data.get("version") == version):
            out.append(got.headers["webhook-id"])
    return out


def test_a_killed_saves_effects_arrive_once_from_the_games_log(
        dying: tuple[Gunicorn, Path], mover: subprocess.Popen[bytes],
        stores: Stores) -> None:
    server, flag = dying
    base = server.base
    ann = call(base, "POST", "/v1/accounts", handle="ann")["key"]
    bob = call(base, "POST", "/v1/accounts", handle="bob")["key"]
    with receiving() as receiver:
        call(base, "PATCH", "/v1/me", ann, webhook_url=receiver.url("/hook"))

        # 1. a discard that ends bob's turn: ann is on turn next
        made = call(base, "POST", "/v1/challenges", ann, to=["bob"], turn_seconds=600,
                    rules={"preset": "classic", "hand_sizes": [3]})
        game = call(base, "POST", f"/v1/challenges/{made['challenge_id']}/accept",
                    bob)["game_id"]
        keys = {0: ann, 1: bob}
        while True:
            view = call(base, "GET", f"/v1/games/{game}", keys[1])
            seat, phase = view["round"]["current_seat"], view["round"]["phase"]
            if seat == 1 and phase == "discard":
                break
            mine = call(base, "GET", f"/v1/games/{game}", keys[seat])
            action = next(a for a in mine["legal_actions"] if a["type"] in ("draw", "discard"))
            call(base, "POST", f"/v1/games/{game}/actions", keys[seat], **action)
        before = len(notes(stores, "ann", "your_turn", game))
        flag.touch()
        discard = next(a for a in view["legal_actions"] if a["type"] == "discard")
        dies(base, f"/v1/games/{game}/actions", bob, discard)
        saved = stores.games.load(game).state
        assert saved.current_seat == 0 and saved.version == view["version"] + 1
        wait_until(lambda: len(notes(stores, "ann", "your_turn", game)) == before + 1,
                   WITHIN, "ann's your_turn")
        turn = notes(stores, "ann", "your_turn", game)[-1]
        assert turn["version"] == saved.version
        wait_until(lambda: hooks(receiver, "your_turn", game, saved.version), WITHIN,
                   "ann's your_turn webhook")

        # 2. a resignation that finishes a rated tournament game
        t = call(base, "POST", "/v1/tournaments", ann, name="Kill cup", system="swiss",
                 seats=2, rounds=1, rules={"preset": "classic"}, turn_seconds=600,
                 rated=True, entrants=["ann", "bob"])
        tid = t["tournament_id"]
        call(base, "POST", f"/v1/tournaments/{tid}/join", bob)
        call(base, "POST", f"/v1/tournaments/{tid}/start", ann)
        wait_until(lambda: call(base, "GET", f"/v1/tournaments/{tid}")["played"], WITHIN,
                   "the round paired")
        rated = call(base, "GET", f"/v1/tournaments/{tid}")["played"][0]["tables"][0]["game_id"]
        wait_until(lambda: requests.get(f"{base}/v1/games/{rated}", timeout=5).ok, WITHIN,
                   "the round's game")
        flag.touch()
        dies(base, f"/v1/games/{rated}/actions", bob, {"type": "resign"})
        assert stores.games.load(rated).state.finished
        wait_until(lambda: call(base, "GET", f"/v1/tournaments/{tid}")["status"] == "finished",
                   WITHIN, "the tournament moved on to its end")
        wait_until(lambda: all(games_rated(stores, h) == 1 for h in ("ann", "bob")),
                   WITHIN, "the game rated")
        for handle in ("ann", "bob"):
            assert len(notes(stores, handle, "game_finished", rated)) == 1
        wait_until(lambda: len(hooks(receiver, "game_finished", rated)) == 1, WITHIN,
                   "ann's game_finished webhook")

        # once each, whatever ran them: nothing more comes in a further safety delay
        time.sleep(SAFETY_SECONDS + 1)
        assert len(notes(stores, "ann", "your_turn", game)) == before + 1
        assert len(hooks(receiver, "your_turn", game, saved.version)) == 1
        assert len(hooks(receiver, "game_finished", rated)) == 1
        assert games_rated(stores, "ann") == 1
