"""A stream of many games (``POST /v1/streams/games``) on push processes, with games made
and moved by the service layer on the same Redis: every move of each game once and in
order per game while games are added and removed, the cap of 500, the changes of a stream
no one holds, a seat's view only, and the ids checked."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
import requests

from service import play
from service.config import Config
from service.storage import Stores, redis_stores
from tests.conftest import PATIENCE, redis_url_for_tests, wait_until

NDJSON = {"Accept": "application/x-ndjson"}


@pytest.fixture(scope="module")
def stores(redis_server: str) -> Iterator[Stores]:
    """The service layer's stores on the push processes' Redis (``tests/push/conftest``)."""
    made = redis_stores(Config(redis_url=redis_url_for_tests(redis_server, 6)))
    try:
        yield made
    finally:
        made.release()


def new_games(stores: Stores, count: int) -> list[tuple[str, list[str]]]:
    """``count`` two-seat games (unlisted: no lobby), each with its seats' tokens."""
    made = []
    for _ in range(count):
        record, tokens = play.create_game(stores, None, ["ann", "bob"], "7", unlisted=True)
        made.append((record.game_id, [t for t in tokens if t is not None]))
    return made


def move(stores: Stores, game: tuple[str, list[str]]) -> None:
    """One legal action of the seat on turn, made by the service layer."""
    game_id, tokens = game
    state = stores.games.load(game_id).state
    seat = state.current_seat
    assert seat is not None
    view = orjson.loads(play.game_view_bytes(game_id, state, seat))
    play.act(stores, game_id, play.hash_token(tokens[seat]), view["legal_actions"][0])


class Reader:
    """An NDJSON stream of many games read in a thread: its messages, as they come."""

    def __init__(self, base: str, body: dict[str, Any], headers: dict[str, str] | None = None
                 ) -> None:
        self.response = requests.post(f"{base}/v1/streams/games", json=body,
                                      headers={**NDJSON, **(headers or {})}, stream=True,
                                      timeout=PATIENCE)
        assert self.response.status_code == 200, self.response.text
        self.messages: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        wait_until(lambda: bool(self.taken()), PATIENCE, "the stream's first message")
        first = self.taken()[0]
        assert first["type"] == "stream"
        self.id: str = first["id"]

    def _read(self) -> None:
        try:
            for line in self.response.iter_lines():
                if line:
                    with self._lock:
                        self.messages.append(orjson.loads(line))
        except (requests.RequestException, AttributeError):
            pass  # closed by the test (urllib3 meets its closed socket as None)

    def taken(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self.messages)

    def of(self, game_id: str) -> list[dict[str, Any]]:
        return [m for m in self.taken() if m.get("game") == game_id]

    def close(self) -> None:
        self.response.close()


def change(base: str, stream_id: str, op: str, games: list[str],
           after: dict[str, int] | None = None) -> requests.Response:
    body: dict[str, Any] = {"games": games}
    if after:
        body["after"] = after
    return requests.post(f"{base}/v1/streams/games/{stream_id}/{op}", json=body,
                         timeout=PATIENCE)


def seen_version(reader: Reader, game_id: str) -> int:
    views = [m["view"]["version"] for m in reader.of(game_id) if m["type"] == "view"]
    return views[-1] if views else -1


def test_a_stream_of_500_games_carries_every_move_of_each_once_in_order_as_games_come_and_go(
    both: dict[str, str], patient_push: str, stores: Stores,
) -> None:
    games = new_games(stores, 500)
    ids = [g for g, _ in games]
    first, later = ids[:300], ids[300:]
    reader = Reader(patient_push, {"games": first})
    try:
        wait_until(lambda: all(seen_version(reader, g) == 0 for g in first), PATIENCE,
                   "each game's first view")
        for game in games[:300:2]:
            move(stores, game)
        # added through another push process: the change goes through Redis to the holder
        r = change(both["push"], reader.id, "add", later)
        assert r.status_code == 200 and len(r.json()["games"]) == 500
        refused = change(both["push"], reader.id, "add", [new_games(stores, 1)[0][0]])
        assert refused.status_code == 409 and refused.json()["code"] == "too_many_games"
        for game in games[::3]:
            move(stores, game)
        gone = ids[:50]
        r = change(patient_push, reader.id, "remove", gone)
        assert r.status_code == 200 and len(r.json()["games"]) == 450
        wait_until(lambda: all(reader.of(g) and reader.of(g)[-1]["type"] == "end"
                               for g in gone), PATIENCE, "the removed games' ends")
        back = ids[:10]
        cursors = {g: max([m["event"]["seq"] for m in reader.of(g) if m["type"] == "event"],
                          default=0) for g in back}
        for game in games[:50] + games[::7]:
            move(stores, game)
        r = change(both["push"], reader.id, "add", back, cursors)
        assert r.status_code == 200 and len(r.json()["games"]) == 460
        for game in games[:10] + games[450:]:
            move(stores, game)
        following = back + ids[50:]
        newest = {g: stores.games.load(g).state.version for g in ids}
        wait_until(lambda: all(seen_version(reader, g) == newest[g] for g in following),
                   PATIENCE, "each followed game's newest view")
    finally:
        reader.close()

    assert sum(m["type"] == "event" for m in reader.taken()) > 500  # moves were carried
    for game_id in ids:
        messages = reader.of(game_id)
        log = [e.for_seat(None) for e in stores.games.all_events(game_id)]
        events = [m["event"] for m in messages if m["type"] == "event"]
        if game_id in following:
            assert events == log, game_id  # each once, in order, none missing
        else:  # removed: what came before its end, and nothing after
            assert events == log[:len(events)], game_id
            assert messages[-1] == {"type": "end", "game": game_id, "reason": "removed",
                                    "retry_ms": play.END_RETRY_MS}
        versions = [m["view"]["version"] for m in messages if m["type"] == "view"]
        assert versions == sorted(set(versions)), game_id
        if game_id in following:  # the newest view last, after every event
            assert messages[-1]["type"] == "view" and versions[-1] == newest[game_id]


def test_the_501st_game_is_refused_when_opened_or_added(
    both: dict[str, str], stores: Stores,
) -> None:
    push = both["push"]
    ids = [f"g{n}" for n in range(501)]
    r = requests.post(f"{push}/v1/streams/games", json={"games": ids}, headers=NDJSON,
                      timeout=PATIENCE)
    assert r.status_code == 422 and r.json()["code"] == "invalid_body"
    assert "at most 500" in r.json()["errors"]["json"]["games"][0]
    # the same id twice is one game
    games = [g for g, _ in new_games(stores, 2)]
    reader = Reader(push, {"games": [games[0]] * 600})
    try:
        assert reader.taken()[0]["games"] == [games[0]]
        r = change(push, reader.id, "add", [games[0], games[1], games[1]])
        assert r.status_code == 200 and r.json()["games"] == games
    finally:
        reader.close()


def test_a_change_of_a_stream_no_one_holds_is_404(both: dict[str, str]) -> None:
    for op in ("add", "remove"):
        for stream_id in ("nosuchstream", "no*such"):
            r = change(both["push"], stream_id, op, ["somegame"])
            assert r.status_code == 404 and r.json()["code"] == "unknown_stream", r.text
            assert r.headers["Content-Type"] == "application/problem+json"


def test_a_stream_that_ended_takes_no_more_changes(both: dict[str, str],
                                                   stores: Stores) -> None:
    game_id = new_games(stores, 1)[0][0]
    reader = Reader(both["push"], {"games": [game_id]})  # STREAM_MAX_SECONDS: 2
    wait_until(lambda: any(m["type"] == "end" and "game" not in m for m in reader.taken()),
               PATIENCE, "the stream's end")
    assert reader.taken()[-1] == {"type": "end", "reason": "max_duration",
                                  "retry_ms": play.END_RETRY_MS}
    r = change(both["push"], reader.id, "add", [game_id])
    assert r.status_code == 404 and r.json()["code"] == "unknown_stream"


def tagged(message: dict[str, Any], game_id: str) -> dict[str, Any]:
    return {"type": message["type"], "game": game_id,
            **{k: v for k, v in message.items() if k != "type"}}


def test_a_seat_tokens_stream_shows_its_own_seats_view_and_no_other_seats_cards(
    both: dict[str, str], stores: Stores,
) -> None:
    push = both["push"]
    game = new_games(stores, 1)[0]
    game_id, tokens = game
    for _ in range(5):
        move(stores, game)
    seat0 = {"Authorization": f"Bearer {tokens[0]}"}
    reader = Reader(push, {"games": [game_id]}, seat0)
    try:
        assert reader.response.headers["Cache-Control"] == "private, no-cache"
        wait_until(lambda: seen_version(reader, game_id) == 5, PATIENCE, "the view")
    finally:
        reader.close()
    mine = [m for m in reader.of(game_id) if m["type"] in ("event", "view")]
    # exactly what the game's own stream sends this seat, each with the game's id
    own = requests.get(f"{push}/v1/games/{game_id}/stream", headers={**NDJSON, **seat0},
                       timeout=PATIENCE)
    expected = [tagged(orjson.loads(line), game_id) for line in own.content.split(b"\n")
                if line and orjson.loads(line)["type"] in ("event", "view")]
    assert mine == expected
    view = mine[-1]["view"]
    assert view["you"]["seat"] == 0 and view["you"]["hand"]
    other_hand = orjson.loads(play.game_view_bytes(
        game_id, stores.games.load(game_id).state, 1))["you"]["hand"]
    # the other seat's hand as a list (a card alone may be public: the pile, two decks)
    assert orjson.dumps(other_hand).decode() not in orjson.dumps(mine).decode()
    # a seat token of another game is no seat of this one, as its own stream says
    other = new_games(stores, 1)[0][0]
    r = requests.post(f"{push}/v1/streams/games", json={"games": [game_id, other]},
                      headers={**NDJSON, **seat0}, timeout=PATIENCE)
    assert r.status_code == 401 and r.json()["code"] == "invalid_token"
    assert other in r.json()["detail"]


@pytest.mark.parametrize(("body", "status", "code"), [
    (b"not json", 422, "invalid_json"),
    (b"[]", 422, "invalid_body"),
    (b'{"games": []}', 422, "invalid_body"),
    (b'{"games": "abc"}', 422, "invalid_body"),
    (b'{"games": ["ok", "no*good"]}', 422, "invalid_body"),
    (b'{"games": ["ok", 7]}', 422, "invalid_body"),
    (b'{"games": ["' + b"x" * 65 + b'"]}', 422, "invalid_body"),
    (b'{"games": ["ok"], "colour": 1}', 422, "invalid_body"),
    (b'{"games": ["ok"], "after": {"other": 1}}', 422, "invalid_body"),
    (b'{"games": ["ok"], "after": {"ok": -1}}', 422, "invalid_body"),
    (b'{"games": ["nosuchgame"]}', 404, "unknown_game"),
])
def test_the_ids_of_a_stream_and_its_changes_are_checked(
    both: dict[str, str], body: bytes, status: int, code: str,
) -> None:
    push = both["push"]
    r = requests.post(f"{push}/v1/streams/games", data=body,
                      headers={**NDJSON, "Content-Type": "application/json"}, timeout=PATIENCE)
    assert (r.status_code, r.json()["code"]) == (status, code), r.text
    if code != "unknown_game":  # (a change is checked before its stream is looked for)
        r = requests.post(f"{push}/v1/streams/games/nosuchstream/add", data=body,
                          headers={"Content-Type": "application/json"}, timeout=PATIENCE)
        assert (r.status_code, r.json()["code"]) == (status, code), r.text


def test_a_cursor_past_a_games_newest_event_and_a_body_that_is_not_json_are_refused(
    both: dict[str, str], stores: Stores,
) -> None:
    push = both["push"]
    game_id = new_games(stores, 1)[0][0]
    r = requests.post(f"{push}/v1/streams/games",
                      json={"games": [game_id], "after": {game_id: 99}}, timeout=PATIENCE)
    assert r.status_code == 422 and r.json()["code"] == "invalid_cursor"
    r = requests.post(f"{push}/v1/streams/games", data=b"games=x",
                      headers={"Content-Type": "application/x-www-form-urlencoded"},
                      timeout=PATIENCE)
    assert r.status_code == 415 and r.json()["code"] == "unsupported_media_type"
    r = requests.get(f"{push}/v1/streams/games", timeout=PATIENCE)
    assert r.status_code == 405 and r.headers["Allow"] == "POST"


def test_the_web_workers_say_the_push_tier_serves_streams_of_many_games(
    both: dict[str, str],
) -> None:
    r = requests.post(f"{both['gunicorn']}/v1/streams/games", json={"games": ["x"]},
                      timeout=PATIENCE)
    assert r.status_code == 404 and r.json()["code"] == "not_found"
    assert "push tier" in r.json()["detail"]
