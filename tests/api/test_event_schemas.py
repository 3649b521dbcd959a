"""Every event and stream message of real games matches its schema in the OpenAPI document
(``service/api/schemas/events.py``): the documented fields are the ones sent, for every
bearer, private fields included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
import redis
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator

from .conftest import new_table
from .test_full_games import play

DOCUMENT = json.loads(
    (Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())


def validator(component: str) -> Draft202012Validator:
    """A validator of ``component`` that resolves the document's ``$ref``s."""
    return Draft202012Validator({**DOCUMENT, "$ref": f"#/components/schemas/{component}"})


def all_events(client: FlaskClient, game_id: str, auth: dict[str, str]) -> dict[str, Any]:
    r = client.get(f"/v1/games/{game_id}/events?limit=1000", headers=auth)
    assert r.status_code == 200 and not r.json["more"]
    return r.json  # type: ignore[no-any-return]


@pytest.mark.slow
@pytest.mark.parametrize("rules", [{"preset": "classic", "hand_sizes": [3, 4]},
                                   {"preset": "bga", "hand_sizes": [3, 5], "lay_off": True}])
def test_every_event_of_a_whole_game_matches_its_documented_schema_for_every_bearer(
    client: FlaskClient, redis_db: redis.Redis, rules: dict[str, Any]
) -> None:
    table, _ = play(client, redis_db, rules, seed="schemas", players=3, scan=False)
    check = validator("EventsResponse")
    seen: set[str] = set()
    for seat in (0, 1, 2, None):
        body = all_events(client, table.game_id, table.auth(seat))
        errors = [e.message for e in check.iter_errors(body)]
        assert not errors, errors[:3]
        seen |= {e["type"] for e in body["events"]}
    assert {"round_started", "draw", "discard", "went_out", "laid_down", "round_ended",
            "game_finished"} <= seen


def test_a_claimed_seat_and_the_stream_messages_match_their_schemas(
    client: FlaskClient, redis_db: redis.Redis
) -> None:
    table = new_table(client, players=[{"name": "ann"}, {"name": None}], seed="7")
    r = client.post(f"/v1/games/{table.game_id}/seats/1/claim", json={"name": "bob"})
    assert r.status_code == 200
    body = all_events(client, table.game_id, {})
    assert "seat_claimed" in [e["type"] for e in body["events"]]
    assert not list(validator("EventsResponse").iter_errors(body))
    stream = client.get(f"/v1/games/{table.game_id}/stream",
                        headers={"Accept": "application/x-ndjson", **table.auth(0)},
                        buffered=False)
    lines = iter(stream.response)
    message = validator("StreamMessage")
    for _ in range(len(body["events"]) + 1):  # the events, then the view
        line = orjson.loads(next(lines))
        assert not [e.message for e in message.iter_errors(line)]
    assert line["type"] == "view"
    stream.close()
    end = {"type": "end", "reason": "shutdown", "retry_ms": 1000}
    assert not list(message.iter_errors(end))
    assert list(message.iter_errors({**end, "reason": "bored"}))  # the schema does refuse


@pytest.mark.slow
def test_the_seat_and_rematch_events_match_their_documented_schemas(
    client: FlaskClient, redis_db: redis.Redis
) -> None:
    from .test_bot_seats import play_human

    table = new_table(client, players=[{"name": "ann"}, {"name": "idle"}, {"bot": "strong"},
                                       {"name": "cy"}],
                      rules={"preset": "classic", "hand_sizes": [3, 4]}, turn_seconds=3,
                      seed="seat-events")
    assert table.act(3, {"type": "resign"}).status_code == 200
    play_human(client, redis_db, table, 0, scan=False)  # seat 1 times out, then is away
    for seat in (0, 1):  # cy resigned: she is not asked, her seat comes back open
        assert client.post(f"/v1/games/{table.game_id}/rematch",
                           headers=table.auth(seat)).status_code == 200
    check = validator("EventsResponse")
    seen: set[str] = set()
    for seat in (0, 1, 2, 3, None):
        auth = table.auth(seat) if seat != 2 else {}
        body = all_events(client, table.game_id, auth)
        errors = [e.message for e in check.iter_errors(body)]
        assert not errors, errors[:3]
        seen |= {e["type"] for e in body["events"]}
    assert {"seat_resigned", "turn_timed_out", "rematch_asked", "rematch_started"} <= seen
    view = client.get(f"/v1/games/{table.game_id}", headers=table.auth(0)).json
    assert not list(validator("GameView").iter_errors(view))
