"""A game stored before its effects' cursor was kept (no ``x`` in its hash: the games in
play when ``service/play/effects.py`` was deployed) owes nothing of its past, and its
next changes cause their effects as any game's do: its cursor starts at its next save."""

from __future__ import annotations

import orjson
import redis
from flask.testing import FlaskClient

from tests.api.conftest import done
from tests.api.test_accounts import key_auth, register


def test_a_game_without_a_cursor_tells_its_next_turn_and_keeps_a_cursor_from_then(
        client: FlaskClient, redis_db: redis.Redis) -> None:
    keys = {h: register(client, h) for h in ("ann", "bob")}
    made = done(client.post("/v1/challenges", headers=key_auth(keys["ann"]), json={
        "to": ["bob"], "rules": {"preset": "classic", "hand_sizes": [3]}}))
    game = done(client.post(f"/v1/challenges/{made.json['challenge_id']}/accept",
                            headers=key_auth(keys["bob"]))).json["game_id"]
    key = f"ttt:{{{game}}}:game"
    assert redis_db.hget(key, "x") is not None
    redis_db.hdel(key, "x")  # as the games stored before the cursor was kept
    view = client.get(f"/v1/games/{game}").json
    seat = view["round"]["current_seat"]
    mover, other = ("ann", "bob") if seat == 0 else ("bob", "ann")
    auth = key_auth(keys[mover])
    before = len(client.get("/v1/me/games", headers=key_auth(keys[other])).json["games"])
    assert done(client.post(f"/v1/games/{game}/actions", headers=auth,
                            json={"type": "draw", "source": "stock"})).status_code == 200
    mine = client.get(f"/v1/games/{game}", headers=auth).json
    discard = next(a for a in mine["legal_actions"] if a["type"] == "discard")
    assert done(client.post(f"/v1/games/{game}/actions", headers=auth,
                            json=discard)).status_code == 200
    assert int(redis_db.hget(key, "x")) == client.get(f"/v1/games/{game}/events").json[
        "events"][-1]["seq"]
    notes = [n for n in read_notes(redis_db, other) if n.get("game_id") == game]
    assert notes and notes[-1]["type"] == "your_turn"
    assert len(client.get("/v1/me/games", headers=key_auth(keys[other])).json["games"]) == before


def read_notes(db: redis.Redis, handle: str) -> list[dict[str, object]]:
    """The account's notes as Redis keeps them (a stream, the note's JSON in ``n``)."""
    return [orjson.loads(fields[b"n"]) for _, fields in db.xrange(f"ttt:{{acct:{handle}}}:notes")]
