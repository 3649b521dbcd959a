"""``GET /v1/games/{id}/events?after=N``: a cursor beyond the game's newest event was never
handed out, so it is refused (422 ``invalid_cursor``) instead of waited on."""

from __future__ import annotations

from flask.testing import FlaskClient

from .conftest import Table


def test_a_cursor_beyond_the_newest_event_is_422_invalid_cursor_even_with_a_timeout(
    table: Table, client: FlaskClient
) -> None:
    newest = table.events()[-1]["seq"]
    r = client.get(f"/v1/games/{table.game_id}/events?after={newest + 1}&timeout=3")
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    assert r.json["code"] == "invalid_cursor"
    assert r.json["newest"] == newest and "after" in r.json["errors"]["query"]


def test_the_newest_events_seq_is_still_a_cursor_with_nothing_after_it(
    table: Table, client: FlaskClient
) -> None:
    newest = table.events()[-1]["seq"]
    r = client.get(f"/v1/games/{table.game_id}/events?after={newest}&timeout=0")
    assert r.status_code == 200
    assert r.json["events"] == [] and r.json["next_after"] == newest
