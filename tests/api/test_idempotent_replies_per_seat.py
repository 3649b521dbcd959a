"""Idempotent replies are kept one per seat: its latest keyed action's, compressed.

A client retries only its latest request (it waits for the answer before sending the
next), so the service keeps that one reply per seat instead of one per action (which
made replies 95 % of a game's Redis memory). These tests hold it to what that must not
lose: a retry still gets the first response byte for byte, however the game moved since;
an older, superseded key of the seat is refused and never acts twice; and a whole game
leaves one reply key per seat.
"""

from __future__ import annotations

from typing import Any

import redis

from .conftest import Table


def _turn(table: Table, seat: int, prefix: str) -> list[tuple[dict[str, Any], Any]]:
    """``seat`` draws from the stock and discards its first card, each with a key
    (``<prefix>-draw``, ``<prefix>-discard``); the actions and their responses."""
    draw = {"type": "draw", "source": "stock"}
    drew = table.act(seat, draw, **{"Idempotency-Key": f"{prefix}-draw"})
    assert drew.status_code == 200, drew.json
    discard = {"type": "discard", "card": drew.json["you"]["hand"][0]}
    threw = table.act(seat, discard, **{"Idempotency-Key": f"{prefix}-discard"})
    assert threw.status_code == 200, threw.json
    return [(draw, drew), (discard, threw)]


def test_a_retry_after_the_other_seats_moved_gets_the_first_response_byte_for_byte(
        table: Table) -> None:
    seat = table.view()["round"]["current_seat"]
    _, (discard, threw) = _turn(table, seat, "a")
    _turn(table, 1 - seat, "b")  # the other seat moves: the game is two versions on
    before = table.view()
    again = table.act(seat, discard, **{"Idempotency-Key": "a-discard"})
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.data == threw.data and again.headers["ETag"] == threw.headers["ETag"]
    assert table.view() == before  # nothing acted again


def test_an_older_key_of_the_seat_is_409_superseded_and_acts_not_again(
        table: Table) -> None:
    seat = table.view()["round"]["current_seat"]
    (draw, _), _ = _turn(table, seat, "a")
    _turn(table, 1 - seat, "b")
    # the seat's first draw again under its superseded key, on its turn to draw: acting
    # on it would draw a second card
    before, events = table.view(), table.events()
    r = table.act(seat, draw, **{"Idempotency-Key": "a-draw"})
    assert r.status_code == 409 and r.mimetype == "application/problem+json"
    assert r.json["code"] == "idempotency_key_superseded"
    assert table.view() == before and table.events() == events


def test_the_latest_key_still_replays_after_an_older_one_was_refused(table: Table) -> None:
    seat = table.view()["round"]["current_seat"]
    (draw, _), (discard, threw) = _turn(table, seat, "a")
    assert table.act(seat, draw, **{"Idempotency-Key": "a-draw"}).status_code == 409
    again = table.act(seat, discard, **{"Idempotency-Key": "a-discard"})
    assert again.status_code == 200 and again.data == threw.data


def test_a_whole_turn_cycle_keeps_one_reply_key_per_seat(
        table: Table, redis_db: redis.Redis) -> None:
    seat = table.view()["round"]["current_seat"]
    for n in range(3):
        _turn(table, seat, f"a{n}")
        _turn(table, 1 - seat, f"b{n}")
    replies = redis_db.keys(f"ttt:{{{table.game_id}}}:reply:*")
    assert len(replies) == 2  # 12 keyed actions, one reply per seat
    assert all(0 < redis_db.ttl(k) <= 3600 for k in replies)
    # each holds its latest reply compressed: well under the 2 KB of one view
    assert all(redis_db.strlen(k) < 1200 for k in replies)
