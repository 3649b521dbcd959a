"""Reads only read, as Redis itself sees it: while the lobby (stale entries and all), a
record, a past view, an analysis, the events and views, long-polls and streams of games that owe the
service a move (a bot on turn, a turn clock run out) are served, Redis's ``MONITOR``
shows no command that writes (none flagged ``write`` by ``COMMAND``, no script, no
publish)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis

from service.app import create_app
from service.config import Config
from tests.conftest import PATIENCE

from .conftest import new_table
from .test_records import play_out

SHORT = {"preset": "classic", "hand_sizes": [3]}
#: Commands that may write without the ``write`` flag: scripts, and what wakes waiters.
MAY_WRITE = {"eval", "evalsha", "fcall", "publish", "spublish"}


def commands_during(db: redis.Redis, action: Callable[[], None]) -> list[str]:
    """The commands Redis ran on ``db``'s database (scripts' own included) during
    ``action()``, as MONITOR reports them."""
    number = db.connection_pool.connection_kwargs.get("db", 0)
    marker = f"end-of-reads-{time.monotonic_ns()}"
    seen: list[str] = []
    with db.monitor() as monitor:
        def follow() -> None:
            while marker not in (command := monitor.next_command())["command"]:
                if command["db"] == number:
                    seen.append(command["command"])

        follower = threading.Thread(target=follow)
        follower.start()
        action()
        db.echo(marker)
        follower.join(PATIENCE)
    assert not follower.is_alive()
    return seen


def writes(db: redis.Redis, commands: list[str]) -> list[str]:
    """Those of ``commands`` that write."""
    flags: dict[str, Any] = db.command()
    return [c for c in commands
            if (name := c.split(" ", 1)[0].lower()) in MAY_WRITE
            or "write" in flags.get(name, {}).get("flags", [])]


def test_the_lobby_a_record_a_past_view_and_the_events_are_served_without_a_write(
        config: Config, redis_db: redis.Redis) -> None:
    """Humans' games only, and no move worker: MONITOR sees the app's commands alone."""
    if isinstance(redis_db, redis.RedisCluster):
        pytest.skip("MONITOR watches one node; a cluster's commands spread over several")
    client = create_app(config).test_client()
    finished = new_table(client, rules=SHORT, seed="reads-1")
    play_out(finished, redis_db)
    unrecorded = new_table(client, rules=SHORT, seed="reads-2")
    play_out(unrecorded, redis_db)
    redis_db.delete(f"ttt:{{{unrecorded.game_id}}}:record")
    playing = new_table(client, rules=SHORT, seed="reads-3")
    full = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": None}]}).json
    client.post(f"/v1/games/{full['game_id']}/seats/1/claim", json={"name": "b"})
    now_ms = round(time.time() * 1000)
    redis_db.zadd("ttt:{lobby}:open", {full["game_id"]: now_ms})  # a failed move's leftover
    redis_db.zadd("ttt:{lobby}:in_progress", {finished.game_id: now_ms, "expired": 1})
    assert client.post(f"/v1/games/{finished.game_id}/analysis").status_code == 202

    def reads() -> None:
        for status in ("open", "in_progress"):
            assert client.get(f"/v1/games?status={status}").status_code == 200
        record = f"/v1/games/{finished.game_id}/record"
        assert client.get(record).status_code == 200
        assert client.get(record, headers={"Accept": "text/plain"}).status_code == 200
        assert client.get(f"/v1/games/{finished.game_id}?version=2").status_code == 200
        assert client.get(f"/v1/games/{finished.game_id}/analysis").json["status"] == "queued"
        assert client.get(f"/v1/games/{playing.game_id}/analysis").status_code == 404
        assert client.get(f"/v1/games/{unrecorded.game_id}/record").status_code == 404
        assert client.get(f"/v1/games/{playing.game_id}/record").status_code == 409
        assert client.get(f"/v1/games/{playing.game_id}/events").status_code == 200
        assert client.get(f"/v1/games/{playing.game_id}").status_code == 200

    try:
        commands = commands_during(redis_db, reads)
    finally:  # every finished game left has a record (the fixture checks)
        redis_db.delete(f"ttt:{{{unrecorded.game_id}}}:game")
    assert any(c.startswith("ZREVRANGEBYSCORE") for c in commands)  # MONITOR saw the reads
    assert writes(redis_db, commands) == []


def test_reads_of_games_owing_the_service_moves_write_nothing_and_leave_them_owed(
        config: Config, redis_db: redis.Redis) -> None:
    """No move worker runs here: a bot on turn and a clock run out stay owed, however
    often the games are read, waited on and streamed."""
    if isinstance(redis_db, redis.RedisCluster):
        pytest.skip("MONITOR watches one node; a cluster's commands spread over several")
    client = create_app(config).test_client()  # without the tests' move worker
    bots = client.post("/v1/games", json={"players": [{"bot": "greedy"}, {"bot": "random"}],
                                          "rules": SHORT}).json
    clocked = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}],
                                             "rules": SHORT, "turn_seconds": 1}).json
    time.sleep(1.2)  # the clocked game's first turn ran out
    seat = clocked["state"]["round"]["current_seat"]
    auth = {"Authorization": f"Bearer {clocked['seats'][seat]['token']}"}

    def reads() -> None:
        for game_id in (bots["game_id"], clocked["game_id"]):
            assert client.get(f"/v1/games/{game_id}").status_code == 200
            assert client.get(f"/v1/games/{game_id}?wait_version=0&timeout=0.3").status_code == 200
            assert client.get(f"/v1/games/{game_id}/events?after=1000&timeout=0.3"
                              ).status_code in (200, 422)
            stream = client.get(f"/v1/games/{game_id}/stream",
                                headers={"Accept": "application/x-ndjson"}, buffered=False)
            next(stream.iter_encoded())
            stream.close()
        assert client.get(f"/v1/games/{clocked['game_id']}?wait=turn&timeout=0.3",
                          headers=auth).status_code == 200

    assert writes(redis_db, commands_during(redis_db, reads)) == []
    for game in (bots, clocked):
        assert client.get(f"/v1/games/{game['game_id']}").json["version"] == 0  # still owed


def test_a_seek_read_with_and_without_a_wait_writes_nothing(
        config: Config, redis_db: redis.Redis) -> None:
    """A waiting seek, and a match whose game its matcher never made (it died: a worker
    makes it), read at once and with ``timeout``: no write, not even the game (it was one
    before)."""
    if isinstance(redis_db, redis.RedisCluster):
        pytest.skip("MONITOR watches one node; a cluster's commands spread over several")
    client = create_app(config).test_client()
    waiting = client.post("/v1/seeks", json={"players": 3, "name": "ann"}).json
    first = client.post("/v1/seeks", json={"players": 2, "name": "bob"}).json
    matched = client.post("/v1/seeks", json={"players": 2, "name": "cid"}).json
    assert matched["status"] == "matched"
    game = matched["game_id"]
    for key in redis_db.keys(f"ttt:{{{game}}}:*"):  # as if its matcher had died before it
        redis_db.delete(key)
    auth = {"Authorization": f"Bearer {first['token']}"}

    def reads() -> None:
        for seek, headers in ((waiting, {"Authorization": f"Bearer {waiting['token']}"}),
                              (first, auth)):
            for query in ("", "?timeout=0.3"):
                r = client.get(f"/v1/seeks/{seek['seek_id']}{query}", headers=headers)
                assert r.status_code == 200 and r.json["status"] == "waiting", r.json

    commands = commands_during(redis_db, reads)
    assert any(c.startswith("HGET") or c.startswith("HMGET") for c in commands)
    assert writes(redis_db, commands) == []
    assert not redis_db.exists(f"ttt:{{{game}}}:game")
