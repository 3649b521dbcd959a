"""Ratings over HTTP on a real Redis: a rated challenge played to its end moves both
players' ratings once the rating worker has applied it; profiles, histories and
leaderboards show them as the contract names them; rated games that a rating would not
mean the same in are refused when they are asked for."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.config import Config
from service.storage import Stores, redis_stores
from service.workers.ratings import RatingWorker
from tests.api.conftest import done
from tests.api.test_accounts import key_auth, register


@pytest.fixture
def rater(config: Config, redis_db: Any) -> Iterator[RatingWorker]:
    stores: Stores = redis_stores(config)
    yield RatingWorker(stores)
    stores.close()


def rated_challenge(client: FlaskClient, challenger: str, to: str, **body: Any) -> Any:
    return done(client.post("/v1/challenges", headers=key_auth(challenger), json={
        "to": [to], "rules": {"preset": "classic"}, "turn_seconds": 60, "rated": True,
        **body}))


def test_a_rated_game_moves_both_ratings_once_the_worker_applied_it(
        client: FlaskClient, rater: RatingWorker) -> None:
    ann, bob = register(client, "ann"), register(client, "bob")
    fresh = client.get("/v1/accounts/ann").json["ratings"]
    assert fresh == {p: {"rating": 1500.0, "deviation": 350.0, "games": 0,
                         "provisional": True} for p in ("classic", "bga", "family")}
    made = rated_challenge(client, ann, "bob")
    assert made.status_code == 201, made.json
    accepted = done(client.post(f"/v1/challenges/{made.json['challenge_id']}/accept",
                                headers=key_auth(bob)))
    game_id = accepted.json["game_id"]
    view = client.get(f"/v1/games/{game_id}").json
    assert view["rated"] is True and view["rules"]["preset"] == "classic"
    r = done(client.post(f"/v1/games/{game_id}/actions", headers=key_auth(bob),
                         json={"type": "resign"}))
    assert r.status_code == 200, r.json
    assert client.get("/v1/accounts/bob").json["ratings"]["classic"]["games"] == 0
    assert rater.step() and not rater.step()
    ann_now = client.get("/v1/accounts/ann").json["ratings"]["classic"]
    bob_now = client.get("/v1/accounts/bob").json["ratings"]["classic"]
    assert ann_now["games"] == bob_now["games"] == 1
    assert ann_now["rating"] > 1500 > bob_now["rating"] and ann_now["provisional"]
    assert ann_now["rating"] - 1500 == pytest.approx(1500 - bob_now["rating"], abs=0.02)
    history = client.get("/v1/accounts/ann/ratings/classic")
    assert history.status_code == 200
    assert history.json["rating"] == ann_now and history.json["next_start"] is None
    assert [(p["game_id"], p["place"], p["players"]) for p in history.json["history"]] == [
        (game_id, 1, 2)]
    record = client.get(f"/v1/games/{game_id}/record").json
    assert record["rated"] is True and record["places"] == [1, 2]
    # provisional ratings are on no leaderboard; the bots' board shows the anchors
    board = client.get("/v1/leaderboards/classic").json
    assert board == {"preset": "classic", "bot": False, "entries": [], "next_start": None}
    bots = client.get("/v1/leaderboards/classic?bot=true&limit=2").json
    assert [(e["rank"], e["handle"], e["bot"]) for e in bots["entries"]] == [
        (1, "expert", True), (2, "strong", True)]
    assert bots["next_start"] == 2
    assert set(bots["entries"][0]) == {"rank", "handle", "bot", "rating", "deviation", "games"}


def test_rated_games_a_rating_would_not_mean_the_same_in_are_refused_when_asked_for(
        client: FlaskClient) -> None:
    ann = register(client, "ann")
    register(client, "bob")
    house_rules = rated_challenge(client, ann, "bob", rules={"preset": "classic",
                                                             "hand_sizes": [3]})
    assert house_rules.status_code == 422 and house_rules.json["code"] == "invalid_rules"
    assert "preset's rules unchanged" in house_rules.json["detail"]
    no_clock = rated_challenge(client, ann, "bob", turn_seconds=None)
    assert no_clock.status_code == 422, no_clock.json
    seek = done(client.post("/v1/seeks", headers=key_auth(ann), json={
        "players": 2, "rules": {"preset": "bga", "jokers": 0}, "rated": True}))
    assert seek.status_code == 422 and seek.json["code"] == "invalid_rules"


def test_unknown_presets_and_handles_and_bad_queries_are_answered_as_problems(
        client: FlaskClient) -> None:
    register(client, "ann")
    assert client.get("/v1/leaderboards/poker").json["code"] == "unknown_preset"
    assert client.get("/v1/leaderboards/poker").status_code == 404
    assert client.get("/v1/accounts/ann/ratings/poker").json["code"] == "unknown_preset"
    assert client.get("/v1/accounts/nobody/ratings/classic").json["code"] == "unknown_account"
    bad = client.get("/v1/leaderboards/classic?bot=yes")
    assert bad.status_code == 422 and bad.json["code"] == "invalid_query"
    assert client.get("/v1/leaderboards/classic?limit=0").status_code == 422
    greedy = client.get("/v1/accounts/greedy").json
    assert greedy["reference"] is True and greedy["ratings"]["classic"] == {
        "rating": 1500.0, "deviation": 50.0, "games": 0, "provisional": False}
