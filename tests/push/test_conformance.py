"""The conformance suite: each waiting request asked of the web workers and of the push
process, on one Redis, gets the same answer (status, the headers a client reads, body).

Both answer the same game at the same version (the requests of a comparison are sent
while nothing moves, or both wait on the same move), so their bodies must be equal byte
for byte; a stream is compared whole, but for its heartbeats (how many fit in its life
depends on the machine's timing, not on the server).
"""

from __future__ import annotations

import itertools
import secrets
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
import requests

from tests.conftest import PATIENCE

#: The headers a client or a cache reads (not Date, Server, Connection or framing).
MATTER = ("content-type", "etag", "cache-control", "access-control-allow-origin",
          "access-control-expose-headers", "www-authenticate", "x-accel-buffering",
          "deprecation", "sunset", "x-request-id")
NDJSON = {"Accept": "application/x-ndjson"}
SSE = {"Accept": "text/event-stream"}
TRACE = {"X-Request-ID": "conformance-1"}


def answer(r: requests.Response, *, stream: bool = False) -> dict[str, Any]:
    """What must be the same: the status, the headers that matter, ``Vary`` as a set,
    whether ``Retry-After`` came, and the body (a stream's without its heartbeats)."""
    headers = {name: r.headers.get(name) for name in MATTER}
    vary = {v.strip() for v in r.headers.get("vary", "").split(",") if v.strip()}
    body = r.content
    if stream:
        body = b"\n".join(line for line in body.split(b"\n") if line != b": ping")
        body = body.replace(b"\n\n\n", b"\n\n")  # an SSE ping leaves a blank line behind
        if r.headers.get("content-type") == NDJSON["Accept"]:
            body = b"\n".join(line for line in body.split(b"\n") if line)
    return {"status": r.status_code, "headers": headers, "vary": vary,
            "retry_after": "retry-after" in r.headers, "body": body}


def same(both: dict[str, str], ask: Callable[[str], requests.Response],
         stream: bool = False) -> dict[str, Any]:
    """``ask`` of both at once (so both wait on the same moves); their answers, equal."""
    with ThreadPoolExecutor(2) as pool:
        web, push = pool.map(lambda base: answer(ask(base), stream=stream),
                             [both["gunicorn"], both["push"]])
    assert push == web
    return web


def new_game(base: str, players: int = 2) -> dict[str, Any]:
    names = [{"name": n} for n in ("ann", "bob", "cy")[:players]]
    r = requests.post(f"{base}/v1/games", json={"players": names, "seed": "7"}, timeout=PATIENCE)
    assert r.status_code == 201
    return r.json()


def auth(game: dict[str, Any], seat: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {game['seats'][seat]['token']}"}


def move(base: str, game: dict[str, Any]) -> int:
    """One legal action of the seat on turn; the seat that acted."""
    gid = game["game_id"]
    seat = requests.get(f"{base}/v1/games/{gid}", timeout=PATIENCE).json()["round"]["current_seat"]
    legal = requests.get(f"{base}/v1/games/{gid}", headers=auth(game, seat),
                         timeout=PATIENCE).json()["legal_actions"]
    r = requests.post(f"{base}/v1/games/{gid}/actions", json=legal[0], headers=auth(game, seat),
                      timeout=PATIENCE)
    assert r.status_code == 200
    return seat


def get(path: str, headers: dict[str, str] | None = None,
        **kw: Any) -> Callable[[str], requests.Response]:
    return lambda base: requests.get(f"{base}{path}", headers={**TRACE, **(headers or {})},
                                     timeout=PATIENCE, **kw)


def later(both: dict[str, str], action: Callable[[], object],
          ask: Callable[[str], requests.Response], stream: bool = False) -> dict[str, Any]:
    """``ask`` both, and once both are parked (each process holds a waiter), ``action``."""
    from tests.conftest import wait_until

    with ThreadPoolExecutor(1) as pool:
        answers = pool.submit(same, both, ask, stream)
        # (answered already: not a wait on one of them, so the comparison tells at once)
        wait_until(lambda: answers.done() or _parked(both), PATIENCE, "both waiting")
        action()
        return answers.result(PATIENCE)


def _parked(both: dict[str, str]) -> bool:
    waiting = requests.get(f"{both['push']}/healthz", timeout=PATIENCE).json()["waiting"]
    return bool(waiting >= 1)


# -- long-polls ------------------------------------------------------------------------------


def test_a_long_poll_on_an_old_version_is_answered_at_once_alike(both: dict[str, str]) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    move(both["gunicorn"], game)
    got = same(both, get(f"/v1/games/{gid}?wait_version=0&timeout=30"))
    assert got["status"] == 200 and got["headers"]["etag"] == '"1"'
    same(both, get(f"/v1/games/{gid}?wait_version=0&timeout=30", auth(game, 0)))
    same(both, get(f"/v1/games/{gid}?wait_version=0", {"Origin": "https://a.example"}))


def test_a_long_poll_that_nothing_wakes_times_out_with_the_same_view(
    both: dict[str, str],
) -> None:
    gid = new_game(both["gunicorn"])["game_id"]
    got = same(both, get(f"/v1/games/{gid}?wait_version=0&timeout=0.3"))
    assert got["status"] == 200 and got["headers"]["etag"] == '"0"'


def test_a_move_wakes_the_long_polls_of_both_with_the_same_new_view(
    both: dict[str, str],
) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    for who in ({}, auth(game, 0), auth(game, 1)):
        version = requests.get(f"{both['gunicorn']}/v1/games/{gid}",
                               timeout=PATIENCE).json()["version"]
        got = later(both, lambda: move(both["gunicorn"], game),
                    get(f"/v1/games/{gid}?wait_version={version}&timeout=60", who))
        assert got["headers"]["etag"] == f'"{version + 1}"'


def test_wait_turn_sleeps_through_the_others_moves_on_both_and_wakes_on_its_turn(
    both: dict[str, str],
) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    on_turn = requests.get(f"{both['gunicorn']}/v1/games/{gid}",
                           timeout=PATIENCE).json()["round"]["current_seat"]
    other = 1 - on_turn

    def two_moves() -> None:  # the draw leaves it the other's turn; the discard ends it
        move(both["gunicorn"], game)
        move(both["gunicorn"], game)

    got = later(both, two_moves, get(f"/v1/games/{gid}?wait=turn&timeout=60", auth(game, other)))
    assert got["headers"]["etag"] == '"2"'
    assert b'"current_seat":%d' % other in got["body"]


def test_the_refusals_of_a_long_poll_are_the_same_problems(both: dict[str, str]) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    for query in ("wait_version=x", "wait_version=-1", "wait=soon", "wait_version=0&timeout=x",
                  "wait_version=0&timeout=1e999", "version=x&wait_version=0",
                  "version=1&wait_version=0"):
        got = same(both, get(f"/v1/games/{gid}?{query}"))
        assert got["status"] in (409, 422), query
    for path, headers, status in (
        ("/v1/games/nosuchgame?wait_version=0", {}, 404),
        ("/v1/games/no$such?wait_version=0", {}, 404),
        (f"/v1/games/{gid}?wait_version=0", {"Authorization": "Basic x"}, 401),
        (f"/v1/games/{gid}?wait_version=0", {"Authorization": "Bearer nobodys"}, 401),
        (f"/v1/games/{gid}?wait_version=0", {"Authorization": "Bearer nobody.key"}, 401),
    ):
        assert same(both, get(path, headers))["status"] == status, path


def test_a_token_past_its_wait_limit_is_refused_alike(both: dict[str, str]) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    url = f"/v1/games/{gid}?wait_version=0&timeout=60"
    with ThreadPoolExecutor(4) as pool:  # MAX_WAITS_PER_TOKEN=2 on each process
        held = [pool.submit(get(url, auth(game, 0)), base)
                for base in (both["gunicorn"], both["push"]) for _ in range(2)]
        from tests.conftest import wait_until

        wait_until(lambda: _parked(both) and requests.get(
            f"{both['push']}/healthz", timeout=PATIENCE).json()["waiting"] >= 2, PATIENCE,
            "two waits on the push process")
        got = same(both, get(url, auth(game, 0)))
        assert got["status"] == 429 and got["retry_after"]
        move(both["gunicorn"], game)
        assert all(f.result(PATIENCE).status_code == 200 for f in held)


# -- streams ---------------------------------------------------------------------------------


@pytest.mark.parametrize("accept", [NDJSON, SSE], ids=["ndjson", "sse"])
def test_a_stream_to_its_end_is_the_same_on_both(both: dict[str, str],
                                                 accept: dict[str, str]) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    move(both["gunicorn"], game)
    for who in ({}, auth(game, 0)):
        got = same(both, get(f"/v1/games/{gid}/stream", {**accept, **who}), stream=True)
        assert got["status"] == 200 and b"max_duration" in got["body"]
        same(both, get(f"/v1/games/{gid}/stream?after=1", {**accept, **who}), stream=True)
        same(both, get(f"/v1/games/{gid}/stream", {**accept, **who, "Last-Event-ID": "2"}),
             stream=True)


def test_a_stream_pushes_a_move_made_while_it_is_open_alike(both: dict[str, str]) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    got = later(both, lambda: move(both["gunicorn"], game),
                get(f"/v1/games/{gid}/stream", NDJSON), stream=True)
    assert b'"version":1' in got["body"]


def test_a_stream_ticket_opens_the_seats_stream_on_either(both: dict[str, str]) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]

    def with_ticket(base: str) -> requests.Response:
        ticket = requests.post(f"{both['gunicorn']}/v1/games/{gid}/stream-tickets",
                               headers=auth(game, 1), timeout=PATIENCE).json()["ticket"]
        return get(f"/v1/games/{gid}/stream?ticket={ticket}", NDJSON)(base)

    got = same(both, with_ticket, stream=True)
    assert got["headers"]["cache-control"] == "private, no-cache" and b'"you":{' in got["body"]


def test_the_refusals_of_a_stream_are_the_same_problems(both: dict[str, str]) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    for path, headers, status in (
        (f"/v1/games/{gid}/stream", {"Accept": "text/html"}, 406),
        (f"/v1/games/{gid}/stream?after=99", NDJSON, 422),
        (f"/v1/games/{gid}/stream?after=x", NDJSON, 422),
        (f"/v1/games/{gid}/stream", {**NDJSON, "Last-Event-ID": "x"}, 422),
        (f"/v1/games/{gid}/stream?ticket=no*good", NDJSON, 422),
        (f"/v1/games/{gid}/stream?ticket=unknown", NDJSON, 401),
        (f"/v1/games/{gid}/stream", {**NDJSON, "Authorization": "Bearer nobodys"}, 401),
        ("/v1/games/nosuchgame/stream", NDJSON, 404),
    ):
        assert same(both, get(path, headers))["status"] == status, path


# -- what only the push process answers ------------------------------------------------------


def test_the_push_process_answers_what_it_does_not_hold_with_problems(
    both: dict[str, str],
) -> None:
    push = both["push"]
    r = requests.get(f"{push}/v1/lobby", timeout=PATIENCE)
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    r = requests.post(f"{push}/v1/games/x/stream", timeout=PATIENCE)
    assert r.status_code == 405 and r.headers["Allow"] == "GET"
    assert r.headers["Content-Type"] == "application/problem+json"


# -- helpers of the routes below -------------------------------------------------------------

_tables = itertools.count(101)


def new_account(base: str, prefix: str) -> tuple[str, dict[str, str]]:
    """A new account (a handle of its own each time: the session shares one Redis): its
    handle and the header of its key."""
    handle = f"{prefix}{secrets.token_hex(4)}"
    r = requests.post(f"{base}/v1/accounts", json={"handle": handle, "bot": False},
                      timeout=PATIENCE)
    assert r.status_code == 201, r.text
    return handle, {"Authorization": f"Bearer {r.json()['key']}"}


def challenge(base: str, by: dict[str, str], to: str) -> None:
    """A challenge of ``to`` by the account whose key ``by`` is: a note on ``to``'s
    stream."""
    r = requests.post(f"{base}/v1/challenges", json={"to": [to], "rules": {"preset": "classic"}},
                      headers=by, timeout=PATIENCE)
    assert r.status_code == 201, r.text


def new_table() -> int:
    """A turn clock no other test's seekers ask for: its seekers meet only each other."""
    return next(_tables)


def seek(base: str, turn_seconds: int, by: dict[str, str] | None = None) -> dict[str, Any]:
    """A seek of two players with ``turn_seconds`` (an account's, with ``by`` its key's
    header; else a named seeker's): its answer, the seat token in it."""
    body: dict[str, Any] = {"players": 2, "turn_seconds": turn_seconds}
    if by is None:
        body["name"] = "sol"
    r = requests.post(f"{base}/v1/seeks", json=body, headers=by or {}, timeout=PATIENCE)
    assert r.status_code == 201, r.text
    answer: dict[str, Any] = r.json()
    return answer


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def refused_past_the_limit(both: dict[str, str], wait: Callable[[str], requests.Response],
                           release: Callable[[], object]) -> None:
    """Two ``wait`` on each process (``MAX_WAITS_PER_TOKEN=2``), then a third: refused
    alike, with ``Retry-After``; ``release`` ends the two."""
    from tests.conftest import wait_until

    with ThreadPoolExecutor(4) as pool:
        held = [pool.submit(wait, base) for base in (both["gunicorn"], both["push"])
                for _ in range(2)]
        wait_until(lambda: requests.get(f"{both['push']}/healthz", timeout=PATIENCE).json()[
            "waiting"] >= 2, PATIENCE, "two waits on the push process")
        got = same(both, wait)
        assert got["status"] == 429 and got["retry_after"]
        release()
        assert all(f.result(PATIENCE).status_code == 200 for f in held)


# -- the event log ---------------------------------------------------------------------------


def newest_event(base: str, gid: str) -> int:
    after: int = requests.get(f"{base}/v1/games/{gid}/events", timeout=PATIENCE).json()[
        "next_after"]
    return after


def test_an_event_page_there_is_already_is_answered_at_once_alike(both: dict[str, str]) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    move(both["gunicorn"], game)
    for who in ({}, auth(game, 0), auth(game, 1)):
        got = same(both, get(f"/v1/games/{gid}/events?timeout=30", who))
        assert got["status"] == 200 and got["headers"]["deprecation"]
        page = same(both, get(f"/v1/games/{gid}/events?after=0&limit=1&timeout=30", who))
        assert b'"more":true' in page["body"]
        same(both, get(f"/v1/games/{gid}/events?limit=1", {**who, "Origin": "https://a.example"}))
        same(both, get(f"/v1/games/{gid}/events?timeout=0", who))


def test_an_event_wait_that_nothing_wakes_ends_with_the_same_empty_page(
    both: dict[str, str],
) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    newest = newest_event(both["gunicorn"], gid)
    for who in ({}, auth(game, 0)):
        got = same(both, get(f"/v1/games/{gid}/events?after={newest}&timeout=0.3", who))
        assert b'"events":[]' in got["body"]


def test_a_move_wakes_the_event_waits_of_both_with_the_same_events(
    both: dict[str, str],
) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    for who in ({}, auth(game, 0), auth(game, 1)):
        newest = newest_event(both["gunicorn"], gid)
        got = later(both, lambda: move(both["gunicorn"], game),
                    get(f"/v1/games/{gid}/events?after={newest}&timeout=60", who))
        assert b'"seq":%d' % (newest + 1) in got["body"]


def test_the_refusals_of_an_event_wait_are_the_same_problems(both: dict[str, str]) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    newest = newest_event(both["gunicorn"], gid)
    for query in ("after=x&timeout=5", "after=-1&timeout=5", "limit=0&timeout=5",
                  "limit=1001&timeout=5", "timeout=x", "timeout=1e999", "timeout=-1",
                  f"after={newest + 1}&timeout=5", f"after={newest + 1}"):
        got = same(both, get(f"/v1/games/{gid}/events?{query}"))
        assert got["status"] == 422, query
    for path, headers, status in (
        ("/v1/games/nosuchgame/events?timeout=5", {}, 404),
        ("/v1/games/no$such/events?timeout=5", {}, 404),
        (f"/v1/games/{gid}/events?timeout=5", {"Authorization": "Basic x"}, 401),
        (f"/v1/games/{gid}/events?timeout=5", {"Authorization": "Bearer nobodys"}, 401),
        (f"/v1/games/{gid}/events?timeout=5", {"Authorization": "Bearer nobody.key"}, 401),
    ):
        assert same(both, get(path, headers))["status"] == status, path


def test_a_token_past_its_wait_limit_is_refused_an_event_wait_alike(both: dict[str, str]) -> None:
    game = new_game(both["gunicorn"])
    gid = game["game_id"]
    newest = newest_event(both["gunicorn"], gid)
    refused_past_the_limit(
        both, get(f"/v1/games/{gid}/events?after={newest}&timeout=60", auth(game, 0)),
        lambda: move(both["gunicorn"], game))


# -- an account's stream ---------------------------------------------------------------------


@pytest.mark.parametrize("accept", [NDJSON, SSE], ids=["ndjson", "sse"])
def test_an_account_stream_to_its_end_is_the_same_on_both(both: dict[str, str],
                                                          accept: dict[str, str]) -> None:
    _, ann = new_account(both["gunicorn"], "ann")
    bob, bob_key = new_account(both["gunicorn"], "bob")
    challenge(both["gunicorn"], ann, bob)
    challenge(both["gunicorn"], ann, bob)
    got = same(both, get("/v1/me/stream", {**accept, **bob_key}), stream=True)
    assert got["status"] == 200 and got["headers"]["cache-control"] == "private, no-cache"
    assert got["body"].count(b'"type":"challenge"') == 2 and b"max_duration" in got["body"]
    same(both, get("/v1/me/stream?after=1", {**accept, **bob_key}), stream=True)
    same(both, get("/v1/me/stream", {**accept, **bob_key, "Last-Event-ID": "2"}), stream=True)
    same(both, get("/v1/me/stream", {**accept, **ann, "Origin": "https://a.example"}),
         stream=True)


def test_an_account_stream_pushes_a_note_appended_while_it_is_open_alike(
    both: dict[str, str],
) -> None:
    _, ann = new_account(both["gunicorn"], "ann")
    bob, bob_key = new_account(both["gunicorn"], "bob")
    got = later(both, lambda: challenge(both["gunicorn"], ann, bob),
                get("/v1/me/stream", {**NDJSON, **bob_key}), stream=True)
    assert got["body"].count(b'"type":"challenge"') == 1


def test_a_stream_ticket_opens_the_accounts_stream_on_either(both: dict[str, str]) -> None:
    _, ann = new_account(both["gunicorn"], "ann")
    bob, bob_key = new_account(both["gunicorn"], "bob")
    challenge(both["gunicorn"], ann, bob)

    def with_ticket(base: str) -> requests.Response:
        ticket = requests.post(f"{both['gunicorn']}/v1/me/stream-tickets", headers=bob_key,
                               timeout=PATIENCE).json()["ticket"]
        return get(f"/v1/me/stream?ticket={ticket}", SSE)(base)

    got = same(both, with_ticket, stream=True)
    assert got["status"] == 200 and b'"type":"challenge"' in got["body"]


def test_the_refusals_of_an_account_stream_are_the_same_problems(both: dict[str, str]) -> None:
    _, ann = new_account(both["gunicorn"], "ann")
    game = new_game(both["gunicorn"])
    for path, headers, status in (
        ("/v1/me/stream", NDJSON, 401),
        ("/v1/me/stream", {**NDJSON, "Authorization": "Basic x"}, 401),
        ("/v1/me/stream", {**NDJSON, **auth(game, 0)}, 401),
        ("/v1/me/stream", {**NDJSON, "Authorization": "Bearer nobody.key"}, 401),
        ("/v1/me/stream", {**ann, "Accept": "text/html"}, 406),
        ("/v1/me/stream?after=99", {**NDJSON, **ann}, 422),
        ("/v1/me/stream?after=x", {**NDJSON, **ann}, 422),
        ("/v1/me/stream", {**NDJSON, **ann, "Last-Event-ID": "x"}, 422),
        ("/v1/me/stream?ticket=no*good", NDJSON, 422),
        ("/v1/me/stream?ticket=unknown", NDJSON, 401),
    ):
        assert same(both, get(path, headers))["status"] == status, (path, headers)


def test_an_account_past_its_wait_limit_is_refused_a_stream_alike(both: dict[str, str]) -> None:
    _, ann = new_account(both["gunicorn"], "ann")
    refused_past_the_limit(both, get("/v1/me/stream", {**NDJSON, **ann}), lambda: None)


# -- seeks -----------------------------------------------------------------------------------


def test_a_seek_read_is_answered_alike(both: dict[str, str]) -> None:
    table = new_table()
    mine = seek(both["gunicorn"], table)
    sid = mine["seek_id"]
    got = same(both, get(f"/v1/seeks/{sid}", bearer(mine["token"])))
    assert got["status"] == 200 and b'"status":"waiting"' in got["body"]
    same(both, get(f"/v1/seeks/{sid}?timeout=0.3", bearer(mine["token"])))
    same(both, get(f"/v1/seeks/{sid}?timeout=0", bearer(mine["token"])))
    _, ann = new_account(both["gunicorn"], "ann")
    theirs = seek(both["gunicorn"], new_table(), ann)
    same(both, get(f"/v1/seeks/{theirs['seek_id']}?timeout=0.3", ann))


def test_a_match_wakes_the_seek_waits_of_both_alike(both: dict[str, str]) -> None:
    table = new_table()
    mine = seek(both["gunicorn"], table)
    got = later(both, lambda: seek(both["gunicorn"], table),
                get(f"/v1/seeks/{mine['seek_id']}?timeout=60", bearer(mine["token"])))
    assert b'"status":"matched"' in got["body"]
    _, ann = new_account(both["gunicorn"], "ann")
    theirs = seek(both["gunicorn"], table, ann)
    got = later(both, lambda: seek(both["gunicorn"], table),
                get(f"/v1/seeks/{theirs['seek_id']}?timeout=60", ann))
    assert b'"status":"matched"' in got["body"]


def test_the_refusals_of_a_seek_read_are_the_same_problems(both: dict[str, str]) -> None:
    table = new_table()
    mine, other = seek(both["gunicorn"], table + 1000), seek(both["gunicorn"], table + 2000)
    sid = mine["seek_id"]
    unknown = sid[:-5] + ("AAAAA" if not sid.endswith("AAAAA") else "BBBBB")
    for path, headers, status in (
        (f"/v1/seeks/{sid}?timeout=5", {}, 401),
        (f"/v1/seeks/{sid}?timeout=5", {"Authorization": "Basic x"}, 401),
        (f"/v1/seeks/{sid}?timeout=5", bearer(other["token"]), 401),
        (f"/v1/seeks/{sid}?timeout=5", {"Authorization": "Bearer nobody.key"}, 401),
        (f"/v1/seeks/{sid}?timeout=x", bearer(mine["token"]), 422),
        (f"/v1/seeks/{sid}?timeout=1e999", bearer(mine["token"]), 422),
        ("/v1/seeks/nosuchseek?timeout=5", bearer(mine["token"]), 404),
        (f"/v1/seeks/{unknown}?timeout=5", bearer(mine["token"]), 404),
        (f"/v1/seeks/{unknown}", bearer(mine["token"]), 404),
    ):
        assert same(both, get(path, headers))["status"] == status, path


def test_a_token_past_its_wait_limit_is_refused_a_seek_wait_alike(both: dict[str, str]) -> None:
    table = new_table()
    mine = seek(both["gunicorn"], table)
    refused_past_the_limit(
        both, get(f"/v1/seeks/{mine['seek_id']}?timeout=60", bearer(mine["token"])),
        lambda: seek(both["gunicorn"], table))


PREFLIGHT = {"Origin": "https://frontend.example", "Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "last-event-id, authorization, x-unknown"}
CORS_NAMES = ("access-control-allow-origin", "access-control-allow-methods",
              "access-control-allow-headers", "access-control-max-age", "vary")


def test_a_cors_preflight_of_each_waiting_route_is_answered_alike(
        both: dict[str, str]) -> None:
    """A browser asks before a cross-origin stream or wait with a bearer (and before any
    POST of JSON): the push tier answers the preflight as flask-cors does."""
    gid = new_game(both["gunicorn"])["game_id"]
    for path in (f"/v1/games/{gid}", f"/v1/games/{gid}/stream", f"/v1/games/{gid}/events",
                 "/v1/me/stream", "/v1/seeks/s1", "/v1/streams/games",
                 "/v1/streams/games/s1/add"):
        answers = [requests.options(base + path, headers=PREFLIGHT, timeout=PATIENCE)
                   for base in (both["gunicorn"], both["push"])]
        web, push = ({"status": r.status_code,
                      **{n: r.headers.get(n) for n in CORS_NAMES}} for r in answers)
        assert web["status"] == 200 and web["access-control-allow-origin"], (path, web)
        assert push == web, path
