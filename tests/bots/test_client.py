"""The hand-written client: retries, If-Match, Idempotency-Key, waiting without polling,
and coming back to a seat that went away.

Retry behaviour is checked against a tiny scripted HTTP server (a real service
does not answer 503 on demand); the rest against the live service.
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import orjson
import pytest

from service.bots import GreedyBot
from service.client import ApiError, Client, ClientStats, Seat
from tests.conftest import PATIENCE


class Scripted(http.server.BaseHTTPRequestHandler):
    """Answers from ``script`` in order and records each request's headers."""

    script: ClassVar[list[tuple[int, dict[str, str], dict[str, Any]]]] = []
    seen: ClassVar[list[dict[str, str]]] = []
    protocol_version = "HTTP/1.1"

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        Scripted.seen.append(dict(self.headers))
        status, headers, body = Scripted.script.pop(0)
        data = orjson.dumps(body)
        self.send_response(status)
        for k, v in {"Content-Type": "application/json", **headers}.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def scripted() -> Iterator[str]:
    Scripted.script, Scripted.seen = [], []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_503_and_429_are_retried_after_the_retry_after_delay(scripted: str) -> None:
    Scripted.script = [
        (503, {"Retry-After": "2"}, {"code": "storage_unavailable"}),
        (429, {"Retry-After": "1"}, {"code": "too_many_requests"}),
        (200, {}, {"presets": {"classic": {}}}),
    ]
    slept: list[float] = []
    stats = ClientStats()
    client = Client(scripted, sleep=slept.append, stats=stats)
    assert client.presets() == {"classic": {}}
    assert slept == [2.0, 1.0]
    assert stats.retries == 2


def test_a_retried_action_keeps_its_idempotency_key_and_sends_if_match(scripted: str) -> None:
    view = {"version": 3, "status": "in_progress", "legal_actions": [], "you": {"seat": 0}}
    Scripted.script = [
        (503, {"Retry-After": "0"}, {"code": "storage_unavailable"}),
        (200, {"ETag": '"4"'}, {**view, "version": 4}),
    ]
    seat = Seat(Client(scripted, sleep=lambda s: None), "g1", 0, "tok", view)  # type: ignore[arg-type]
    after = seat.act({"type": "draw", "source": "stock"})
    assert after["version"] == 4
    first, second = Scripted.seen
    assert first["Idempotency-Key"] == second["Idempotency-Key"]
    assert first["If-Match"] == second["If-Match"] == '"3"'
    assert first["Authorization"] == "Bearer tok"


def test_errors_are_raised_with_the_problem_code(scripted: str) -> None:
    Scripted.script = [(409, {}, {"code": "not_your_turn", "detail": "wait"})]
    with pytest.raises(ApiError) as err:
        Client(scripted).presets()
    assert (err.value.status, err.value.code) == (409, "not_your_turn")


def test_a_game_made_with_a_reference_bots_seat_leaves_no_seat_open_and_plays_out(
        service_url: str) -> None:
    game = Client(service_url).create_game(["me", {"bot": "random"}],
                                           rules={"preset": "classic", "hand_sizes": [3, 4]})
    assert [s["kind"] for s in game.seats] == ["human", "bot"]
    assert game.open_seats == []
    final = game.seat(0).play(lambda view: view["legal_actions"][0])
    assert final["status"] == "finished"
    assert final["players"][1]["name"] == "random"


def test_waiting_for_a_turn_parks_in_the_long_poll_instead_of_polling(service_url: str) -> None:
    stats = ClientStats()
    client = Client(service_url, stats=stats)
    game = client.create_game(["ann", "bob"], seed="lp")
    first = game.state["round"]["current_seat"]
    mover, waiter = game.seat(first), game.seat(1 - first)
    waited: dict[str, Any] = {}

    def wait() -> None:
        waited["view"] = waiter.wait_for_turn()
        waited["at"] = time.monotonic()

    before = stats.requests
    thread = threading.Thread(target=wait)
    thread.start()
    time.sleep(1.5)  # the waiter must sit in one request all this time
    assert stats.requests - before <= 1
    moved_at = time.monotonic()
    mover.act({"type": "draw", "source": "stock"})
    mover.act({"type": "discard", "card": mover.view["you"]["hand"][0]})
    thread.join(PATIENCE)
    assert waited["at"] >= moved_at  # answered by the move, not before it
    assert waited["view"]["legal_actions"]  # woken by the move: its turn now
    # two waits (after the draw, after the discard), two actions, one initial fetch or so
    assert stats.requests - before <= 6


def test_a_stale_if_match_is_refused_and_the_seat_sees_the_new_state(service_url: str) -> None:
    client = Client(service_url)
    game = client.create_game(["ann", "bob"], seed="stale")
    seat = game.seat(game.state["round"]["current_seat"])
    old = seat.view
    seat.act({"type": "draw", "source": "stock"})
    seat._view = old  # pretend this decision was made on the old view
    with pytest.raises(ApiError) as err:
        seat.act({"type": "discard", "card": old["you"]["hand"][0]})
    assert err.value.status == 412
    assert seat.view["version"] > old["version"]  # refreshed, ready to decide again


def test_a_seat_played_again_after_it_went_away_comes_back_before_it_moves(
        service_url: str) -> None:
    client = Client(service_url)
    created = client.request("POST", "/v1/games", kind="create", body={
        "players": [{"name": "ann"}, {"name": "bob"}], "turn_seconds": 2,
        "rules": {"preset": "classic", "hand_sizes": [7, 9, 11]}}).body
    game_id = created["game_id"]
    ann, bob = (Seat(client, game_id, s["seat"], s["token"]) for s in created["seats"])
    # bob's bot plays all along; ann's is not running yet: her clock runs out twice
    threading.Thread(target=bob.play, args=(GreedyBot(),), daemon=True).start()
    view = client.view(game_id)
    deadline = time.monotonic() + PATIENCE
    while view["players"][0]["kind"] != "away":
        assert time.monotonic() < deadline, "ann's seat never went away"
        view = client.view(game_id, wait_version=view["version"], wait=5)
    final = ann.play(GreedyBot(), deadline=time.monotonic() + PATIENCE)
    events, _ = client.events(game_id)
    away_at = [e["seq"] for e in events
               if e["type"] == "turn_timed_out" and e["seat"] == 0 and e["away"]][-1]
    later = [e for e in events if e["seq"] > away_at and e.get("seat") == 0]
    assert [e["type"] for e in later if e["type"] == "seat_back"] == ["seat_back"]  # once
    assert any(e.get("by") == "player" for e in later)  # then ann's own moves
    assert final["status"] == "finished" and final["players"][0]["kind"] == "human"
