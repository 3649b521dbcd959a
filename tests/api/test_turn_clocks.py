"""Turn clocks over HTTP: a seat that never acts is played by the service at each deadline
(the waiting opponent's long-poll wakes then and applies the time-out), and the game
finishes with only the other seat playing."""

from __future__ import annotations

import time
from datetime import datetime

import pytest
import redis
from flask.testing import FlaskClient

from service.engine.seats import AWAY_AFTER
from tests.conftest import PATIENCE

from .conftest import new_table
from .test_bot_seats import all_events, play_human


def test_every_view_shows_the_current_turns_deadline(client: FlaskClient) -> None:
    before = time.time()
    table = new_table(client, turn_seconds=30)
    for seat in (None, 0, 1):
        clock = table.view(seat)["clock"]
        assert clock["turn_seconds"] == 30
        at = datetime.fromisoformat(clock["deadline"]).timestamp()
        assert before + 30 <= at + 0.001 <= time.time() + 30.01
    assert new_table(client).view()["clock"] is None  # no clock by default


def test_a_game_with_an_open_seat_has_no_deadline_until_it_starts(client: FlaskClient) -> None:
    table = new_table(client, players=[{"name": "ann"}, {"name": None}], turn_seconds=5)
    assert table.view()["clock"] == {"turn_seconds": 5, "deadline": None}
    r = client.post(f"/v1/games/{table.game_id}/seats/1/claim", json={"name": "bob"})
    assert r.json["state"]["clock"]["deadline"] is not None


@pytest.mark.slow
def test_a_seat_that_never_acts_is_played_at_each_deadline_and_the_game_finishes(
    client: FlaskClient, redis_db: redis.Redis
) -> None:
    # ann's clock is the same 3 s: long enough for the test to move her on a loaded machine
    table = new_table(client, players=[{"name": "ann"}, {"name": "idle"}], turn_seconds=3,
                      rules={"preset": "classic", "hand_sizes": [3, 4, 5]}, seed="idle")
    final = play_human(client, redis_db, table, 0, scan=False)  # seat 1 never sends a thing
    assert final["status"] == "finished" and len(final["players"][1]["round_scores"]) == 3
    events = all_events(client, table)
    timed_out = [e for e in events if e["type"] == "turn_timed_out" and e["seat"] == 1]
    assert len(timed_out) == AWAY_AFTER  # then it is away
    assert [e["away"] for e in timed_out] == [False] * (AWAY_AFTER - 1) + [True]
    assert final["players"][1]["kind"] == "away" and final["players"][1]["bot"] == "greedy"
    # every later turn of the idle seat was played at once by its stand-in: a turn played
    # at its deadline would have logged one more time-out (wall time proves nothing here)
    assert sum(e.get("seat") == 1 and e["type"] in ("draw", "discard", "went_out")
               for e in events) > 2 * AWAY_AFTER
    # its owner comes back too late for this game; "back" is refused once it is over
    r = table.act(1, {"type": "back"})
    assert r.status_code == 409 and r.json["code"] == "illegal_action"


@pytest.mark.slow
def test_an_away_seat_plays_its_own_turns_again_once_its_owner_is_back(
    client: FlaskClient, redis_db: redis.Redis
) -> None:
    # both seats idle: the first is away after 2 time-outs, the second a 3 s turn later
    table = new_table(client, players=[{"name": "ann"}, {"name": "bob"}], turn_seconds=3,
                      rules={"preset": "classic", "hand_sizes": [7, 9, 11, 13]}, seed="back")
    deadline = time.monotonic() + PATIENCE
    view = table.view()
    while "away" not in [p["kind"] for p in view["players"]]:
        assert time.monotonic() < deadline
        view = client.get(f"/v1/games/{table.game_id}?wait_version={view['version']}"
                          "&timeout=5").json  # wakes at each time-out the wait applies
    away = [p["kind"] for p in view["players"]].index("away")
    r = table.act(away, {"type": "back"})
    assert r.status_code == 200 and r.json["players"][away]["kind"] == "human"
    assert r.json["players"][away]["bot"] is None
