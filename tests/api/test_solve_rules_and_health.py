"""The solver endpoint, the presets, health probes, CORS, docs and the generic errors."""

from __future__ import annotations

import time

from flask.testing import FlaskClient

from service.app import create_app
from service.config import Config
from service.core.rules import PRESETS


def solve(client: FlaskClient, **body: object):
    return client.post("/v1/solve", json=body)


def test_the_contracts_solve_example_scores_19_with_the_kings_set(client: FlaskClient) -> None:
    r = solve(client, hand=["4S", "5H", "6S", "KD", "KC", "9H"], wild_rank="5",
              rules={"preset": "classic"})
    assert r.status_code == 200
    assert r.json["penalty"] == 19
    assert r.json["melds"] == [["KD", "KC", "5H"]]
    assert r.json["deadwood"] == ["4S", "6S", "9H"]
    assert r.json["go_out"] == []
    assert r.json["discards"][0] == {"card": "9H", "penalty": 10}
    assert "layoffs" not in r.json


def test_every_discard_goes_out_with_two_wild_threes_and_two_nines(client: FlaskClient) -> None:
    r = solve(client, hand=["3H", "3D", "9C", "9S"], round=1)
    assert r.json["wild_rank"] == "3" and r.json["penalty"] == 0
    assert sorted(g["discard"] for g in r.json["go_out"]) == ["3D", "3H", "9C", "9S"]


def test_input_cards_may_use_ten_lower_case_and_suit_symbols_output_is_canonical(
    client: FlaskClient,
) -> None:
    r = solve(client, hand=["10♠", "js", "qS", "joker"], wild_rank=None)
    assert r.status_code == 200
    assert r.json["melds"] == [["TS", "JS", "QS", "JK"]] or r.json["penalty"] == 0
    assert r.json["wild_rank"] is None


def test_a_table_meld_takes_lay_offs_when_lay_off_is_on(client: FlaskClient) -> None:
    r = solve(client, hand=["TH", "2C"], wild_rank="3", table=[["7H", "8H", "9H"]],
              rules={"lay_off": True})
    assert r.json["penalty"] == 2
    assert r.json["layoffs"] == [{"meld": 0, "cards": ["TH"]}]
    off = solve(client, hand=["TH", "2C"], wild_rank="3", table=[["7H", "8H", "9H"]])
    assert off.json["penalty"] == 12 and "layoffs" not in off.json


def test_hands_up_to_30_cards_are_solved_and_larger_ones_are_422(client: FlaskClient) -> None:
    hand = [f"{r}{s}" for s in "SHDC" for r in "A23456789TJQK"]
    assert solve(client, hand=hand[:30], wild_rank="7").status_code == 200
    r = solve(client, hand=hand[:31], wild_rank="7")
    assert r.status_code == 422 and r.json["code"] == "invalid_body"


def test_bad_solve_bodies_are_422_with_codes(client: FlaskClient) -> None:
    cases = [
        ({"hand": ["7X"], "wild_rank": "5"}, "invalid_body"),
        ({"hand": ["7H"]}, "invalid_body"),
        ({"hand": ["7H"], "wild_rank": "5", "round": 3}, "invalid_body"),
        ({"hand": ["7H"], "wild_rank": "Z"}, "invalid_body"),
        ({"hand": ["7H"], "round": 12}, "invalid_body"),
        ({"hand": ["7H"], "round": 1, "rules": {"preset": "nope"}}, "invalid_rules"),
        ({"hand": ["7H"], "round": 1, "rules": {"lay_of": True}}, "invalid_rules"),
        ({"hand": ["7H"], "round": 1, "extra": 1}, "invalid_body"),
    ]
    for body, code in cases:
        r = client.post("/v1/solve", json=body)
        assert (r.status_code, r.json["code"]) == (422, code), body
        assert r.mimetype == "application/problem+json"


def test_the_presets_list_every_option_of_every_preset(client: FlaskClient) -> None:
    r = client.get("/v1/rules/presets")
    assert r.status_code == 200
    assert r.json["presets"] == {name: rules.to_dict() for name, rules in PRESETS.items()}


def test_healthz_and_readyz_answer_when_redis_is_up(client: FlaskClient) -> None:
    assert client.get("/healthz").json == {"status": "ok"}
    assert client.get("/readyz").json == {"status": "ready"}


def test_with_redis_down_every_redis_call_is_a_quick_503_with_retry_after() -> None:
    app = create_app(Config(redis_url="redis://127.0.0.1:9/0", redis_timeout_seconds=0.5))
    client = app.test_client()
    assert client.get("/healthz").status_code == 200
    for method, url, body in [
        ("get", "/readyz", None),
        ("get", "/v1/games/abc", None),
        ("post", "/v1/games", {"players": [{"name": "a"}, {"name": "b"}]}),
        ("get", "/v1/games/abc/events", None),
    ]:
        start = time.monotonic()
        r = getattr(client, method)(url, json=body)
        assert r.status_code == 503, url
        assert r.json["code"] == "storage_unavailable"
        assert r.headers["Retry-After"] == "5"
        # refused at once, within its 0.5 s: not held by retries or a longer timeout (a
        # bound twenty times that, so that only a hang fails it, not a busy machine)
        assert time.monotonic() - start < 10


def test_flasks_own_404_and_405_are_problem_json(client: FlaskClient) -> None:
    r = client.get("/v2/nothing")
    assert r.status_code == 404 and r.mimetype == "application/problem+json"
    assert r.json["code"] == "not_found"
    r = client.delete("/v1/solve")
    assert r.status_code == 405 and r.json["code"] == "method_not_allowed"
    assert "POST" in r.headers["Allow"]


def test_an_unexpected_error_is_a_problem_json_500_without_details(config: Config) -> None:
    app = create_app(config)

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("secret internals")

    r = app.test_client().get("/boom")
    assert r.status_code == 500 and r.json["code"] == "internal_error"
    assert "secret" not in r.get_data(as_text=True)


def test_cors_lets_browsers_read_etag_location_and_retry_after(client: FlaskClient) -> None:
    r = client.get("/healthz", headers={"Origin": "https://example.org"})
    assert r.headers["Access-Control-Allow-Origin"] in ("*", "https://example.org")
    exposed = {h.strip().lower() for h in r.headers["Access-Control-Expose-Headers"].split(",")}
    assert {"etag", "location", "retry-after"} <= exposed
    pre = client.options("/v1/games/x/actions", headers={
        "Origin": "https://example.org", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "Authorization, If-Match, Idempotency-Key",
    })
    assert pre.status_code == 200
    assert "if-match" in pre.headers["Access-Control-Allow-Headers"].lower()


def test_the_docs_page_and_the_openapi_document_are_served(client: FlaskClient) -> None:
    assert client.get("/docs").status_code == 200
    doc = client.get("/openapi.json").json
    assert doc["openapi"].startswith("3.1")
