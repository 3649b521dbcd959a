"""What caches and browsers are told: a body that differs by bearer is never handed to
another bearer, and CORS headers come once on every response, error or not."""

from __future__ import annotations

from dataclasses import replace

from flask import Flask
from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config

from .conftest import Table, new_table


def _vary(response) -> set[str]:  # type: ignore[no-untyped-def]
    return {v.strip().lower() for v in response.headers.get("Vary", "").split(",") if v.strip()}


def test_a_seats_view_is_private_and_keyed_by_authorization(table: Table,
                                                            client: FlaskClient) -> None:
    r = client.get(f"/v1/games/{table.game_id}", headers=table.auth(0))
    assert r.headers["Cache-Control"] == "private, no-cache"
    assert "authorization" in _vary(r)
    assert r.headers["ETag"] == '"0"'


def test_a_spectators_view_is_keyed_by_authorization_too(table: Table,
                                                         client: FlaskClient) -> None:
    r = client.get(f"/v1/games/{table.game_id}")
    assert "authorization" in _vary(r)
    assert "no-cache" in r.headers["Cache-Control"]


def test_if_none_match_never_lets_one_bearer_revalidate_another_bearers_body(
    table: Table, client: FlaskClient
) -> None:
    url = f"/v1/games/{table.game_id}"
    held = client.get(url, headers=table.auth(0))  # what seat 0's browser cached
    for seat in (1, None):  # seat 1, then a spectator, revalidate that copy
        r = client.get(url, headers={**table.auth(seat), "If-None-Match": held.headers["ETag"]})
        assert r.status_code == 200
        assert r.json["you"] == (None if seat is None else
                                 {"seat": 1, "hand": r.json["you"]["hand"],
                                  "can_abort": r.json["you"]["can_abort"]})
        assert r.json["you"] != held.json["you"]


def test_events_with_a_token_are_private_and_keyed_by_authorization(
    table: Table, client: FlaskClient
) -> None:
    mine = client.get(f"/v1/games/{table.game_id}/events", headers=table.auth(0))
    assert mine.headers["Cache-Control"] == "private, no-cache"
    assert "authorization" in _vary(mine)
    public = client.get(f"/v1/games/{table.game_id}/events")
    assert "authorization" in _vary(public)


def test_an_actions_reply_is_private_and_if_match_with_the_plain_version_still_works(
    table: Table,
) -> None:
    seat = table.view(0)["round"]["current_seat"]
    stale = table.act(seat, {"type": "draw", "source": "stock"}, **{"If-Match": '"7"'})
    assert stale.status_code == 412
    r = table.act(seat, {"type": "draw", "source": "stock"}, **{"If-Match": '"0"'})
    assert r.status_code == 200 and r.headers["ETag"] == '"1"'
    assert r.headers["Cache-Control"] == "private, no-cache"
    assert "authorization" in _vary(r)
    again = table.act(seat, {"type": "discard", "card": r.json["you"]["hand"][0]},
                      **{"Idempotency-Key": "k1"})
    replay = table.act(seat, {"type": "discard", "card": r.json["you"]["hand"][0]},
                       **{"Idempotency-Key": "k1"})
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert replay.data == again.data
    assert replay.headers["Cache-Control"] == "private, no-cache"


def test_responses_that_carry_a_token_are_never_stored(client: FlaskClient) -> None:
    table = new_table(client, players=[{"name": "ann"}, {"name": None}])
    created = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}]})
    assert created.headers["Cache-Control"] == "no-store"
    claimed = client.post(f"/v1/games/{table.game_id}/seats/1/claim", json={"name": "bob"})
    assert claimed.status_code == 200 and claimed.headers["Cache-Control"] == "no-store"


def _cors_app(config: Config, origins: str) -> FlaskClient:
    app: Flask = create_app(replace(config, cors_origins=origins))
    return app.test_client()


def test_cors_headers_come_exactly_once_on_successes_and_errors(config: Config,
                                                                redis_db: object) -> None:
    for origins in ("*", "https://a.example"):
        client = _cors_app(config, origins)
        requests = [
            ("get", "/v1/games/nosuchgame", {}),            # 404 problem
            ("get", "/healthz", {}),                         # 200
            ("post", "/v1/games/nosuchgame/actions", {}),    # 401 problem
            ("delete", "/healthz", {}),                      # 405 from werkzeug
            ("get", "/v1/rules/presets", {}),                # 200
            ("get", "/no/such/route", {}),                   # 404 from werkzeug
        ]
        # twice over, in both orders: what a worker answered first must not matter
        for order in (requests, list(reversed(requests))):
            for origin in ({}, {"Origin": "https://a.example"}):
                for method, path, extra in order:
                    r = getattr(client, method)(path, headers={**origin, **extra})
                    allow = r.headers.getlist("Access-Control-Allow-Origin")
                    exposed = r.headers.getlist("Access-Control-Expose-Headers")
                    assert len(allow) == 1, (origins, origin, method, path, r.status_code)
                    assert len(exposed) == 1, (origins, origin, method, path, r.status_code)
