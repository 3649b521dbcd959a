"""A response that carries something deprecated says so: ``Deprecation`` (RFC 9745) and
``Sunset`` (RFC 8594) on every successful response of the operations that
``service/wire/deprecations.py`` names, and on no other; a browser's script may read both.

Today's entry: the ``round`` of a ``round_started`` event (its ``number`` under its old
name), which the event log and the stream carry.
"""

from __future__ import annotations

from email.utils import parsedate_to_datetime

from flask.testing import FlaskClient

from service.wire.deprecations import DEPRECATED

from .conftest import Table

(ROUND,) = DEPRECATED


def test_the_event_log_that_carries_round_started_says_when_its_round_goes(
        table: Table, client: FlaskClient) -> None:
    r = client.get(f"/v1/games/{table.game_id}/events?after=0")
    assert r.status_code == 200
    started = [e for e in r.json["events"] if e["type"] == "round_started"]
    assert started and started[0]["round"] == started[0]["number"] == 1  # still sent
    assert r.headers["Deprecation"] == f"@{int(ROUND.deprecated.timestamp())}"
    assert r.headers["Deprecation"] == "@1796169600"  # 2026-12-02T00:00:00Z
    assert r.headers["Sunset"] == "Wed, 31 Mar 2027 00:00:00 GMT"
    assert parsedate_to_datetime(r.headers["Sunset"]) == ROUND.sunset


def test_the_stream_says_it_too_before_its_first_line(table: Table, client: FlaskClient) -> None:
    r = client.get(f"/v1/games/{table.game_id}/stream",
                   headers={"Accept": "application/x-ndjson", **table.auth(0)}, buffered=False)
    try:
        assert r.status_code == 200
        assert r.headers["Deprecation"] == "@1796169600"
        assert r.headers["Sunset"] == "Wed, 31 Mar 2027 00:00:00 GMT"
    finally:
        r.close()


def test_responses_that_carry_nothing_deprecated_and_refusals_say_nothing(
        table: Table, client: FlaskClient) -> None:
    for r in (client.get(f"/v1/games/{table.game_id}"),  # a view: no event in it
              client.get("/v1/games/nosuchgame/events"),  # 404: no event either
              client.get(f"/v1/games/{table.game_id}/events?after=9999")):  # 422
        assert "Deprecation" not in r.headers and "Sunset" not in r.headers, r.status_code


def test_a_browsers_script_may_read_both_headers(table: Table, client: FlaskClient) -> None:
    r = client.get(f"/v1/games/{table.game_id}/events",
                   headers={"Origin": "https://a.example"})
    exposed = {h.strip() for h in r.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"Deprecation", "Sunset"} <= exposed
