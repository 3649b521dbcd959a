"""The event log as served is exactly the engine's, whatever form Redis stores it in.

Events are stored compact (positional, cards as integers: ``service.storage.event_codec``).
These tests play whole games over HTTP, replay their actions in the engine, and read the
log through the API from every cursor, as every bearer: each page must be, byte for
byte, the engine's own events rendered for that bearer (``Event.for_seat``, the one
renderer of events), so the stored form can change nothing a client sees.
"""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest
import redis
from flask.testing import FlaskClient

from service.core.rules import resolve_rules
from service.engine import Event, apply, new_game, opening_events

from .conftest import Table, new_table


def _play(client: FlaskClient, rules: dict[str, Any], players: int,
          seed: str) -> tuple[Table, list[tuple[int, dict[str, Any]]]]:
    """A whole game of random legal actions (going out when it can, mostly)."""
    table = new_table(client, players=[{"name": f"p{i}"} for i in range(players)],
                      rules=rules, seed=seed)
    rng = random.Random(seed)
    moves: list[tuple[int, dict[str, Any]]] = []
    while (view := table.view())["status"] != "finished":
        seat = view["round"]["current_seat"]
        legal = table.view(seat)["legal_actions"]
        go_out = [a for a in legal if a["type"] == "go_out"]
        action = go_out[0] if go_out and rng.random() < 0.9 else rng.choice(legal)
        r = table.act(seat, action, **{"Idempotency-Key": f"{len(moves)}"})
        assert r.status_code == 200, r.json
        moves.append((seat, action))
    return table, moves


def _engine_events(rules: dict[str, Any], players: int, seed: str, salt: str,
                   moves: list[tuple[int, dict[str, Any]]],
                   names: list[str] | None = None) -> list[Event]:
    """The game's events as the engine makes them (never through storage)."""
    names = names or [f"p{i}" for i in range(players)]
    state = new_game(resolve_rules(rules), list(names), seed, seed_salt=salt)
    events = list(opening_events(state))
    for seat, action in moves:
        state, new = apply(state, seat, action)
        events += new
    return events


@pytest.mark.slow
@pytest.mark.parametrize(("rules", "players"), [
    ({"preset": "classic", "hand_sizes": [3, 7, 11]}, 2),
    ({"preset": "bga", "hand_sizes": [3, 8, 13], "lay_off": True}, 4),
    ({"preset": "family", "hand_sizes": [4, 9], "jokers": 2}, 3),
])
def test_the_log_from_every_cursor_for_every_bearer_is_the_engines_byte_for_byte(
        client: FlaskClient, redis_db: redis.Redis, rules: dict[str, Any],
        players: int) -> None:
    seed = f"log-{players}"
    table, moves = _play(client, rules, players, seed)
    stored = [orjson.loads(f[b"e"]) for _, f in
              redis_db.xrange(f"ttt:{{{table.game_id}}}:events")]
    assert all(isinstance(e, list) and isinstance(e[1], int) for e in stored)  # compact
    final = table.view()
    engine = _engine_events(rules, players, seed, final["seed_salt"], moves)
    kinds = {e.type for e in engine}
    assert {"draw", "discard", "round_started", "round_ended", "game_finished"} <= kinds
    for bearer in [None, *range(players)]:
        for after in range(len(engine) + 1):
            r = client.get(f"/v1/games/{table.game_id}/events?after={after}&limit=20",
                           headers=table.auth(bearer))
            assert r.status_code == 200, r.json
            expected = [e.for_seat(bearer) for e in engine[after:after + 20]]
            assert orjson.dumps(expected) in r.data, (bearer, after)
            assert orjson.dumps(r.json["events"]) == orjson.dumps(expected)


def test_a_game_saved_in_the_first_stored_form_is_served_unchanged(
        table: Table, redis_db: redis.Redis) -> None:
    """Games stored before the compact form (``[seq, type, public, private]`` per entry)
    are served the same: a deploy does not break the games in flight."""
    seat = table.view()["round"]["current_seat"]
    moves = [(seat, {"type": "draw", "source": "stock"})]
    assert table.act(*moves[0]).status_code == 200
    hand = table.view(seat)["you"]["hand"]
    moves.append((seat, {"type": "discard", "card": hand[0]}))
    assert table.act(*moves[1]).status_code == 200
    salt = orjson.loads(redis_db.hget(f"ttt:{{{table.game_id}}}:game", "s"))["salt"]
    engine = _engine_events({}, 2, "7", salt, moves, names=["ann", "bob"])
    stream = f"ttt:{{{table.game_id}}}:events"
    assert redis_db.xlen(stream) == len(engine)
    redis_db.delete(stream)
    for e in engine:
        redis_db.xadd(stream, {"e": orjson.dumps([e.seq, e.type, e.public, e.private],
                                                 option=orjson.OPT_NON_STR_KEYS)},
                      id=f"{e.seq}-0")
    for bearer in (None, 0, 1):
        assert table.events(bearer) == [e.for_seat(bearer) for e in engine]
