"""Creating, viewing and acting on games over HTTP: every success and failure path."""

from __future__ import annotations

import hashlib
import threading
import time

import redis
from flask.testing import FlaskClient

from tests.conftest import PATIENCE

from .conftest import Table, new_table


def _current(table: Table) -> int:
    return table.view()["round"]["current_seat"]


def test_creating_a_game_answers_201_with_location_tokens_and_a_spectator_view(
    client: FlaskClient,
) -> None:
    r = client.post("/v1/games", json={"players": [{"name": "ann"}, {"name": "bob"}], "seed": 7})
    assert r.status_code == 201
    body = r.json
    assert r.headers["Location"] == f"/v1/games/{body['game_id']}"
    assert r.headers["ETag"] == '"0"'
    assert [s["name"] for s in body["seats"]] == ["ann", "bob"]
    assert all(len(s["token"]) >= 40 for s in body["seats"])
    state = body["state"]
    assert state["you"] is None and state["legal_actions"] == []
    assert state["seeded_by_creator"] is True
    assert "seed" not in state and len(state["seed_commitment"]) == 64


def test_a_seat_sees_its_hand_and_legal_actions_and_a_spectator_sees_neither(
    table: Table,
) -> None:
    seat = _current(table)
    mine = table.view(seat)
    assert mine["you"]["seat"] == seat and len(mine["you"]["hand"]) == 3
    assert mine["legal_actions"] == [
        {"type": "draw", "source": "stock"},
        {"type": "draw", "source": "discard"},
    ]
    other = table.view(1 - seat)
    assert other["legal_actions"] == [] and other["you"]["hand"] != mine["you"]["hand"]
    spectator = table.view(None)
    assert spectator["you"] is None and spectator["legal_actions"] == []


def test_an_action_returns_the_new_view_with_the_callers_next_legal_actions(
    table: Table,
) -> None:
    seat = _current(table)
    r = table.act(seat, {"type": "draw", "source": "stock"})
    assert r.status_code == 200 and r.headers["ETag"] == '"1"'
    assert r.json["version"] == 1 and r.json["round"]["phase"] == "discard"
    assert len(r.json["you"]["hand"]) == 4
    assert {a["type"] for a in r.json["legal_actions"]} >= {"discard"}
    for action in r.json["legal_actions"]:
        assert action["type"] in ("discard", "go_out")


def test_acting_out_of_turn_is_409_not_your_turn(table: Table) -> None:
    seat = _current(table)
    r = table.act(1 - seat, {"type": "draw", "source": "stock"})
    assert r.status_code == 409
    assert r.mimetype == "application/problem+json"
    assert r.json["code"] == "not_your_turn" and r.json["status"] == 409
    assert set(r.json) >= {"type", "title", "status", "detail", "code"}


def test_an_illegal_action_is_409_illegal_action(table: Table) -> None:
    seat = _current(table)
    r = table.act(seat, {"type": "discard", "card": "7H"})
    assert r.status_code == 409 and r.json["code"] == "illegal_action"


def test_malformed_actions_are_422_with_a_code(table: Table, client: FlaskClient) -> None:
    seat = _current(table)
    assert table.act(seat, {"type": "fly"}).json["code"] == "invalid_action"
    assert table.act(seat, {"type": "discard", "card": "7X"}).json["code"] == "invalid_card"
    assert table.act(seat, {"type": "discard", "card": " 7H"}).json["code"] == "invalid_card"
    r = client.post(
        f"/v1/games/{table.game_id}/actions", data="{nope", content_type="application/json",
        headers=table.auth(seat),
    )
    assert r.status_code == 422 and r.json["code"] == "invalid_json"


def test_a_missing_or_wrong_token_is_401(table: Table, client: FlaskClient) -> None:
    url = f"/v1/games/{table.game_id}/actions"
    r = client.post(url, json={"type": "draw", "source": "stock"})
    assert r.status_code == 401 and r.json["code"] == "invalid_token"
    assert r.headers["WWW-Authenticate"].startswith("Bearer")
    r = client.post(url, json={"type": "draw", "source": "stock"},
                    headers={"Authorization": "Bearer not-a-token"})
    assert r.status_code == 401
    r = client.get(f"/v1/games/{table.game_id}", headers={"Authorization": "Basic abc"})
    assert r.status_code == 401


def test_an_unknown_game_is_404_unknown_game(client: FlaskClient) -> None:
    for url in ("/v1/games/nope", "/v1/games/nope/events", "/v1/games/bad%7Bid%7D"):
        r = client.get(url)
        assert r.status_code == 404 and r.json["code"] == "unknown_game"
    r = client.post("/v1/games/nope/actions", json={"type": "draw", "source": "stock"},
                    headers={"Authorization": "Bearer x"})
    assert r.status_code == 404 and r.json["code"] == "unknown_game"


def test_a_stale_if_match_is_412_and_changes_nothing(table: Table) -> None:
    seat = _current(table)
    assert table.act(seat, {"type": "draw", "source": "stock"}, **{"If-Match": '"0"'}).status_code == 200
    r = table.act(seat, {"type": "discard", "card": table.view(seat)["you"]["hand"][0]},
                  **{"If-Match": '"0"'})
    assert r.status_code == 412 and r.json["code"] == "version_conflict"
    assert r.json["current_version"] == 1
    assert table.view()["version"] == 1


def test_a_malformed_action_is_a_422_whatever_version_its_if_match_names(table: Table) -> None:
    seat = _current(table)
    for bad in ({"type": "\u0011f", "against": 203}, {"type": "draw"}, ["draw"]):
        r = table.act(seat, bad, **{"If-Match": 'W/""'})
        assert r.status_code == 422 and r.json["code"] == "invalid_action", (bad, r.json)
    assert table.view()["version"] == 0


def test_a_current_if_match_or_star_is_accepted(table: Table) -> None:
    seat = _current(table)
    assert table.act(seat, {"type": "draw", "source": "stock"}, **{"If-Match": 'W/"0"'}).status_code == 200
    hand = table.view(seat)["you"]["hand"]
    assert table.act(seat, {"type": "discard", "card": hand[0]}, **{"If-Match": "*"}).status_code == 200


def test_a_retry_with_the_same_idempotency_key_returns_the_first_response(table: Table) -> None:
    seat = _current(table)
    first = table.act(seat, {"type": "draw", "source": "stock"}, **{"Idempotency-Key": "k1"})
    again = table.act(seat, {"type": "draw", "source": "stock"}, **{"Idempotency-Key": "k1"})
    assert first.status_code == again.status_code == 200
    assert again.data == first.data and again.headers["ETag"] == first.headers["ETag"]
    assert again.headers["Idempotent-Replayed"] == "true"
    assert table.view()["version"] == 1  # acted once


def test_an_idempotency_key_reused_with_another_body_is_422(table: Table) -> None:
    seat = _current(table)
    assert table.act(seat, {"type": "draw", "source": "stock"}, **{"Idempotency-Key": "k"}).status_code == 200
    r = table.act(seat, {"type": "draw", "source": "discard"}, **{"Idempotency-Key": "k"})
    assert r.status_code == 422 and r.json["code"] == "idempotency_key_reused"


def test_idempotency_keys_are_per_seat_so_no_seat_can_read_anothers_reply(table: Table) -> None:
    seat = _current(table)
    assert table.act(seat, {"type": "draw", "source": "stock"}, **{"Idempotency-Key": "k"}).status_code == 200
    r = table.act(1 - seat, {"type": "draw", "source": "stock"}, **{"Idempotency-Key": "k"})
    assert r.status_code == 409 and r.json["code"] == "not_your_turn"


def test_bad_create_bodies_are_422(client: FlaskClient) -> None:
    cases = [
        ({"players": [{"name": "ann"}]}, "invalid_body"),
        ({"players": [{"name": "a"}, {"name": "b"}], "rules": {"jokers": 99}}, "invalid_rules"),
        ({"players": [{"name": "a"}, {"name": "b"}], "rules": {"colour": 1}}, "invalid_rules"),
        ({"players": [{"name": "a"}, {"name": "b"}], "seed": "x" * 65}, "invalid_body"),
        ({"players": [{"name": "a"}] * 7, "rules": {"preset": "bga"}}, "invalid_rules"),
        ({"players": [{}, {}]}, "invalid_body"),
    ]
    for body, code in cases:
        r = client.post("/v1/games", json=body)
        assert (r.status_code, r.json["code"]) == (422, code), body


def test_a_non_json_body_is_415_and_an_oversized_one_413(client: FlaskClient) -> None:
    r = client.post("/v1/games", data="players=ann", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 415 and r.json["code"] == "unsupported_media_type"
    r = client.post("/v1/solve", data="[" + "1," * 40000 + "1]", content_type="application/json")
    assert r.status_code == 413 and r.mimetype == "application/problem+json"
    assert r.json["code"] == "body_too_large"


def test_state_events_and_replies_share_one_hash_tag_and_carry_the_ttl(
    table: Table, redis_db: redis.Redis
) -> None:
    seat = _current(table)
    table.act(seat, {"type": "draw", "source": "stock"}, **{"Idempotency-Key": "k"})
    # the lobby's listings are the only keys shared by games (one slot of their own)
    keys = sorted(k.decode() for k in redis_db.keys("*") if not k.startswith(b"ttt:{lobby}:"))
    assert len(keys) == 3
    assert all(k.startswith(f"ttt:{{{table.game_id}}}:") for k in keys)
    for key in keys:
        assert 0 < redis_db.ttl(key) <= 24 * 3600


def test_every_write_refreshes_the_games_ttl(table: Table, redis_db: redis.Redis) -> None:
    key = f"ttt:{{{table.game_id}}}:game"
    redis_db.expire(key, 100)
    redis_db.expire(f"ttt:{{{table.game_id}}}:events", 100)
    table.act(_current(table), {"type": "draw", "source": "stock"})
    assert redis_db.ttl(key) > 3000
    assert redis_db.ttl(f"ttt:{{{table.game_id}}}:events") > 3000


def test_tokens_are_stored_only_as_sha256_hashes(table: Table, redis_db: redis.Redis) -> None:
    dump = b"".join(
        redis_db.dump(k) or b"" for k in redis_db.keys("*")
    )
    for token in table.tokens:
        assert token is not None
        assert token.encode() not in dump
        assert hashlib.sha256(token.encode()).hexdigest().encode() in dump


def test_the_stored_state_is_compact(table: Table, redis_db: redis.Redis) -> None:
    assert len(redis_db.hget(f"ttt:{{{table.game_id}}}:game", "s")) < 4096


def test_a_long_poll_returns_as_soon_as_another_seat_moves(
    table: Table, client: FlaskClient
) -> None:
    seat = _current(table)
    result: dict[str, object] = {}

    def wait() -> None:
        r = client.get(f"/v1/games/{table.game_id}?wait_version=0&timeout=120",
                       headers=table.auth(1 - seat))
        result.update(version=r.json["version"], took=time.monotonic() - start)

    waiter = threading.Thread(target=wait)
    start = time.monotonic()
    waiter.start()
    time.sleep(0.3)
    assert table.act(seat, {"type": "draw", "source": "stock"}).status_code == 200
    waiter.join(PATIENCE)
    assert result["version"] == 1
    # woken by the move, not timed out (120 s)
    assert 0.3 < float(result["took"]) < 60  # type: ignore[arg-type]


def test_a_long_poll_on_an_old_version_returns_at_once_and_times_out_otherwise(
    table: Table, client: FlaskClient
) -> None:
    table.act(_current(table), {"type": "draw", "source": "stock"})
    start = time.monotonic()
    r = client.get(f"/v1/games/{table.game_id}?wait_version=0&timeout=120")
    assert r.json["version"] == 1 and time.monotonic() - start < 60  # not the 120 s
    start = time.monotonic()
    r = client.get(f"/v1/games/{table.game_id}?wait_version=1&timeout=0.4")
    assert r.status_code == 200 and r.json["version"] == 1
    assert 0.35 < time.monotonic() - start < 60  # its 0.4 s, not the cap (120 s)


def test_bad_query_parameters_are_422_invalid_query(table: Table, client: FlaskClient) -> None:
    for query in ("wait_version=-1", "wait_version=x", "timeout=soon", "timeout=-1"):
        r = client.get(f"/v1/games/{table.game_id}?{query}")
        assert r.status_code == 422 and r.json["code"] == "invalid_query", query
    r = client.get(f"/v1/games/{table.game_id}/events?limit=0")
    assert r.status_code == 422 and r.json["code"] == "invalid_query"


def test_events_are_resumable_and_private_cards_reach_only_their_seat(table: Table) -> None:
    seat = _current(table)
    table.act(seat, {"type": "draw", "source": "stock"})
    mine = table.events(seat)
    theirs = table.events(1 - seat)
    public = table.events(None)
    assert [e["seq"] for e in mine] == [e["seq"] for e in public] == [1, 2]
    assert mine[1]["type"] == "draw" and "card" in mine[1]
    assert "card" not in theirs[1] and "card" not in public[1]
    assert "hand" in mine[0] and "hand" in theirs[0] and mine[0]["hand"] != theirs[0]["hand"]
    assert "hand" not in public[0]
    assert table.events(seat, after=1) == mine[1:]


def test_events_page_with_limit_and_next_after(table: Table, client: FlaskClient) -> None:
    seat = _current(table)
    table.act(seat, {"type": "draw", "source": "stock"})
    r = client.get(f"/v1/games/{table.game_id}/events?limit=1")
    assert r.json["next_after"] == 1 and r.json["more"] is True
    r = client.get(f"/v1/games/{table.game_id}/events?after=1&limit=1")
    assert r.json["next_after"] == 2 and r.json["more"] is False


def test_an_events_long_poll_wakes_on_the_next_event(table: Table, client: FlaskClient) -> None:
    seat = _current(table)
    got: list[int] = []

    def wait() -> None:
        r = client.get(f"/v1/games/{table.game_id}/events?after=1&timeout=3")
        got.extend(e["seq"] for e in r.json["events"])

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)
    table.act(seat, {"type": "draw", "source": "stock"})
    waiter.join(PATIENCE)
    assert got == [2]


def test_open_seats_are_claimed_once_and_the_game_waits_for_them(client: FlaskClient) -> None:
    table = new_table(client, players=[{"name": "ann"}, {"name": None}])
    assert table.tokens[1] is None
    assert table.created["seats"][1] == {"seat": 1, "kind": "open", "name": None, "open": True,
                                         "bot": None, "token": None}
    assert table.created["state"]["open_seats"] == [1]
    starter = _current(table)
    if starter == 0:
        r = table.act(0, {"type": "draw", "source": "stock"})
        assert r.status_code == 409 and r.json["code"] == "seats_open"
        assert r.json["open_seats"] == [1]
    r = client.post(f"/v1/games/{table.game_id}/seats/1/claim", json={"name": "bot"})
    assert r.status_code == 200 and r.headers["ETag"] == '"1"'
    claimed = r.json
    assert claimed["seat"] == 1 and len(claimed["token"]) >= 40
    assert claimed["state"]["you"]["seat"] == 1 and claimed["state"]["open_seats"] == []
    assert claimed["state"]["players"][1]["name"] == "bot"
    table.tokens[1] = claimed["token"]
    assert table.act(starter, {"type": "draw", "source": "stock"}).status_code == 200
    again = client.post(f"/v1/games/{table.game_id}/seats/1/claim", json={"name": "eve"})
    assert again.status_code == 409 and again.json["code"] == "seat_taken"
    taken = client.post(f"/v1/games/{table.game_id}/seats/0/claim", json={"name": "eve"})
    assert taken.status_code == 409
    missing = client.post(f"/v1/games/{table.game_id}/seats/5/claim", json={"name": "eve"})
    assert missing.status_code == 404 and missing.json["code"] == "unknown_seat"
    assert [e["type"] for e in table.events()][:2] == ["round_started", "seat_claimed"]


def test_while_seats_are_open_nobody_has_legal_actions(client: FlaskClient) -> None:
    table = new_table(client, players=[{"name": "ann"}, {"name": None}])
    view = table.view(0)
    assert view["legal_actions"] == [] and view["players"][1]["open"] is True


def test_a_claim_wakes_a_creator_long_polling_for_an_opponent(client: FlaskClient) -> None:
    table = new_table(client, players=[{"name": "ann"}, {"name": None}])
    seen: list[int] = []
    waiter = threading.Thread(
        target=lambda: seen.append(
            client.get(f"/v1/games/{table.game_id}?wait_version=0&timeout=10",
                       headers=table.auth(0)).json["version"]
        )
    )
    waiter.start()
    time.sleep(0.3)
    client.post(f"/v1/games/{table.game_id}/seats/1/claim", json={"name": "bot"})
    waiter.join(PATIENCE)
    assert seen == [1]


def test_wait_turn_sleeps_through_the_others_moves_and_returns_on_the_callers_turn(
    table: Table, client: FlaskClient
) -> None:
    seat = _current(table)
    result: dict[str, object] = {}

    def wait() -> None:
        r = client.get(f"/v1/games/{table.game_id}?wait=turn&timeout=120",
                       headers=table.auth(1 - seat))
        result.update(status=r.status_code, body=r.json, took=time.monotonic() - start)

    waiter = threading.Thread(target=wait)
    start = time.monotonic()
    waiter.start()
    time.sleep(0.2)
    draw = table.act(seat, {"type": "draw", "source": "stock"})
    assert draw.status_code == 200
    time.sleep(0.5)  # the draw woke the wait inside the server, which parked again
    assert waiter.is_alive()
    card = next(a["card"] for a in draw.json["legal_actions"] if a["type"] == "discard")
    assert table.act(seat, {"type": "discard", "card": card}).status_code == 200
    waiter.join(PATIENCE)
    body = result["body"]
    assert result["status"] == 200 and body["version"] == 2  # type: ignore[index]
    assert body["legal_actions"] and body["round"]["current_seat"] == 1 - seat  # type: ignore[index]
    assert 0.7 < float(result["took"]) < 60  # type: ignore[arg-type]  # the turn, not 120 s


def test_wait_turn_answers_at_once_on_the_callers_turn_and_times_out_otherwise(
    table: Table, client: FlaskClient
) -> None:
    seat = _current(table)
    start = time.monotonic()
    r = client.get(f"/v1/games/{table.game_id}?wait=turn&timeout=120", headers=table.auth(seat))
    assert r.status_code == 200 and r.json["legal_actions"]
    assert time.monotonic() - start < 60  # at once, not after the 120 s
    start = time.monotonic()
    r = client.get(f"/v1/games/{table.game_id}?wait=turn&timeout=0.4",
                   headers=table.auth(1 - seat))
    assert r.status_code == 200 and r.json["legal_actions"] == [] and r.json["version"] == 0
    assert 0.35 < time.monotonic() - start < 60  # its 0.4 s, not the cap (120 s)


def test_wait_turn_for_a_spectator_waits_for_the_end_and_beats_wait_version(
    table: Table, client: FlaskClient
) -> None:
    """A spectator is never on turn: wait=turn times out (the game is not over); with
    both waits the turn wins, so a version change alone does not answer."""
    start = time.monotonic()
    r = client.get(f"/v1/games/{table.game_id}?wait=turn&timeout=0.4")
    assert r.status_code == 200 and r.json["you"] is None and r.json["version"] == 0
    assert 0.35 < time.monotonic() - start < 60  # its 0.4 s, not the cap (120 s)
    seat = _current(table)
    start = time.monotonic()
    r = client.get(f"/v1/games/{table.game_id}?wait=turn&wait_version=5&timeout=0.4",
                   headers=table.auth(1 - seat))
    assert r.status_code == 200 and r.json["legal_actions"] == []
    assert 0.35 < time.monotonic() - start < 60  # its 0.4 s, not the cap (120 s)
    r = client.get(f"/v1/games/{table.game_id}?wait=you&timeout=1", headers=table.auth(0))
    assert r.status_code == 422 and r.json["code"] == "invalid_query"


def test_views_of_one_version_stay_per_seat_when_served_from_the_render_cache(
    table: Table, client: FlaskClient
) -> None:
    """Rendered views are remembered per (game, version, seat, open seats): reading the
    same version as each seat and as a spectator, twice, must never mix them up."""
    for _ in range(2):
        hands = [table.view(s)["you"]["hand"] for s in (0, 1)]
        assert table.view(None)["you"] is None
        for seat in (0, 1):
            assert table.view(seat)["you"]["seat"] == seat
    seat = _current(table)
    after = table.act(seat, {"type": "draw", "source": "stock"}).json
    assert after["version"] == 1 and len(after["you"]["hand"]) == len(hands[seat]) + 1
    assert table.view(1 - seat)["version"] == 1


def test_every_save_publishes_the_new_version_on_the_games_channel(
    app, table: Table, redis_db: redis.Redis
) -> None:
    """On one Redis by PUBLISH; on a Redis 7 Cluster by SPUBLISH on the game's shard
    (which only SSUBSCRIBE hears), as the app's hub listens: like the hub, the test
    subscribes on a connection to the node that owns the channel."""
    sharded = app.extensions["three_thirteen"].stores.games.connection.hub.sharded
    channel = f"ttt:{{{table.game_id}}}:moved"
    node_client = redis_db
    if isinstance(redis_db, redis.RedisCluster):
        node_client = redis_db.get_redis_connection(redis_db.get_node_from_key(channel))
    pubsub = node_client.pubsub(ignore_subscribe_messages=True)
    (pubsub.ssubscribe if sharded else pubsub.subscribe)(channel)
    pubsub.get_message(timeout=1)  # the subscription's confirmation
    seat = _current(table)
    table.act(seat, {"type": "draw", "source": "stock"})
    message = pubsub.get_message(timeout=2)
    assert message is not None and message["data"] == b"1"
    pubsub.close()


def test_a_view_rendered_for_an_attempt_that_lost_the_race_is_never_served(
    app, table: Table, client: FlaskClient
) -> None:
    """The reply to an action is rendered before its compare-and-set. When the save loses
    (another request of the seat won in between), that reply's state never existed: its
    view must not be remembered for the version, or the winner would be served it."""
    from dataclasses import replace

    from service.core.cards import card_names

    services = app.extensions["three_thirteen"]
    seat = _current(table)
    auth = table.auth(seat)
    url = f"/v1/games/{table.game_id}/actions"
    winner: dict[str, object] = {}

    class RacingGames:
        def __init__(self, inner) -> None:
            self.inner, self.raced = inner, False

        def __getattr__(self, name: str):
            return getattr(self.inner, name)

        def save(self, *args, **kwargs):
            if not self.raced:  # the other request of the seat wins in between
                self.raced = True
                r = client.post(url, json={"type": "draw", "source": "discard"}, headers=auth)
                winner.update(status=r.status_code, hand=r.json["you"]["hand"])
            return self.inner.save(*args, **kwargs)

    racing = replace(services.stores, games=RacingGames(services.stores.games))
    app.extensions["three_thirteen"] = replace(services, stores=racing)
    try:
        loser = client.post(url, json={"type": "draw", "source": "stock"}, headers=auth)
    finally:
        app.extensions["three_thirteen"] = services
    assert loser.status_code == 409  # re-validated on the winner's state: drawn already
    stored = services.stores.games.load(table.game_id).state
    assert stored.version == 1
    hand = card_names(stored.hands[seat])
    assert winner["status"] == 200 and sorted(winner["hand"]) == sorted(hand)
    assert sorted(table.view(seat)["you"]["hand"]) == sorted(hand)
