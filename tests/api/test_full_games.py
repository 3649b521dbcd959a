"""Whole games over HTTP: one per preset, each scanned for secrets and replayed in the engine.

At every step the true state is read from Redis, and every response (the view of
each seat, the spectator view, each action's reply, the event log of each) is
checked: it never contains another seat's current hand, the stock's order, or the
seed and salt before the game is over. Streams are scanned too: a whole game followed
by each seat's stream and a spectator's carries exactly that bearer's share of every
event and only its own views. At the end the seed is revealed, and the
same seed and actions replayed through the engine give the very same state.
Games with server-side bot seats get the same scan and replay in ``test_bot_seats.py``.
"""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import orjson
import pytest
import redis
from flask.testing import FlaskClient

from service.core.cards import card_names
from service.core.rules import resolve_rules
from service.engine import apply, from_dict, new_game, to_dict
from service.engine.shoe import commitment
from service.engine.state import GameState
from tests.conftest import PATIENCE

from .conftest import Table, new_table


def true_state(redis_db: redis.Redis, game_id: str) -> GameState:
    return from_dict(orjson.loads(redis_db.hget(f"ttt:{{{game_id}}}:game", "s")))


def assert_no_secrets(text: str, state: GameState, seat: int | None) -> None:
    """``text`` was sent to ``seat``: nothing in it may reveal what ``seat`` must not know."""
    if state.finished:
        return
    assert state.seed not in text and state.seed_salt not in text
    assert state.table_nonce is None or state.table_nonce not in text
    if len(state.stock) >= 4:
        stock = json.dumps(card_names(state.stock[:4]), separators=(",", ":"))
        assert stock[1:-1] not in text.replace(" ", "")
    own = None if seat is None else card_names(state.hands[seat])
    for other, hand in enumerate(state.hands):
        # with two decks or more another seat may hold the very cards this seat holds (the
        # same list, which this seat's own hand spells): that reveals nothing
        if other != seat and len(hand) >= 3 and card_names(hand) != own:
            assert json.dumps(card_names(hand), separators=(",", ":")) not in text.replace(" ", "")


def play(client: FlaskClient, redis_db: redis.Redis, rules: dict[str, Any], seed: str,
         players: int = 2, scan: bool = True) -> tuple[Table, list[tuple[int, dict[str, Any]]]]:
    table = new_table(client, players=[{"name": f"p{i}"} for i in range(players)],
                      rules=rules, seed=seed)
    rng = random.Random(seed)
    moves: list[tuple[int, dict[str, Any]]] = []
    after = [0] * (players + 1)
    while True:
        state = true_state(redis_db, table.game_id)
        if state.finished:
            break
        seat = state.current_seat
        assert seat is not None
        if scan:
            for viewer in [*range(players), None]:
                r = client.get(f"/v1/games/{table.game_id}", headers=table.auth(viewer))
                assert_no_secrets(r.get_data(as_text=True), state, viewer)
                slot = players if viewer is None else viewer
                r = client.get(f"/v1/games/{table.game_id}/events?after={after[slot]}",
                               headers=table.auth(viewer))
                assert_no_secrets(r.get_data(as_text=True), state, viewer)
                after[slot] = r.json["next_after"]
        legal = table.view(seat)["legal_actions"]
        go_out = [a for a in legal if a["type"] == "go_out"]
        action = go_out[0] if go_out and rng.random() < 0.9 else rng.choice(legal)
        r = table.act(seat, action)
        assert r.status_code == 200, r.json
        if scan:
            assert_no_secrets(r.get_data(as_text=True), true_state(redis_db, table.game_id), seat)
        moves.append((seat, action))
    return table, moves


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["classic", "bga", "family"])
def test_a_complete_game_over_http_leaks_nothing_and_replays_exactly_in_the_engine(
    client: FlaskClient, redis_db: redis.Redis, preset: str
) -> None:
    rules = {"preset": preset, "hand_sizes": [3, 6, 10, 13]}
    table, moves = play(client, redis_db, rules, seed=f"full-{preset}", players=3)
    final = table.view(None)
    assert final["status"] == "finished"
    assert len(final["players"][0]["round_scores"]) == 4
    assert final["winners"] and final["seed"] == f"full-{preset}"
    assert commitment(final["seed"], final["seed_salt"]) == final["seed_commitment"]

    engine = new_game(resolve_rules(rules), ["p0", "p1", "p2"], final["seed"],
                      seed_salt=final["seed_salt"], table_nonce=final["table_nonce"])
    for seat, action in moves:
        engine, _ = apply(engine, seat, action)
    assert to_dict(engine) == to_dict(true_state(redis_db, table.game_id))


@pytest.mark.slow
def test_a_full_eleven_round_classic_game_finishes_over_http(
    client: FlaskClient, redis_db: redis.Redis
) -> None:
    table, moves = play(client, redis_db, {"preset": "classic"}, seed="eleven", scan=False)
    final = table.view(0)
    assert final["status"] == "finished" and len(final["players"][0]["round_scores"]) == 11
    assert final["legal_actions"] == [] and final["round"]["current_seat"] is None
    events: list[dict] = []
    while True:
        r = client.get(f"/v1/games/{table.game_id}/events?after={len(events)}&limit=500")
        events += r.json["events"]
        if not r.json["more"]:
            break
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["type"] == "game_finished" and events[-1]["seed"] == "eleven"
    assert len(moves) == final["version"]


def test_the_same_seed_deals_the_same_game(client: FlaskClient) -> None:
    a = new_table(client, seed="same")
    b = new_table(client, seed=" same"[1:])
    seat = a.view()["round"]["current_seat"]
    assert a.view(seat)["you"] == b.view(seat)["you"]
    assert a.view()["round"]["discard_top"] == b.view()["round"]["discard_top"]
    # salted: the commitments differ although the seed is the same
    assert a.view()["seed_commitment"] != b.view()["seed_commitment"]


def follow(client: FlaskClient, table: Table, seat: int | None, out: list[dict[str, Any]],
           opened: threading.Barrier) -> None:
    """Collect the NDJSON stream of ``seat`` (``None``: a spectator) until it ends."""
    r = client.get(f"/v1/games/{table.game_id}/stream",
                   headers={"Accept": "application/x-ndjson", **table.auth(seat)}, buffered=False)
    assert r.status_code == 200
    opened.wait(PATIENCE)
    buffer = b""
    for chunk in r.response:
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        out.extend(orjson.loads(line) for line in lines if line)
    r.close()


@pytest.mark.slow
def test_each_seats_stream_of_a_whole_game_carries_its_own_secrets_only(
    client: FlaskClient, redis_db: redis.Redis
) -> None:
    players = 3
    table = new_table(client, players=[{"name": f"p{i}"} for i in range(players)],
                      rules={"preset": "classic", "hand_sizes": [3, 5]}, seed="streamed")
    bearers: list[int | None] = [*range(players), None]
    got: dict[int | None, list[dict[str, Any]]] = {b: [] for b in bearers}
    opened = threading.Barrier(len(bearers) + 1)
    followers = [threading.Thread(target=follow, args=(client, table, b, got[b], opened))
                 for b in bearers]
    for t in followers:
        t.start()
    opened.wait(PATIENCE)  # every stream is open before the first move
    rng = random.Random(5)
    while not (state := true_state(redis_db, table.game_id)).finished:
        seat = state.current_seat
        assert seat is not None
        legal = table.view(seat)["legal_actions"]
        go_out = [a for a in legal if a["type"] == "go_out"]
        assert table.act(seat, go_out[0] if go_out else rng.choice(legal)).status_code == 200
    for t in followers:
        t.join(PATIENCE)
        assert not t.is_alive(), "a stream did not end with the game"
    stored = client.application.extensions["three_thirteen"].stores.games.events(
        table.game_id, 0, 100_000)
    assert any(e.private for e in stored)  # there were secrets to keep
    for bearer in bearers:
        messages = got[bearer]
        events = [m["event"] for m in messages if m["type"] == "event"]
        # exactly the bearer's share of every event: public fields plus its own private ones
        assert events == [e.for_seat(bearer) for e in stored]
        views = [m["view"] for m in messages if m["type"] == "view"]
        assert all((v["you"] and v["you"]["seat"]) == bearer for v in views)
        versions = [v["version"] for v in views]
        assert versions == sorted(set(versions)) and versions[-1] == state.version
        assert messages[-1] == {"type": "end", "reason": "finished", "retry_ms": 1000}
        assert views[-1] == table.view(bearer)
