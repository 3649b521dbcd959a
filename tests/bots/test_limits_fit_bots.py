"""On ``make run``'s default limits, bots that wait for their turn and act on it never see
a 429 at full speed: the README's bot (docs/bots.md) and a bot written with ``requests``
from the OpenAPI document alone (long-poll ``wait=turn``, ``If-Match``, ``Idempotency-Key``,
``/v1/solve`` for its discards). The server's own request counter (``/metrics``) is the
witness, since a client may retry a 429 silently."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from service.match.local import LocalService, local_service
from tests.bots.test_docs_bot import docs_bot
from tests.conftest import PATIENCE


@pytest.fixture(scope="module")
def defaults(request: pytest.FixtureRequest) -> Iterator[LocalService]:
    """A gunicorn with make run's limits (no override of RATE_LIMIT and the others)."""
    redis_url = f"{request.getfixturevalue('redis_server')}/8"
    with local_service(workers=2, redis_url=redis_url, limits=True) as service:
        yield service


def _count(service: LocalService, status: str) -> float:
    text = requests.get(f"{service.url}/metrics", timeout=5).text
    pattern = rf'^ttt_http_requests_total{{[^}}]*status="{status}"[^}}]*}} (\S+)$'
    return sum(float(v) for v in re.findall(pattern, text, flags=re.M))


def test_the_readme_bot_plays_a_whole_game_on_the_defaults_with_no_429(
    defaults: LocalService, tmp_path: Path,
) -> None:
    before = _count(defaults, "429")
    script = tmp_path / "my_bot.py"
    script.write_text(docs_bot())
    started = time.monotonic()
    proc = subprocess.run([sys.executable, str(script), defaults.url], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    took = time.monotonic() - started
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("winners: [")
    assert _count(defaults, "429") == before
    print(f"README bot: a whole game in {took:.2f} s, no 429")


def _requests_bot(base: str, game_id: str, seat: int, name: str, out: dict[int, Any]) -> None:
    """A bot as a reader of the OpenAPI document writes it, with nothing but requests."""
    http = requests.Session()
    claim = http.post(f"{base}/v1/games/{game_id}/seats/{seat}/claim", json={"name": name})
    claim.raise_for_status()
    http.headers["Authorization"] = f"Bearer {claim.json()['token']}"
    statuses: list[int] = []
    while True:
        r = http.get(f"{base}/v1/games/{game_id}", params={"wait": "turn", "timeout": 30})
        statuses.append(r.status_code)
        view = r.json()
        if view["status"] == "finished":
            break
        if not view["legal_actions"]:
            continue
        legal = view["legal_actions"]
        go_out = [a for a in legal if a["type"] == "go_out"]
        if go_out:
            action = go_out[0]
        elif legal[0]["type"] == "draw":
            action = {"type": "draw", "source": "stock"}
        else:
            advice = requests.post(f"{base}/v1/solve", json={
                "hand": view["you"]["hand"], "wild_rank": view["round"]["wild_rank"],
                "rules": view["rules"]})
            statuses.append(advice.status_code)
            assert advice.status_code == 200, (advice.status_code, advice.text)
            action = {"type": "discard", "card": advice.json()["discards"][0]["card"]}
        acted = http.post(f"{base}/v1/games/{game_id}/actions", json=action,
                          headers={"If-Match": r.headers["ETag"],
                                   "Idempotency-Key": uuid.uuid4().hex})
        statuses.append(acted.status_code)
        assert acted.status_code == 200, (action, acted.status_code, acted.text)
    out[seat] = {"statuses": statuses, "final": view}


def test_a_bot_written_with_requests_from_the_openapi_document_sees_no_429(
    defaults: LocalService,
) -> None:
    before = _count(defaults, "429")
    created = requests.post(f"{defaults.url}/v1/games", json={
        "players": [{"name": None}, {"name": None}, {"name": None}],
        "rules": {"preset": "bga"}}).json()
    out: dict[int, Any] = {}
    started = time.monotonic()
    bots = [threading.Thread(target=_requests_bot, args=(defaults.url, created["game_id"],
                                                         s, f"bot{s}", out)) for s in range(3)]
    for bot in bots:
        bot.start()
    for bot in bots:
        bot.join(PATIENCE)
    took = time.monotonic() - started
    assert sorted(out) == [0, 1, 2]
    for result in out.values():
        assert result["final"]["status"] == "finished"
        assert set(result["statuses"]) == {200}, _tally(result["statuses"])
    assert _count(defaults, "429") == before
    requests_made = sum(len(r["statuses"]) for r in out.values())
    print(f"requests bot: 3 seats, {requests_made} requests in {took:.2f} s, no 429")


def _tally(statuses: list[int]) -> dict[int, int]:
    return {s: statuses.count(s) for s in set(statuses)}


def test_a_busy_polling_client_on_the_defaults_gets_429_with_ratelimit_headers(
    defaults: LocalService,
) -> None:
    created = requests.post(f"{defaults.url}/v1/games", json={
        "players": [{"name": "ann"}, {"name": "bob"}]}).json()
    url = f"{defaults.url}/v1/games/{created['game_id']}"
    seat = created["state"]["round"]["current_seat"]
    poller = requests.Session()  # the seat not on turn, asking again and again
    poller.headers["Authorization"] = f"Bearer {created['seats'][1 - seat]['token']}"
    for _ in range(200):
        r = poller.get(url)
        if r.status_code == 429:
            break
    assert r.status_code == 429 and r.json()["code"] == "rate_limited"
    assert r.headers["RateLimit-Limit"] == "50" and r.headers["RateLimit-Remaining"] == "0"
    assert int(r.headers["RateLimit-Reset"]) >= 0 and int(r.headers["Retry-After"]) >= 1
