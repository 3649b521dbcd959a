"""Rate limits (flask-limiter, counted in the test's real Redis): a token's wasted requests
(views with nothing new, refused requests) past its limit ⇒ 429 problem+json with
Retry-After and RateLimit-* headers, while requests that bring progress never count;
another token of the same game is unaffected; the per-address limit catches requests
without a token; creation past its quota ⇒ 429 creation_limited; health probes are
never limited."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient

from service.api.limits import LIMITER_CLIENT
from service.app import create_app
from service.config import Config
from tests.conftest import PATIENCE, redis_client, redis_url_for_tests


def _client(redis_server: str, **limits: str) -> Iterator[FlaskClient]:
    url = redis_url_for_tests(redis_server, 6)
    redis_client(url).flushdb()
    app = create_app(Config(redis_url=url, **limits))
    yield app.test_client()
    redis_client(url).flushdb()


@pytest.fixture
def limited(redis_server: str) -> Iterator[FlaskClient]:
    yield from _client(redis_server, rate_limit="5/minute", rate_limit_per_address="1000/minute")


def _game(client: FlaskClient) -> tuple[str, list[str]]:
    r = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}], "seed": "1"})
    assert r.status_code == 201
    return r.json["game_id"], [s["token"] for s in r.json["seats"]]


def _assert_limited(r) -> None:  # type: ignore[no-untyped-def]
    assert r.status_code == 429, r.data
    assert r.mimetype == "application/problem+json"
    assert r.json["code"] == "rate_limited" and r.json["status"] == 429
    assert 1 <= int(r.headers["Retry-After"]) <= 61


def test_a_busy_polling_token_gets_429_with_ratelimit_headers_and_others_are_unaffected(
    limited: FlaskClient,
) -> None:
    game, tokens = _game(limited)
    url = f"/v1/games/{game}"
    on_turn = limited.get(url).json["round"]["current_seat"]
    waiting, acting = tokens[1 - on_turn], tokens[on_turn]
    for n in range(5):  # not its turn, asked without waiting: nothing new each time
        r = limited.get(url, headers={"Authorization": f"Bearer {waiting}"})
        assert r.status_code == 200
        assert r.headers["RateLimit-Limit"] == "5"
        assert int(r.headers["RateLimit-Remaining"]) == 4 - n
        assert 0 <= int(r.headers["RateLimit-Reset"]) <= 61
        assert r.headers["RateLimit-Policy"] == "5;w=60"
    r = limited.get(url, headers={"Authorization": f"Bearer {waiting}"})
    _assert_limited(r)
    assert r.headers["RateLimit-Remaining"] == "0"
    _assert_limited(limited.post(f"{url}/actions", json={"type": "draw", "source": "stock"},
                                 headers={"Authorization": f"Bearer {waiting}"}))
    for _ in range(20):  # the seat on turn reading its turn: progress, never counted
        assert limited.get(url, headers={"Authorization": f"Bearer {acting}"}).status_code == 200
    assert limited.get(url).status_code == 200  # a spectator has no token limit
    assert limited.get("/healthz").status_code == 200
    assert limited.get("/readyz").status_code == 200


def test_asking_again_for_the_version_one_has_counts_even_on_ones_turn(limited) -> None:
    game, tokens = _game(limited)
    url = f"/v1/games/{game}"
    seat = limited.get(url).json["round"]["current_seat"]
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    etag = limited.get(url, headers=auth).headers["ETag"]
    for _ in range(5):
        assert limited.get(url, headers={**auth, "If-None-Match": etag}).status_code == 200
    _assert_limited(limited.get(url, headers={**auth, "If-None-Match": etag}))


def test_refused_actions_count_and_applied_ones_do_not(limited) -> None:
    game, tokens = _game(limited)
    url = f"/v1/games/{game}"
    seat = limited.get(url).json["round"]["current_seat"]
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    for _ in range(5):
        r = limited.post(f"{url}/actions", json={"type": "discard", "card": "XX"}, headers=auth)
        assert r.status_code in (409, 422)
    _assert_limited(limited.post(f"{url}/actions", json={"type": "draw", "source": "stock"},
                                 headers=auth))


def test_creating_games_past_the_address_quota_is_429_creation_limited(
    redis_server: str,
) -> None:
    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="off",
                          creation_limit_per_address="3/minute"):
        body = {"players": [{"name": "a"}, {"name": None}]}
        for _ in range(3):
            assert client.post("/v1/games", json=body).status_code == 201
        r = client.post("/v1/games", json=body)
        assert r.status_code == 429 and r.json["code"] == "creation_limited", r.json
        assert 1 <= int(r.headers["Retry-After"]) <= 61
        seek = client.post("/v1/seeks", json={"players": 2, "name": "s"})
        assert seek.status_code == 429 and seek.json["code"] == "creation_limited"
        # other requests of that address go on; another address has its own quota
        game = client.get("/v1/games").json["games"][0]["game_id"]
        assert client.post(f"/v1/games/{game}/seats/1/claim", json={"name": "b"}).status_code == 200
        other = client.post("/v1/games", json=body, environ_base={"REMOTE_ADDR": "10.9.8.7"})
        assert other.status_code == 201


def test_a_token_has_its_own_creation_quota_whatever_its_address(redis_server: str) -> None:
    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="off",
                          creation_limit_per_address="2/minute"):
        body = {"players": [{"name": "a"}, {"name": "b"}]}
        auth = {"Authorization": "Bearer some-token"}
        for n in range(2):
            addr = {"REMOTE_ADDR": f"10.0.0.{n}"}
            assert client.post("/v1/games", json=body, headers=auth,
                               environ_base=addr).status_code == 201
        r = client.post("/v1/games", json=body, headers=auth,
                        environ_base={"REMOTE_ADDR": "10.0.0.9"})
        assert r.status_code == 429 and r.json["code"] == "creation_limited"


def test_over_the_address_limit_is_429(redis_server: str) -> None:
    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="3/minute"):
        body = {"hand": ["5H"], "wild_rank": "K"}
        for _ in range(3):
            assert client.post("/v1/solve", json=body).status_code == 200
        _assert_limited(client.post("/v1/solve", json=body))
        other = client.post("/v1/solve", json=body, environ_base={"REMOTE_ADDR": "10.1.2.3"})
        assert other.status_code == 200
        for _ in range(20):
            assert client.get("/healthz").status_code == 200


def test_limits_can_be_turned_off(redis_server: str) -> None:
    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="off",
                          creation_limit_per_address="off", solve_limit="off",
                          account_limit_per_address="off"):
        for _ in range(30):
            assert client.post("/v1/solve", json={"hand": [], "wild_rank": "K"}).status_code == 200
        for n in range(15):
            assert client.post("/v1/accounts", json={"handle": f"p{n}"}).status_code == 201


def test_creating_accounts_past_the_address_quota_is_429_with_ratelimit_headers(
        redis_server: str) -> None:
    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="off",
                          account_limit_per_address="2/hour"):
        assert client.post("/v1/accounts", json={"handle": "p1"}).status_code == 201
        assert client.post("/v1/accounts", json={"handle": "p2"}).status_code == 201
        r = client.post("/v1/accounts", json={"handle": "p3"})
        assert r.status_code == 429 and r.json["code"] == "creation_limited", r.json
        assert r.headers["RateLimit-Limit"] == "2" and r.headers["RateLimit-Remaining"] == "0"
        assert int(r.headers["Retry-After"]) > 0
        # reading profiles is no creation
        assert client.get("/v1/accounts/p1").status_code == 200


def test_a_rematch_counts_against_the_creation_quota(redis_server: str) -> None:
    """A resign-then-rematch loop makes a game per loop: it is a creation like any."""
    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="off",
                          creation_limit_per_address="2/minute", bot_games_per_address="off"):
        body = {"players": [{"name": "a"}, {"name": "b"}], "rules": {"hand_sizes": [3]}}
        assert client.post("/v1/games", json=body).status_code == 201
        created = client.post("/v1/games", json=body).json
        auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}
        assert client.post(f"/v1/games/{created['game_id']}/actions", json={"type": "resign"},
                           headers=auth).status_code == 200  # bob is the last one left
        r = client.post(f"/v1/games/{created['game_id']}/rematch",
                        headers={"Authorization": f"Bearer {created['seats'][1]['token']}"})
        assert r.status_code == 429 and r.json["code"] == "creation_limited", r.json


def test_bot_games_past_the_addresss_weight_are_429_too_many_bot_games(
        redis_server: str) -> None:
    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="off",
                          creation_limit_per_address="off", bot_games_per_address="18"):
        strong = {"players": [{"name": "a"}, {"bot": "strong"}]}  # weighs 9
        for _ in range(2):
            assert client.post("/v1/games", json=strong).status_code == 201
        r = client.post("/v1/games", json=strong)
        assert r.status_code == 429 and r.json["code"] == "too_many_bot_games", r.json
        assert (r.json["held"], r.json["weight"], r.json["cap"]) == (18.0, 9.0, 18.0)
        assert int(r.headers["Retry-After"]) >= 1
        humans = {"players": [{"name": "a"}, {"name": "b"}]}
        assert client.post("/v1/games", json=humans).status_code == 201  # not held back
        other = client.post("/v1/games", json=strong, environ_base={"REMOTE_ADDR": "10.9.8.7"})
        assert other.status_code == 201


def test_challenging_past_the_accounts_quota_is_429_with_ratelimit_headers(
        redis_server: str) -> None:
    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="off",
                          account_limit_per_address="off", challenge_limit="3/minute"):
        ann = client.post("/v1/accounts", json={"handle": "ann"}).json["key"]
        bob = client.post("/v1/accounts", json={"handle": "bob"}).json["key"]
        for _ in range(3):
            r = client.post("/v1/challenges", json={"to": ["bob"]},
                            headers={"Authorization": f"Bearer {ann}"})
            assert r.status_code == 201, r.json
        r = client.post("/v1/challenges", json={"to": ["bob"]},
                        headers={"Authorization": f"Bearer {ann}"})
        assert r.status_code == 429 and r.json["code"] == "creation_limited", r.json
        assert r.headers["RateLimit-Limit"] == "3" and r.headers["RateLimit-Remaining"] == "0"
        assert int(r.headers["Retry-After"]) > 0
        # the quota is the account's: another account, from another address, still
        # challenges (from the same address, the address's quota is spent too)
        r = client.post("/v1/challenges", json={"to": ["ann"]},
                        headers={"Authorization": f"Bearer {bob}"})
        assert r.status_code == 429 and r.json["code"] == "creation_limited", r.json
        r = client.post("/v1/challenges", json={"to": ["ann"]},
                        headers={"Authorization": f"Bearer {bob}"},
                        environ_base={"REMOTE_ADDR": "10.9.8.7"})
        assert r.status_code == 201, r.json


#: One key, eight ways to say Bearer: each is the same account.
SPELLINGS = ("Bearer {}", "bearer {}", "BEARER {}", "BeArEr {}", "  Bearer {}", "Bearer  {}",
             "Bearer {}  ", "bEARER   {}")


def test_eight_spellings_of_one_key_make_the_accounts_twenty_challenges_a_minute(
        redis_server: str) -> None:
    """The audit's flood: the quota keyed on the header's bytes gave 160 challenges a
    minute to one key spelled eight ways. Keyed on the account, it is 20, whatever the
    spelling and whatever address each comes from."""
    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="off",
                          account_limit_per_address="off", creation_limit_per_address="off",
                          bot_games_per_address="off"):
        ann = client.post("/v1/accounts", json={"handle": "ann"}).json["key"]
        made, refused = 0, []
        for n in range(160):
            header = SPELLINGS[n % len(SPELLINGS)].format(ann)
            r = client.post("/v1/challenges", json={"to": ["random"], "rules": {
                "preset": "classic", "hand_sizes": [3]}}, headers={"Authorization": header},
                environ_base={"REMOTE_ADDR": f"10.0.{n // 200}.{n % 200 + 1}"})
            if r.status_code == 201:
                made += 1
            else:
                refused.append((r.status_code, r.json["code"]))
        assert made == 20
        assert set(refused) == {(429, "creation_limited")} and len(refused) == 140
        # a key that is not the account's own counts as a token of its own: it spends
        # nothing of ann's quota (it is refused: 401)
        forged = client.post("/v1/challenges", json={"to": ["random"]},
                             headers={"Authorization": "Bearer ann.not-the-key"})
        assert forged.status_code == 401, forged.json


def test_a_wait_is_answered_without_reading_the_limiters_redis(redis_server: str) -> None:
    """A move wakes every long-poll of its game at once: each answer's RateLimit-* fields
    would be two more reads of the limiter's Redis (the window's count and expiry), so
    the answer of a request that waits has none; the request itself still counts."""
    from .test_reads_write_nothing import commands_during

    for client in _client(redis_server, rate_limit="off", rate_limit_per_address="1000/minute"):
        db = redis_client(redis_url_for_tests(redis_server, 6))
        game = client.post("/v1/games", json={"players": [{"name": "a"}, {"name": "b"}]}).json
        plain = client.get(f"/v1/games/{game['game_id']}")
        assert plain.headers["RateLimit-Limit"] == "1000"
        answers: list[Any] = []
        # a version the game is not at: answered at once, through the whole wait's path
        path = f"/v1/games/{game['game_id']}?wait_version=99&timeout=5"

        def wait(client: FlaskClient = client, path: str = path,
                 answers: list[Any] = answers) -> None:
            answers.append(client.get(path))

        seen = commands_during(db, wait)
        assert answers[0].status_code == 200
        assert not any(name.startswith("RateLimit") for name, _ in answers[0].headers)
        reads = [c for c in seen if c.split(" ", 1)[0].strip('"').upper() in ("GET", "TTL")]
        assert reads == [], reads
        assert any("EVALSHA" in c.upper() for c in seen), seen  # the wait was counted
        events = client.get(f"/v1/games/{game['game_id']}/events?after=0&timeout=1")
        assert events.status_code == 200 and "RateLimit-Limit" not in events.headers


def test_the_limiters_redis_connections_are_bounded_however_many_requests_count_at_once(
        redis_server: str) -> None:
    """Requests that count at once take turns on at most ``REDIS_MAX_CONNECTIONS``
    connections to the limiter's Redis, rather than one each (a wake-up of thousands)."""
    url = redis_url_for_tests(redis_server, 6)

    def limiters() -> set[str]:  # (another test's app may still hold one)
        return {c["id"] for c in redis_client(url).client_list() if c["name"] == LIMITER_CLIENT}

    before = limiters()
    app = create_app(Config(redis_url=url, redis_max_connections=2, rate_limit="off",
                            rate_limit_per_address="100000/minute", solve_limit="off"))
    start = threading.Barrier(24)
    statuses: list[int] = []

    def burst() -> None:
        client = app.test_client()
        start.wait()
        statuses.extend(client.post("/v1/solve", json={"hand": ["5H"], "wild_rank": "K"})
                        .status_code for _ in range(5))

    threads = [threading.Thread(target=burst) for _ in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(PATIENCE)
    assert statuses == [200] * 120
    assert 1 <= len(limiters() - before) <= 2
