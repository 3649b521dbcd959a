"""On the push tier, each wait is woken by its own channel's publication, long before its
timeout (each asks the patient push process to wait twice the tests' patience, and is
read with that patience: a wait that no publication woke is not answered in time; a
stream would not carry the note): an event-log wait by a move of its game, an account's
stream by a note of its account, a seek's read by its match.

And an account's stream there holds the account's seeks as a web worker's does: a seek
it holds is matched while it is open (its process looking when the match needs it), and
ends once its client closes it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import redis
import requests

from tests.api.test_seeks_on_gunicorn import holds, parked
from tests.conftest import PATIENCE, redis_client, redis_url_for_tests, wait_until
from tests.push.test_conformance import (
    NDJSON,
    challenge,
    move,
    new_account,
    new_game,
    new_table,
    newest_event,
    seek,
)

#: What a wait asks for: longer than the patience it is read with.
LONG = 2 * PATIENCE


@pytest.fixture
def db(redis_server: str) -> Iterator[redis.Redis]:
    """The Redis database of ``both`` and ``patient_push``."""
    client = redis_client(redis_url_for_tests(redis_server, 6))
    try:
        yield client
    finally:
        client.close()


def waiting(push: str) -> int:
    count: int = requests.get(f"{push}/healthz", timeout=PATIENCE).json()["waiting"]
    return count


@pytest.fixture
def patient(patient_push: str) -> str:
    """``patient_push`` once it holds nothing (a wait of the test before has ended), so
    that a test's one wait is the one it counts."""
    wait_until(lambda: waiting(patient_push) == 0, PATIENCE, "the patient push idle")
    return patient_push


def test_an_event_wait_on_the_push_tier_is_woken_by_a_move_of_its_game(
    both: dict[str, str], patient: str,
) -> None:
    web = both["gunicorn"]
    game, other = new_game(web), new_game(web)
    gid = game["game_id"]
    newest = newest_event(web, gid)
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(requests.get, f"{patient}/v1/games/{gid}/events?"
                             f"after={newest}&timeout={LONG}", timeout=PATIENCE)
        wait_until(lambda: answer.done() or waiting(patient) == 1, PATIENCE, "the wait parked")
        move(web, other)  # another game's channel
        move(web, game)
        page = answer.result().json()
    assert page["game_id"] == gid
    assert [e["seq"] for e in page["events"]] == [newest + 1]


def test_an_account_stream_on_the_push_tier_is_woken_by_a_note_of_its_account(
    both: dict[str, str], patient: str,
) -> None:
    web = both["gunicorn"]
    _, ann = new_account(web, "ann")
    bob, bob_key = new_account(web, "bob")
    cy, _ = new_account(web, "cy")
    with requests.get(f"{patient}/v1/me/stream", headers={**NDJSON, **bob_key},
                      stream=True, timeout=PATIENCE) as stream:
        assert stream.status_code == 200
        wait_until(lambda: waiting(patient) == 1, PATIENCE, "the stream parked")
        challenge(web, ann, cy)  # another account's channel
        challenge(web, ann, bob)
        for line in stream.iter_lines():
            message: dict[str, Any] = json.loads(line) if line else {"type": "heartbeat"}
            assert message["type"] != "end", "the note never came"
            if message["type"] == "event":
                break
    assert message["event"]["seq"] == 1 and message["event"]["type"] == "challenge"


def test_a_seek_read_on_the_push_tier_is_woken_by_its_match(
    both: dict[str, str], patient: str,
) -> None:
    web = both["gunicorn"]
    table = new_table()
    mine = seek(web, table)
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(requests.get, f"{patient}/v1/seeks/{mine['seek_id']}?"
                             f"timeout={LONG}", timeout=PATIENCE,
                             headers={"Authorization": f"Bearer {mine['token']}"})
        wait_until(lambda: answer.done() or waiting(patient) == 1, PATIENCE, "the read parked")
        seek(web, new_table())  # another pool's channel
        theirs = seek(web, table)
        found = answer.result().json()
    assert found["status"] == "matched" and found["game_id"] == theirs["game_id"]
    assert found["token"] == mine["token"]


def test_an_accounts_seek_held_by_its_stream_on_the_push_tier_is_matched_and_heard_of(
    both: dict[str, str], patient: str, db: redis.Redis,
) -> None:
    web = both["gunicorn"]
    ann, key = new_account(web, "ann")
    table = new_table()
    with requests.get(f"{patient}/v1/me/stream", headers={**NDJSON, **key},
                      stream=True, timeout=PATIENCE) as stream:
        assert stream.status_code == 200
        wait_until(lambda: waiting(patient) == 1, PATIENCE, "the stream parked")
        mine = seek(web, table, key)
        wait_until(lambda: any(h.startswith(f"s.{ann}.") for h in holds(db, ann) or {}),
                   PATIENCE, "the push tier's stream holding the seek")
        theirs = seek(web, table)  # the match waits for the holding stream to look
        found = requests.get(f"{patient}/v1/seeks/{mine['seek_id']}?timeout={LONG}",
                             headers=key, timeout=PATIENCE).json()
        assert found["status"] == "matched"
        started: dict[str, Any] | None = None
        for line in stream.iter_lines():
            message: dict[str, Any] = json.loads(line) if line else {"type": "heartbeat"}
            assert message["type"] != "end", "the game's note never came"
            if message["type"] == "event" and message["event"]["type"] == "game_started":
                started = message["event"]
                break
    assert started is not None and started["game_id"] == found["game_id"]
    names = [p["name"] for p in requests.get(f"{web}/v1/games/{found['game_id']}",
                                             timeout=PATIENCE).json()["players"]]
    assert sorted(names) == sorted([ann, theirs["name"]])


def test_an_accounts_seek_ends_once_its_stream_on_the_push_tier_closes(
    both: dict[str, str], patient: str, db: redis.Redis,
) -> None:
    web = both["gunicorn"]
    ann, key = new_account(web, "ann")
    table = new_table()
    stream = parked(patient, "/v1/me/stream", key["Authorization"].split()[1],
                    NDJSON["Accept"])
    try:
        assert stream.recv(12) == b"HTTP/1.1 200"
        wait_until(lambda: waiting(patient) == 1, PATIENCE, "the stream parked")
        mine = seek(web, table, key)
        wait_until(lambda: any(h.startswith(f"s.{ann}.") for h in holds(db, ann) or {}),
                   PATIENCE, "the push tier's stream holding the seek")
    finally:
        stream.close()  # the client goes away
    wait_until(lambda: requests.get(f"{web}/v1/seeks/{mine['seek_id']}", headers=key,
                                    timeout=PATIENCE).status_code == 404, PATIENCE,
               "the seek ended")
    assert holds(db, ann) is None
    assert seek(web, table)["status"] == "waiting", "nobody left to be matched with"
