"""Whole games over HTTP with server-side bot seats: a human (the test, playing with the
project's greedy bot code on its own views) against each reference bot under every preset,
scanned for secrets at every turn and replayed in the engine from the seed and the
actions of the log; games of bots only that finish with no client at all; resigning."""

from __future__ import annotations

import time
from typing import Any

import orjson
import pytest
import redis
from flask.testing import FlaskClient

from service.bots import GreedyBot
from service.core.rules import resolve_rules
from service.engine import GameState, apply, new_game, to_dict
from service.engine.seats import time_out
from tests.conftest import PATIENCE

from .conftest import Table, new_table
from .test_full_games import assert_no_secrets, true_state

PRESETS = ["classic", "bga", "family"]


def all_events(client: FlaskClient, table: Table, seat: int | None = None) -> list[dict]:
    events: list[dict] = []
    while True:
        r = client.get(f"/v1/games/{table.game_id}/events?after={len(events)}&limit=1000",
                       headers=table.auth(seat))
        events += r.json["events"]
        if not r.json["more"]:
            return events


def replay(rules: dict[str, Any], created: dict[str, Any], final: dict[str, Any],
           events: list[dict]) -> GameState:
    """The game rebuilt in the engine from its revealed seed and every action of its log:
    the humans', the bots' and the service's (time-outs) alike."""
    seats = created["seats"]
    state = new_game(resolve_rules(rules), [s["name"] for s in seats], final["seed"],
                     seed_salt=final["seed_salt"], bots=[s["bot"] for s in seats],
                     table_nonce=final["table_nonce"],
                     turn_seconds=created["state"]["clock"] and
                     created["state"]["clock"]["turn_seconds"])
    for e in events:
        kind, seat = e["type"], e.get("seat")
        if kind == "draw":
            state, _ = apply(state, seat, {"type": "draw", "source": e["source"]}, e["by"])
        elif kind == "discard":
            state, _ = apply(state, seat, {"type": "discard", "card": e["card"]}, e["by"])
        elif kind == "went_out":
            state, _ = apply(state, seat, {"type": "go_out", "discard": e["discard"],
                                           "melds": e["melds"]}, e["by"])
        elif kind == "seat_resigned":
            state, _ = apply(state, seat, {"type": "resign"})
        elif kind == "seat_back":
            state, _ = apply(state, seat, {"type": "back"})
        elif kind == "turn_timed_out":
            state, _ = time_out(state, seat)
    return state


def play_human(client: FlaskClient, redis_db: redis.Redis, table: Table, seat: int,
               scan: bool = True) -> dict[str, Any]:
    """Play ``seat`` with greedy's code on its own views (long-polling for its turn)
    until the end, scanning what it and a spectator are sent; the final view."""
    bot = GreedyBot()
    after = {seat: 0, None: 0}
    while True:
        r = client.get(f"/v1/games/{table.game_id}?wait=turn&timeout=3",
                       headers=table.auth(seat))
        assert r.status_code == 200
        view = r.json
        if view["status"] == "finished":
            return view
        if not view["legal_actions"]:
            continue
        if scan:
            state = true_state(redis_db, table.game_id)
            assert_no_secrets(r.get_data(as_text=True), state, seat)
            for viewer in (seat, None):
                got = client.get(f"/v1/games/{table.game_id}/events?after={after[viewer]}",
                                 headers=table.auth(viewer))
                assert_no_secrets(got.get_data(as_text=True), state, viewer)
                after[viewer] = got.json["next_after"]
            spectator = client.get(f"/v1/games/{table.game_id}")
            assert_no_secrets(spectator.get_data(as_text=True), state, None)
        reply = table.act(seat, bot.choose(view))
        assert reply.status_code == 200, reply.json
        if scan:
            assert_no_secrets(reply.get_data(as_text=True),
                              true_state(redis_db, table.game_id), seat)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("bot", ["random", "greedy", "strong"])
def test_a_human_against_a_bot_seat_plays_a_whole_game_leaking_nothing_and_it_replays(
    client: FlaskClient, redis_db: redis.Redis, preset: str, bot: str
) -> None:
    rules = {"preset": preset, "hand_sizes": [3, 7, 13]}
    table = new_table(client, players=[{"bot": bot}, {"name": "ann"}, {"bot": bot}],
                      rules=rules, seed=f"{bot}-{preset}")
    assert table.tokens == [None, table.tokens[1], None] and table.tokens[1]
    assert [p["kind"] for p in table.created["state"]["players"]] == ["bot", "human", "bot"]
    final = play_human(client, redis_db, table, 1)
    assert len(final["players"][0]["round_scores"]) == 3 and final["winners"]
    events = all_events(client, table)
    engine = replay(rules, table.created, final, events)
    assert to_dict(engine) == to_dict(true_state(redis_db, table.game_id))


def test_a_game_of_four_bot_seats_finishes_with_no_client_playing_it(
    client: FlaskClient, redis_db: redis.Redis
) -> None:
    rules = {"preset": "classic", "hand_sizes": [3, 6, 9]}
    r = client.post("/v1/games", json={"rules": rules, "seed": "four", "players": [
        {"bot": "greedy"}, {"bot": "strong"}, {"bot": "random"}, {"bot": "strong"}]})
    assert r.status_code == 201 and [s["token"] for s in r.json["seats"]] == [None] * 4
    game_id = r.json["game_id"]
    r.close()  # the response is done: the bots play after it, no request is made since
    deadline = time.monotonic() + PATIENCE
    while not true_state(redis_db, game_id).finished:
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.05)
    final = client.get(f"/v1/games/{game_id}").json
    assert final["status"] == "finished" and len(final["players"][3]["round_scores"]) == 3
    assert [p["kind"] for p in final["players"]] == ["bot"] * 4
    table = Table.__new__(Table)
    table.client, table.game_id, table.tokens, table.created = client, game_id, [], {}
    events = all_events(client, table)
    engine = replay(rules, {"seats": [{"name": n, "bot": n} for n in
                                      ("greedy", "strong", "random", "strong")],
                            "state": {"clock": None}}, final, events)
    assert to_dict(engine) == to_dict(true_state(redis_db, game_id))


@pytest.mark.slow
def test_a_game_where_two_of_three_humans_resign_midway_finishes_with_valid_scores(
    client: FlaskClient, redis_db: redis.Redis
) -> None:
    rules = {"preset": "classic", "hand_sizes": [3, 5, 7, 9]}
    table = new_table(client, players=[{"name": "ann"}, {"name": "bob"}, {"name": "cy"},
                                       {"bot": "greedy"}], rules=rules, seed="resign")
    bot = GreedyBot()
    resigned: list[int] = []
    while (state := true_state(redis_db, table.game_id)).round_index < 2:
        seat = state.current_seat
        assert seat is not None
        if seat == 3:
            time.sleep(0.01)  # the bot's move is the service's
            continue
        assert table.act(seat, bot.choose(table.view(seat))).status_code == 200
    for seat in (1, 2):  # one on turn or not, both midway through round 3
        r = table.act(seat, {"type": "resign"})
        assert r.status_code == 200, r.json
        resigned.append(seat)
        assert r.json["players"][seat]["kind"] == "resigned"
        assert r.json["players"][seat]["bot"] == "greedy"
    again = table.act(1, {"type": "resign"})
    assert again.status_code == 409 and again.json["code"] == "seat_resigned"
    final = play_human(client, redis_db, table, 0, scan=False)
    assert [p["kind"] for p in final["players"]] == ["human", "resigned", "resigned", "bot"]
    for player in final["players"]:
        assert len(player["round_scores"]) == 4
        assert player["total"] == sum(player["round_scores"]) and min(player["round_scores"]) >= 0
    assert final["winners"] and not set(final["winners"]) & {1, 2}
    events = all_events(client, table)
    assert [e["seat"] for e in events if e["type"] == "seat_resigned"] == resigned
    engine = replay(rules, table.created, final, events)
    assert to_dict(engine) == to_dict(true_state(redis_db, table.game_id))


def test_a_game_whose_humans_all_resign_plays_to_its_end_by_itself(
    client: FlaskClient, redis_db: redis.Redis
) -> None:
    table = new_table(client, players=[{"name": "ann"}, {"bot": "strong"}, {"name": "bob"}],
                      rules={"preset": "bga", "hand_sizes": [3, 4]}, seed="all-resign")
    for seat in (2, 0):
        assert table.act(seat, {"type": "resign"}).status_code == 200
    final = table.client.get(f"/v1/games/{table.game_id}?wait=turn&timeout=3").json
    assert final["status"] == "finished"
    assert [p["kind"] for p in final["players"]] == ["resigned", "bot", "resigned"]


def test_a_rematch_is_announced_on_the_old_games_stream_once_every_human_accepts(
    client: FlaskClient, redis_db: redis.Redis
) -> None:
    table = new_table(client, players=[{"name": "ann"}, {"bot": "greedy"}],
                      rules={"preset": "family", "hand_sizes": [3]}, seed="rematch")
    early = client.post(f"/v1/games/{table.game_id}/rematch", headers=table.auth(0))
    assert early.status_code == 409 and early.json["code"] == "illegal_action"
    play_human(client, redis_db, table, 0, scan=False)
    r = client.post(f"/v1/games/{table.game_id}/rematch", headers=table.auth(0))
    assert r.status_code == 200, r.json
    new_id = r.json["rematch"]["game_id"]
    assert new_id and r.json["rematch"]["asked"] == [0]
    last = table.events()[-1]
    assert last["type"] == "rematch_started" and last["game_id"] == new_id
    stream = client.get(f"/v1/games/{table.game_id}/stream",
                        headers={"Accept": "application/x-ndjson"})
    assert f'"game_id":"{new_id}"'.encode() in stream.data
    view = client.get(f"/v1/games/{new_id}", headers=table.auth(0)).json
    assert view["you"]["seat"] == 0 and view["status"] == "in_progress"
    assert [p["kind"] for p in view["players"]] == ["human", "bot"]


def test_creation_refuses_a_seat_that_is_both_or_neither_and_an_unknown_bot(
    client: FlaskClient,
) -> None:
    for players in ([{"name": "a", "bot": "greedy"}, {"name": "b"}], [{}, {"name": "b"}],
                    [{"bot": "deep-blue"}, {"name": "b"}]):
        r = client.post("/v1/games", json={"players": players})
        assert r.status_code == 422, players
    for seconds in (0, -1, 86_401, 1.5):
        r = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}],
                                           "turn_seconds": seconds})
        assert r.status_code == 422, seconds


def test_the_bots_endpoint_lists_each_reference_bot_with_a_line(client: FlaskClient) -> None:
    bots = client.get("/v1/bots").json["bots"]
    assert [b["name"] for b in bots] == ["random", "simple", "greedy", "strong", "expert"]
    assert all(len(b["description"]) > 20 for b in bots)


def test_a_spectators_stream_of_a_bot_game_carries_every_bot_move_as_it_is_made(
    client: FlaskClient, redis_db: redis.Redis
) -> None:
    # rounds long enough for the stream to wake several times while the bots play; the
    # game starts only once its open seat is claimed, so the stream is open before
    r = client.post("/v1/games", json={
        "players": [{"name": None}, {"bot": "greedy"}, {"bot": "random"}],
        "rules": {"preset": "classic", "hand_sizes": [3, 5, 7, 9]}, "seed": "streamed-bots"})
    game_id = r.json["game_id"]
    stream = client.get(f"/v1/games/{game_id}/stream",
                        headers={"Accept": "application/x-ndjson"}, buffered=False)
    chunks = stream.iter_encoded()
    messages = []
    while not messages or messages[-1]["type"] != "view":  # up to its first view
        messages += [orjson.loads(line) for line in next(chunks).splitlines() if line]
    assert messages[-1]["view"]["version"] == 0
    token = client.post(f"/v1/games/{game_id}/seats/0/claim", json={"name": "ann"}).json["token"]
    resigned = client.post(f"/v1/games/{game_id}/actions", json={"type": "resign"},
                           headers={"Authorization": f"Bearer {token}"})
    assert resigned.status_code == 200  # now the bots and the stand-in play it out
    messages += [orjson.loads(line) for line in b"".join(chunks).splitlines() if line]
    stored = client.application.extensions["three_thirteen"].stores.games.events(game_id, 0, 10_000)
    assert [m["event"] for m in messages if m["type"] == "event"] == [
        e.for_seat(None) for e in stored]
    versions = [m["view"]["version"] for m in messages if m["type"] == "view"]
    assert versions == sorted(set(versions)) and len(versions) > 2  # moves as they come
    assert messages[-1]["type"] == "end" and messages[-1]["reason"] == "finished"
