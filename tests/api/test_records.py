"""Records over HTTP: written by the save that finishes the game, served as JSON and as a
score sheet, kept after the live game's keys are gone, and the view at every past version
equal to the engine's view of the state at that version."""

from __future__ import annotations

import zlib
from dataclasses import replace

import orjson
import redis
from flask import Flask
from flask.testing import FlaskClient

from service.bots import decide
from service.engine import GameState, from_dict
from service.play import game_view
from service.verify import verify

from .conftest import Table, new_table

SHORT = {"preset": "classic", "hand_sizes": [3, 4, 5]}


def stored_state(redis_db: redis.Redis, game_id: str) -> GameState:
    return from_dict(orjson.loads(redis_db.hget(f"ttt:{{{game_id}}}:game", "s")))


def play_out(table: Table, redis_db: redis.Redis) -> dict[int, GameState]:
    """Play the game with greedy decisions over HTTP; the stored state at every version."""
    states = {0: stored_state(redis_db, table.game_id)}
    while not states[max(states)].finished:
        state = states[max(states)]
        seat = state.current_seat
        assert seat is not None
        action = decide("greedy", f"t:{state.version}", table.view(seat), [])
        r = table.act(seat, action, **{"If-Match": f'"{state.version}"'})
        assert r.status_code == 200, r.json
        states[state.version + 1] = stored_state(redis_db, table.game_id)
    return states


def test_before_the_end_the_record_and_past_versions_are_409_game_not_finished(
        table: Table) -> None:
    for path in (f"/v1/games/{table.game_id}/record", f"/v1/games/{table.game_id}?version=0"):
        r = table.client.get(path)
        assert r.status_code == 409 and r.json["code"] == "game_not_finished", r.json
        assert r.content_type == "application/problem+json"


def test_an_unknown_game_has_no_record(client: FlaskClient) -> None:
    r = client.get("/v1/games/nosuchgame123/record")
    assert r.status_code == 404 and r.json["code"] == "unknown_game"


def test_the_finishing_save_writes_a_compact_record_that_verifies(
        client: FlaskClient, redis_db: redis.Redis, app: Flask) -> None:
    table = new_table(client, rules=SHORT, seed="rec-1")
    states = play_out(table, redis_db)
    key = f"ttt:{{{table.game_id}}}:record"
    stored = redis_db.get(key)
    assert stored is not None and len(stored) < 8 * 1024
    ttl = redis_db.ttl(key)
    assert app.extensions["three_thirteen"].config.record_ttl_seconds - 5 < ttl
    r = client.get(f"/v1/games/{table.game_id}/record")
    assert r.status_code == 200 and r.content_type == "application/json"
    record = r.json
    assert record == orjson.loads(zlib.decompress(stored))["record"]
    assert "tokens" not in record and all(t not in r.get_data(as_text=True)
                                          for t in table.tokens if t)
    assert verify(record) == []
    final = states[max(states)]
    assert record["versions"] == final.version and record["winners"] == table.view()["winners"]
    assert record["seed"] == final.seed and len(record["rounds"]) == 3


def test_the_score_sheet_is_text_round_by_round(client: FlaskClient, redis_db: redis.Redis
                                                ) -> None:
    table = new_table(client, rules=SHORT, seed="rec-2")
    play_out(table, redis_db)
    r = client.get(f"/v1/games/{table.game_id}/record", headers={"Accept": "text/plain"})
    assert r.status_code == 200 and r.content_type == "text/plain; charset=utf-8"
    text = r.get_data(as_text=True)
    assert text.startswith(f"Three-Thirteen: game {table.game_id}\n")
    for number in (1, 2, 3):
        assert f"\nRound {number}: " in text
    assert "Final totals: ann " in text and "\nWinner" in text
    r = client.get(f"/v1/games/{table.game_id}/record", headers={"Accept": "image/png"})
    assert r.status_code == 406 and r.json["code"] == "not_acceptable"


def test_the_view_at_every_version_is_the_engines_view_of_that_state(
        client: FlaskClient, redis_db: redis.Redis) -> None:
    table = new_table(client, rules=SHORT, seed="rec-3")
    states = play_out(table, redis_db)
    for version, state in states.items():
        past = replace(state, turn_deadline=None)
        for seat in (None, 0, 1):
            r = client.get(f"/v1/games/{table.game_id}?version={version}",
                           headers=table.auth(seat))
            assert r.status_code == 200, r.json
            assert r.headers["ETag"] == f'"{version}"'
            assert r.json == orjson.loads(orjson.dumps(
                game_view(table.game_id, past, seat))), (version, seat)
    last = max(states)
    r = client.get(f"/v1/games/{table.game_id}?version={last + 1}")
    assert r.status_code == 422 and r.json["code"] == "version_not_recorded"


def test_the_record_and_past_versions_outlive_the_live_games_keys(
        client: FlaskClient, redis_db: redis.Redis) -> None:
    table = new_table(client, rules=SHORT, seed="rec-4")
    states = play_out(table, redis_db)
    before = client.get(f"/v1/games/{table.game_id}/record").json
    redis_db.delete(f"ttt:{{{table.game_id}}}:game", f"ttt:{{{table.game_id}}}:events")
    assert client.get(f"/v1/games/{table.game_id}").status_code == 404
    assert client.get(f"/v1/games/{table.game_id}/record").json == before
    r = client.get(f"/v1/games/{table.game_id}?version=5", headers=table.auth(1))
    assert r.status_code == 200
    assert r.json["you"]["hand"] == game_view(table.game_id, states[5], 1)["you"]["hand"]


def test_a_finished_game_without_a_record_is_404_and_reading_makes_none(
        client: FlaskClient, redis_db: redis.Redis) -> None:
    table = new_table(client, rules=SHORT, seed="rec-5")
    play_out(table, redis_db)
    redis_db.delete(f"ttt:{{{table.game_id}}}:record")  # a game finished before records
    for path in (f"/v1/games/{table.game_id}/record", f"/v1/games/{table.game_id}?version=0"):
        r = client.get(path)
        assert r.status_code == 404 and r.json["code"] == "unknown_game", r.json
    assert not redis_db.exists(f"ttt:{{{table.game_id}}}:record")  # a read wrote none
    redis_db.delete(f"ttt:{{{table.game_id}}}:game")  # (every finished game left has one)

