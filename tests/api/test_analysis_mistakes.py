"""``GET /v1/me/mistakes`` and ``POST /v1/me/mistakes/{game_id}/{version}`` on a real
Redis: once a game is analysed, each account that played it finds its own decisions of
enough regret there (not another seat's, not an unanalysed game's), newest game first,
paged, with the position its seat saw; an answer is checked against the best move and
told the points it saves; an illegal answer, another's mistake and no key are refused."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from service.analysis.judge import QUICK
from service.config import Config
from service.storage import redis_stores
from service.workers.analysis import AnalysisWorker

from .conftest import done
from .test_accounts import key_auth, play_out, register

#: players who take the first legal action never go out, so every round runs to its turn
#: limit: 8 turns each keeps a game's analysis at some 60 decisions (30 turns: 240)
SHORT = {"preset": "classic", "hand_sizes": [3, 4], "turn_limit": 8}


def account_game(client: FlaskClient, keys: dict[str, str], seed: str) -> str:
    """A game of ann and bob's accounts, each playing its first legal action (so, many
    mistakes), to its end."""
    r = done(client.post("/v1/games", json={
        "players": [{"account": "ann"}, {"name": None}], "rules": SHORT, "seed": seed},
        headers=key_auth(keys["ann"])))
    assert r.status_code == 201, r.json
    game_id: str = r.json["game_id"]
    claim = done(client.post(f"/v1/games/{game_id}/seats/1/claim", json={},
                             headers=key_auth(keys["bob"])))
    assert claim.status_code == 200, claim.json
    play_out(client, game_id, {0: keys["ann"], 1: keys["bob"]})
    return game_id


def analysed(client: FlaskClient, config: Config, game_id: str) -> dict[str, Any]:
    assert client.post(f"/v1/games/{game_id}/analysis").status_code == 202
    stores = redis_stores(config)
    try:
        # at the quick setting (a seventh of the CPU): the list is what the analysis found
        assert AnalysisWorker(stores, name="mistakes-worker", idle_seconds=1.0,
                              settings=QUICK).step()
    finally:
        stores.close()
    body: dict[str, Any] = client.get(f"/v1/games/{game_id}/analysis").json
    assert body["status"] == "done"
    return body


def every(client: FlaskClient, key: str, query: str = "") -> list[dict[str, Any]]:
    """Every page of the account's list, followed by cursor, two at a time."""
    out: list[dict[str, Any]] = []
    cursor = None
    while True:
        path = f"/v1/me/mistakes?limit=2{query}" + (f"&cursor={cursor}" if cursor else "")
        r = client.get(path, headers=key_auth(key))
        assert r.status_code == 200, r.json
        assert r.headers["Cache-Control"] == "private, no-cache"
        out += r.json["mistakes"]
        cursor = r.json["next_cursor"]
        if cursor is None:
            return out


def test_an_account_finds_its_own_analysed_decisions_newest_first_and_answers_them(
        client: FlaskClient, config: Config) -> None:
    keys = {h: register(client, h) for h in ("ann", "bob")}
    first = account_game(client, keys, "m1")
    second = account_game(client, keys, "m2")
    unanalysed = account_game(client, keys, "m3")
    assert client.get("/v1/me/mistakes", headers=key_auth(keys["ann"])).json == {
        "mistakes": [], "next_cursor": None}  # nothing analysed yet
    analyses = {first: analysed(client, config, first), second: analysed(client, config, second)}
    for seat, handle in enumerate(("ann", "bob")):
        listed = every(client, keys[handle])
        expected = [(g, d["version"]) for g in (second, first)  # the newer game first
                    for d in sorted(analyses[g]["decisions"], key=lambda d: -d["version"])
                    if d["seat"] == seat and d["regret"] >= 2.0]
        assert len(expected) > 4
        assert [(m["game_id"], m["version"]) for m in listed] == expected
        assert unanalysed not in {m["game_id"] for m in listed}
        for m in listed:
            assert m["seat"] == seat and m["regret"] >= 2.0
            # the position is the seat's own view at that version
            then = client.get(f"/v1/games/{m['game_id']}?version={m['version']}",
                              headers=key_auth(keys[handle])).json
            assert m["position"]["hand"] == then["you"]["hand"]
            assert m["position"]["discard_top"] == then["round"]["discard_top"]
            assert m["position"]["wild_rank"] == then["round"]["wild_rank"]
            assert m["rules"]["hand_sizes"] == [3, 4]
    ann = every(client, keys["ann"])
    big = every(client, keys["ann"], "&min_regret=6.5")
    assert big == [m for m in ann if m["regret"] >= 6.5]
    ended = ann[0]["ended"]
    assert every(client, keys["ann"], f"&since={ended}") == [
        m for m in ann if m["game_id"] == second]

    puzzle = ann[0]
    path = f"/v1/me/mistakes/{puzzle['game_id']}/{puzzle['version']}"
    right = client.post(path, json=puzzle["best"], headers=key_auth(keys["ann"]))
    assert right.status_code == 200, right.json
    assert right.json["correct"] is True
    assert right.json["saves"] == puzzle["regret"] and right.json["best"] == puzzle["best"]
    wrong = client.post(path, json=puzzle["action"], headers=key_auth(keys["ann"]))
    assert wrong.json["correct"] is False and wrong.json["saves"] == 0.0
    kind = "draw" if puzzle["position"]["phase"] in ("draw", "final_draw") else "discard"
    illegal = ({"type": "discard", "card": "JK"} if kind == "draw"
               else {"type": "discard", "card": next(c for c in ("JK", "AS", "2S", "3S")
                                                     if c not in puzzle["position"]["hand"])})
    r = client.post(path, json=illegal, headers=key_auth(keys["ann"]))
    assert r.status_code == 409 and r.json["code"] == "illegal_action"
    r = client.post(path, json={"type": "resign"}, headers=key_auth(keys["ann"]))
    assert r.status_code == 422 and r.json["code"] == "invalid_body"
    # bob's list has none of ann's: her mistake is not his to answer
    r = client.post(path, json=puzzle["best"], headers=key_auth(keys["bob"]))
    assert r.status_code == 404 and r.json["code"] == "unknown_mistake"
    assert client.post(path, json=puzzle["best"]).status_code == 401
    assert client.get("/v1/me/mistakes").status_code == 401


def test_a_bad_query_or_cursor_is_422_and_a_decision_no_list_has_404(
        client: FlaskClient) -> None:
    key = register(client, "ann")
    for path in ("nosuchgame/-1", "nosuchgame/x", "bad.id/3", "nosuchgame/3"):
        r = client.post(f"/v1/me/mistakes/{path}", json={"type": "draw", "source": "stock"},
                        headers=key_auth(key))
        assert r.status_code == 404 and r.json["code"] == "unknown_mistake", path
    for query, code in (("min_regret=-1", "invalid_query"), ("min_regret=1e3", "invalid_query"),
                        ("min_regret=1001", "invalid_query"), ("since=yesterday", "invalid_query"),
                        ("limit=0", "invalid_query"), ("cursor=nope", "invalid_cursor")):
        r = client.get(f"/v1/me/mistakes?{query}", headers=key_auth(key))
        assert r.status_code == 422 and r.json["code"] == code, query
