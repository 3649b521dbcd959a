"""Sixteen threads acting on one game at once, through a live gunicorn with two workers.

Each thread holds one seat's token, reads its view, picks a legal action and sends
it (half the threads with If-Match, half without). Many collide. Afterwards: the
accepted actions, ordered by the version they produced, are exactly versions
1…N with none missing or doubled; replayed through the engine they reproduce the
stored state; and every refused one was a 409 or a 412.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from typing import Any

import orjson
import pytest
import requests

from service.core.rules import resolve_rules
from service.engine import apply, from_dict, new_game, to_dict
from tests.conftest import PATIENCE, redis_client, redis_url_for_tests

THREADS = 16
TARGET_VERSION = 200
# One deck and end_round: a round lasts at most ~90 moves even if nobody goes out,
# so the race crosses several round boundaries (deals, scoring) too.
RULES = {"preset": "classic", "decks": 1, "stock_exhausted": "end_round",
         "hand_sizes": [3, 4, 5, 6, 7, 8]}


@pytest.mark.slow
def test_sixteen_racing_threads_never_lose_or_double_an_action(
    live_server: str, redis_server: str
) -> None:
    db = redis_client(redis_url_for_tests(redis_server, 3))  # the live server's Redis
    race(live_server, lambda game_id: db.hget(f"ttt:{{{game_id}}}:game", "s"))


def race(live_server: str, stored_state: Callable[[str], bytes]) -> None:
    """The race against the service at ``live_server``; ``stored_state(id)`` reads the
    stored state blob (from one Redis or a cluster)."""
    r = requests.post(f"{live_server}/v1/games", json={
        "players": [{"name": "ann"}, {"name": "bob"}], "rules": RULES, "seed": "race"})
    assert r.status_code == 201
    game_id = r.json()["game_id"]
    tokens = [s["token"] for s in r.json()["seats"]]
    url = f"{live_server}/v1/games/{game_id}"
    accepted: list[tuple[int, int, dict[str, Any]]] = []
    refused: list[tuple[int, str]] = []
    lock = threading.Lock()
    deadline = time.monotonic() + PATIENCE
    start = threading.Barrier(THREADS)

    def worker(n: int) -> None:
        seat = n % 2
        rng = random.Random(n)
        session = requests.Session()
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        start.wait()
        while time.monotonic() < deadline:
            view = session.get(url, headers=auth).json()
            if view["status"] == "finished" or view["version"] >= TARGET_VERSION:
                return
            if not view["legal_actions"]:
                session.get(f"{url}?wait_version={view['version']}&timeout=0.2", headers=auth)
                continue
            go_out = [a for a in view["legal_actions"] if a["type"] == "go_out"]
            action = go_out[0] if go_out and rng.random() < 0.8 else rng.choice(
                view["legal_actions"]
            )
            headers = dict(auth)
            if n % 4 < 2:
                headers["If-Match"] = f'"{view["version"]}"'
            reply = session.post(f"{url}/actions", json=action, headers=headers)
            with lock:
                if reply.status_code == 200:
                    accepted.append((reply.json()["version"], seat, action))
                else:
                    refused.append((reply.status_code, reply.json()["code"]))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(PATIENCE)

    versions = sorted(v for v, _, _ in accepted)
    assert versions == list(range(1, len(versions) + 1)), "a version was lost or doubled"
    assert len(versions) >= 100
    assert refused, "the threads never collided"
    assert {status for status, _ in refused} <= {409, 412}
    assert {code for _, code in refused} <= {"not_your_turn", "illegal_action", "version_conflict"}

    stored = stored_state(game_id)
    state = from_dict(orjson.loads(stored))
    replay = new_game(resolve_rules(RULES), ["ann", "bob"], "race", seed_salt=state.seed_salt,
                      table_nonce=state.table_nonce)
    for _, seat, action in sorted(accepted, key=lambda a: a[0]):
        replay, _ = apply(replay, seat, action)
    assert to_dict(replay) == to_dict(state)
    assert state.round_index >= 1, "the race should span rounds"


@pytest.mark.parametrize(("leaving", "tries"), [("resign", 20), ("away", 5)])
def test_a_seat_that_left_never_moves_again_by_its_own_token_however_the_requests_race(
    live_server: str, leaving: str, tries: int,
) -> None:
    """A resigned seat's token racing its own resignation, or an away seat's token that
    did not send ``back``: in every try, no move of that seat after it left is its
    player's (``by: player``), every one is the service's, and the token's late moves
    are refused (409)."""
    codes: set[str] = set()
    for attempt in range(tries):
        body: dict[str, Any] = {"players": [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}],
                                "rules": {"hand_sizes": [3] if leaving == "resign"
                                          else [9, 10, 11, 12, 13]},
                                "seed": f"left-{attempt}"}
        if leaving == "away":
            body["turn_seconds"] = 1
        created = requests.post(f"{live_server}/v1/games", json=body, timeout=10).json()
        game_id = created["game_id"]
        seat = created["state"]["round"]["current_seat"]
        if leaving == "away":  # nobody plays: the seat whose turns time out twice is away
            deadline = time.monotonic() + PATIENCE
            while "away" not in (kinds := [p["kind"] for p in requests.get(
                    f"{live_server}/v1/games/{game_id}", timeout=10).json()["players"]]):
                assert time.monotonic() < deadline, kinds
                time.sleep(0.05)
            seat = kinds.index("away")
        auth = {"Authorization": f"Bearer {created['seats'][seat]['token']}"}
        act = f"{live_server}/v1/games/{game_id}/actions"
        start = threading.Barrier(2)
        answers: list[requests.Response] = []

        def send(action: dict[str, str], answers: list[requests.Response] = answers,
                 start: threading.Barrier = start, act: str = act,
                 auth: dict[str, str] = auth) -> None:
            start.wait()
            answers.append(requests.post(act, json=action, headers=auth, timeout=10))

        first = {"type": "resign"} if leaving == "resign" else {"type": "draw", "source": "stock"}
        threads = [threading.Thread(target=send, args=(a,)) for a in
                   (first, {"type": "draw", "source": "stock"})]
        for t in threads:
            t.start()
        for t in threads:
            t.join(PATIENCE)
        codes |= {r.json().get("code", "") for r in answers if r.status_code == 409}
        events = requests.get(f"{live_server}/v1/games/{game_id}/events?limit=1000",
                              timeout=10).json()["events"]
        gone = next(i for i, e in enumerate(events)
                    if (e["type"] == "seat_resigned" or e.get("away")) and e["seat"] == seat)
        late = [e for e in events[gone:] if e.get("seat") == seat and e.get("by") == "player"]
        assert late == [], (attempt, late)
    assert codes <= {"seat_resigned", "seat_away", "not_your_turn", "illegal_action",
                     "turn_timed_out", "version_conflict"}
    assert codes & {"seat_resigned", "seat_away"}
