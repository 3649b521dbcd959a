"""``GET /v1/games/{id}/stream`` over the Flask test client on a real Redis: formats,
resuming, tickets, heartbeats, 406 and the parked-request limit."""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from tests.api.conftest import Table

NDJSON = {"Accept": "application/x-ndjson"}


def stream_app(config: Config, **settings: Any) -> Flask:
    app = create_app(replace(config, **settings))
    app.config["TESTING"] = True
    return app


def ndjson_lines(response: Any) -> Iterator[dict[str, Any] | None]:
    """The stream's NDJSON messages (``None``: a heartbeat, an empty line)."""
    buffer = b""
    for chunk in response.response:
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            yield orjson.loads(line) if line else None


def sse_messages(response: Any) -> Iterator[dict[str, str]]:
    """The stream's SSE blocks as field → value (a comment is ``{":": text}``)."""
    buffer = b""
    for chunk in response.response:
        buffer += chunk
        while b"\n\n" in buffer:
            block, buffer = buffer.split(b"\n\n", 1)
            fields: dict[str, str] = {}
            for line in block.decode().split("\n"):
                name, _, value = line.partition(":")
                fields[name or ":"] = value.removeprefix(" ")
            yield fields


def until_view(lines: Iterator[dict[str, Any] | None]) -> tuple[list[dict], dict]:
    """The events up to the next view, and that view."""
    events = []
    for line in lines:
        if line is None:
            continue
        if line["type"] == "view":
            return events, line["view"]
        assert line["type"] == "event", line
        events.append(line["event"])
    raise AssertionError("the stream ended before a view")


def some_moves(table: Table, n: int) -> None:
    for _ in range(n):
        view = table.view(None)
        seat = view["round"]["current_seat"]
        legal = table.view(seat)["legal_actions"]
        assert table.act(seat, legal[0]).status_code == 200


def test_an_ndjson_stream_sends_the_missing_events_then_the_view_then_every_move(
    client: FlaskClient, table: Table
) -> None:
    some_moves(table, 2)
    r = client.get(f"/v1/games/{table.game_id}/stream?after=1", headers={
        **NDJSON, **table.auth(0)}, buffered=False)
    assert r.status_code == 200 and r.mimetype == "application/x-ndjson"
    assert r.headers["Cache-Control"] == "private, no-cache"
    assert r.headers["X-Accel-Buffering"] == "no" and "Authorization" in r.headers["Vary"]
    lines = ndjson_lines(r)
    events, view = until_view(lines)
    assert events == table.events(0, after=1)
    assert view == table.view(0)
    threading.Timer(0.1, some_moves, (table, 1)).start()
    events, view = until_view(lines)
    assert events and events[0]["seq"] == table.events(0)[-len(events)]["seq"]
    assert view == table.view(0) and view["version"] == 3
    r.close()


def test_a_stream_resumed_with_last_event_id_loses_and_repeats_nothing(
    client: FlaskClient, table: Table
) -> None:
    seen: list[dict] = []
    last_id = None
    for _ in range(3):  # connect, take what is there, drop the connection, move, resume
        headers = {"Accept": "text/event-stream"}
        if last_id is not None:
            headers["Last-Event-ID"] = last_id
        r = client.get(f"/v1/games/{table.game_id}/stream", headers=headers, buffered=False)
        assert r.mimetype == "text/event-stream"
        for message in sse_messages(r):
            if message.get("event") == "view":
                break
            if message.get("event") == "event":
                assert message["id"] == str(orjson.loads(message["data"])["seq"])
                last_id = message["id"]
                seen.append(orjson.loads(message["data"]))
        r.close()
        some_moves(table, 2)
    assert seen and seen == table.events(None)[:len(seen)]
    assert [e["seq"] for e in seen] == list(range(1, len(seen) + 1))


def test_an_sse_stream_starts_with_a_retry_hint_and_ends_with_one(
    config: Config, redis_db: Any
) -> None:
    app = stream_app(config, stream_max_seconds=1.0, stream_heartbeat_seconds=0.1)
    client = app.test_client()
    table = Table(client, {"players": [{"name": "ann"}, {"name": "bob"}], "seed": "7"})
    r = client.get(f"/v1/games/{table.game_id}/stream", buffered=False)  # no Accept: SSE
    assert r.mimetype == "text/event-stream" and r.headers["Cache-Control"] == "no-cache"
    messages = list(sse_messages(r))
    assert messages[0] == {"retry": "1000"}
    assert [m.get("event") for m in messages[1:3]] == ["event", "view"]
    assert {":": "ping"} in messages  # heartbeats while idle
    assert messages[-1]["event"] == "end" and messages[-1]["retry"] == "1000"
    assert orjson.loads(messages[-1]["data"]) == {"reason": "max_duration", "retry_ms": 1000}


def test_an_idle_ndjson_stream_sends_empty_lines_as_heartbeats(
    config: Config, redis_db: Any
) -> None:
    # a second of 0.1 s heartbeats: some, even on a loaded machine, and not a busy loop
    app = stream_app(config, stream_max_seconds=1.0, stream_heartbeat_seconds=0.1)
    client = app.test_client()
    table = Table(client, {"players": [{"name": "ann"}, {"name": "bob"}], "seed": "7"})
    start = time.monotonic()
    lines = list(ndjson_lines(client.get(f"/v1/games/{table.game_id}/stream", headers=NDJSON,
                                         buffered=False)))
    assert time.monotonic() - start >= 0.95
    assert [line and line["type"] for line in lines[:2]] == ["event", "view"]
    assert 3 <= lines.count(None) <= 12
    assert lines[-1] == {"type": "end", "reason": "max_duration", "retry_ms": 1000}


@pytest.mark.parametrize("accept", ["text/html", "application/json", "text/event-stream;q=0"])
def test_an_accept_that_allows_neither_format_is_406_not_acceptable(
    client: FlaskClient, table: Table, accept: str
) -> None:
    r = client.get(f"/v1/games/{table.game_id}/stream", headers={"Accept": accept})
    assert r.status_code == 406
    assert r.mimetype == "application/problem+json" and r.json["code"] == "not_acceptable"


def test_a_cursor_beyond_the_newest_event_is_422_invalid_cursor(
    client: FlaskClient, table: Table
) -> None:
    newest = table.events()[-1]["seq"]
    r = client.get(f"/v1/games/{table.game_id}/stream?after={newest + 1}")
    assert r.status_code == 422 and r.json["code"] == "invalid_cursor"
    for bad in ("x", "", " ", "１", "1" * 16):  # the documented pattern: 1 to 15 ASCII digits
        r = client.get(f"/v1/games/{table.game_id}/stream", headers={"Last-Event-ID": bad})
        assert r.status_code == 422 and r.json["code"] == "invalid_query", repr(bad)


def test_a_stream_ticket_opens_one_stream_as_its_seat_and_is_refused_the_second_time(
    client: FlaskClient, table: Table, redis_db: Any, caplog: pytest.LogCaptureFixture
) -> None:
    r = client.post(f"/v1/games/{table.game_id}/stream-tickets", headers=table.auth(1))
    assert r.status_code == 201 and r.json["expires_in"] == 30
    assert r.headers["Cache-Control"] == "no-store"
    ticket = r.json["ticket"]
    key = f"ttt:{{{table.game_id}}}:ticket:{hashlib.sha256(ticket.encode()).hexdigest()}"
    assert 0 < redis_db.ttl(key) <= 30  # stored by its hash, next to the game, expiring
    stored = redis_db.get(key).decode()
    assert table.tokens[1] not in stored and ticket not in stored
    path = f"/v1/games/{table.game_id}/stream?ticket={ticket}"
    with caplog.at_level(logging.INFO, logger="three_thirteen.request"):
        r = client.get(path, headers=NDJSON, buffered=False)
    assert r.status_code == 200 and r.headers["Cache-Control"] == "private, no-cache"
    events, view = until_view(ndjson_lines(r))
    assert view["you"]["seat"] == 1 and events == table.events(1)
    r.close()
    assert redis_db.exists(key) == 0
    assert "/v1/games/<game_id>/stream" in str([vars(r) for r in caplog.records])
    assert ticket not in str([vars(r) for r in caplog.records])  # the rule, not the query
    again = client.get(path, headers=NDJSON)
    assert again.status_code == 401 and again.json["code"] == "invalid_token"


def test_a_ticket_needs_a_seat_token(client: FlaskClient, table: Table) -> None:
    path = f"/v1/games/{table.game_id}/stream-tickets"
    assert client.post(path).status_code == 401
    assert client.post(path, headers={"Authorization": "Bearer nope"}).status_code == 401
    r = client.get(f"/v1/games/{table.game_id}/stream?ticket=made-up")
    assert r.status_code == 401


def test_a_ticket_outside_the_documented_form_is_a_422_naming_the_parameter(
    client: FlaskClient, table: Table
) -> None:
    for bad in ["x" * 65, "has space", "dot.ted", "é"]:
        r = client.get(f"/v1/games/{table.game_id}/stream", query_string={"ticket": bad})
        assert (r.status_code, r.json["code"]) == (422, "invalid_query"), bad
        assert "ticket" in r.json["errors"]["query"]
    r = client.get(f"/v1/games/{table.game_id}/stream", query_string={"ticket": "x" * 64})
    assert r.status_code == 401  # the longest documented form: looked up, not found


def test_each_open_stream_is_a_parked_request_of_its_token(
    config: Config, redis_db: Any
) -> None:
    app = stream_app(config, max_waits_per_token="1")
    client = app.test_client()
    table = Table(client, {"players": [{"name": "ann"}, {"name": "bob"}], "seed": "7"})
    path = f"/v1/games/{table.game_id}/stream"
    first = client.get(path, headers=table.auth(0), buffered=False)
    assert first.status_code == 200
    second = client.get(path, headers=table.auth(0))
    assert second.status_code == 429 and second.json["code"] == "too_many_waits"
    first.close()
    assert app.extensions["three_thirteen"].waits.held() == 0
    again = client.get(path, headers=table.auth(0), buffered=False)
    assert again.status_code == 200
    again.close()
