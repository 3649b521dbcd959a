"""Seeks on the real server (gunicorn's gevent workers, two of them, on a real Redis): a
seek held by a long-poll or by its account's stream is gone once that connection closes,
before any seeker racing in after the close can be matched with it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis
import requests

from tests.conftest import PATIENCE, ROOT, free_port, redis_client, redis_url_for_tests, wait_until

RACERS = 10  # seekers racing in after each close: five games of two, every one matched
ROUNDS = 3


@pytest.fixture(scope="module")
def server(redis_server: str) -> Iterator[tuple[str, redis.Redis]]:
    """A gunicorn of two gevent workers whose long-polls may last 120 s (the session's
    live server cuts them at 1 s), and its Redis: a seeker waits for its match far longer
    than a match takes, even on a busy machine."""
    port = free_port()
    url = redis_url_for_tests(redis_server, 8)
    db = redis_client(url)
    db.flushdb()
    env = {**os.environ, "REDIS_URL": url, "PORT": str(port), "WEB_CONCURRENCY": "2",
           "LONG_POLL_MAX_SECONDS": "120", "RATE_LIMIT": "off", "RATE_LIMIT_PER_ADDRESS": "off",
           "CREATION_LIMIT_PER_ADDRESS": "off", "ACCOUNT_LIMIT_PER_ADDRESS": "off",
           "MAX_WAITS_PER_ADDRESS": "off", "MAX_WAITS_PER_TOKEN": "off", "ACCESS_LOG": "",
           "LOG_LEVEL": "warning"}
    proc = subprocess.Popen(
        [str(Path(sys.prefix) / "bin" / "gunicorn"), "-c", "deploy/gunicorn.conf.py",
         "service.app:create_app()"], cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: requests.get(f"{base}/healthz", timeout=1).ok, PATIENCE, "gunicorn")
        yield base, db
    finally:
        proc.terminate()
        proc.wait(PATIENCE)
        db.close()


def parked(base: str, path: str, auth: str | None, accept: str = "application/json",
           body: bytes | None = None) -> socket.socket:
    """A raw connection whose request (a long-poll, a stream; a POST with ``body``) the
    server is now holding open: the test closes it when it likes, as a client that goes
    away does."""
    host, port = base.removeprefix("http://").split(":")
    conn = socket.create_connection((host, int(port)), timeout=10)
    method = "GET" if body is None else "POST"
    head = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nAccept: {accept}\r\n"
    if auth:
        head += f"Authorization: Bearer {auth}\r\n"
    if body is not None:
        head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
    conn.sendall(head.encode() + b"\r\n" + (body or b""))
    return conn


def holds(db: redis.Redis, name: str) -> dict[str, Any] | None:
    """The holds of the waiting seek named ``name`` as Redis keeps them (``None``: no such
    seek waits)."""
    for key in db.keys("ttt:{seek.*}:seeks"):
        for field, blob in db.hgetall(key).items():
            if field.startswith((b"m:", b"rules", b"arrivals")):
                continue
            seek = orjson.loads(blob)
            if seek["name"] == name and "game" not in seek:
                return dict(seek.get("h") or {})
    return None


def race(base: str, tag: str) -> list[dict[str, Any]]:
    """``RACERS`` seekers arriving at once, each waiting for its match; their answers."""
    start = threading.Barrier(RACERS)
    answers: list[dict[str, Any]] = []

    def seeker(n: int) -> None:
        start.wait()
        r = requests.post(f"{base}/v1/seeks?timeout=120", json={
            "players": 2, "name": f"{tag}-{n}"}, timeout=PATIENCE)
        assert r.status_code == 201, r.text
        answers.append(r.json())

    threads = [threading.Thread(target=seeker, args=(n,)) for n in range(RACERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(PATIENCE)
    return answers


def assert_never_matched(base: str, answers: list[dict[str, Any]], gone: str) -> None:
    """Every racer was matched, two to a game, and no game seats ``gone``."""
    assert len(answers) == RACERS and {a["status"] for a in answers} == {"matched"}
    games = [a["game_id"] for a in answers]
    assert sorted(games.count(g) for g in set(games)) == [2] * (RACERS // 2)
    for game_id in set(games):
        names = [p["name"] for p in requests.get(f"{base}/v1/games/{game_id}",
                                                 timeout=5).json()["players"]]
        assert gone not in names, f"{gone} left, and was matched all the same"


def test_a_seek_whose_long_poll_closes_is_gone_before_any_racing_seeker_can_match_it(
    server: tuple[str, redis.Redis],
) -> None:
    base, db = server
    for round_ in range(ROUNDS):
        name = f"ann-{round_}"
        conn = parked(base, "/v1/seeks?timeout=30", None,
                      body=orjson.dumps({"players": 2, "name": name}))
        wait_until(lambda: any(h.startswith("p.") for h in holds(db, name) or {}), PATIENCE,  # noqa: B023
                   "the long-poll holding the seek")
        conn.close()  # the client goes away; the seekers below all come after it
        assert_never_matched(base, race(base, f"r{round_}"), name)
        assert holds(db, name) is None  # ended, never matched


def test_an_account_seek_whose_stream_closes_is_gone_before_any_racing_seeker_can_match_it(
    server: tuple[str, redis.Redis],
) -> None:
    base, db = server
    r = requests.post(f"{base}/v1/accounts", json={"handle": "ann", "bot": False}, timeout=5)
    assert r.status_code == 201
    key = r.json()["key"]
    auth = {"Authorization": f"Bearer {key}"}
    for round_ in range(ROUNDS):
        stream = parked(base, "/v1/me/stream", key, "application/x-ndjson")
        r = requests.post(f"{base}/v1/seeks", json={"players": 2}, headers=auth, timeout=5)
        assert r.status_code == 201 and r.json()["status"] == "waiting", r.text
        seek_id = r.json()["seek_id"]
        wait_until(lambda: any(h.startswith("s.ann.") for h in holds(db, "ann") or {}), PATIENCE,
                   "the stream holding the seek")
        stream.close()
        assert_never_matched(base, race(base, f"s{round_}"), "ann")
        r = requests.get(f"{base}/v1/seeks/{seek_id}", headers=auth, timeout=5)
        assert r.status_code == 404 and r.json()["code"] == "unknown_seek"
    assert requests.get(f"{base}/v1/me/games", headers=auth, timeout=5).json()["games"] == []


def test_a_seek_held_by_a_stream_that_stays_open_is_matched(
    server: tuple[str, redis.Redis],
) -> None:
    base, db = server
    r = requests.post(f"{base}/v1/accounts", json={"handle": "bea", "bot": False}, timeout=5)
    key = r.json()["key"]
    stream = parked(base, "/v1/me/stream", key, "application/x-ndjson")
    try:
        r = requests.post(f"{base}/v1/seeks", json={"players": 2, "turn_seconds": 300},
                          headers={"Authorization": f"Bearer {key}"}, timeout=5)
        seek_id = r.json()["seek_id"]
        wait_until(lambda: any(h.startswith("s.bea.") for h in holds(db, "bea") or {}), PATIENCE,
                   "the stream holding the seek")
        r = requests.post(f"{base}/v1/seeks?timeout=120", json={
            "players": 2, "name": "cal", "turn_seconds": 300}, timeout=PATIENCE)
        assert r.json()["status"] == "matched", "bea's stream looked and the match was made"
        mine = requests.get(f"{base}/v1/seeks/{seek_id}",
                            headers={"Authorization": f"Bearer {key}"}, timeout=5).json()
        assert mine["game_id"] == r.json()["game_id"]
        view = requests.get(f"{base}/v1/games/{mine['game_id']}", timeout=5).json()
        assert view["clock"]["turn_seconds"] == 300
        stream.settimeout(PATIENCE)
        heard = b""
        started = time.monotonic()
        while b"game_started" not in heard and time.monotonic() - started < PATIENCE:
            heard += stream.recv(65536)
        assert b"game_started" in heard, "the stream tells the account its game began"
    finally:
        stream.close()
