"""The project's own scenario checks over HTTP, with the project's client.

Each function is one row of the table. They speak HTTP only (no import of the server's
code but the client and the bots), so they hold any implementation to the contract:
what the documents say in words, which schemathesis cannot see (that a token shows only
its seat's hand, that a stale ``If-Match`` is refused, that a retry is replayed)."""

from __future__ import annotations

import hashlib
import json
import threading
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from service.bots import make_bot
from service.client import ApiError, Client, GameView, Seat, You

from .report import Check

__all__ = ["scenario_checks"]

#: Headers every view must carry so no cache shows one bearer's body to another.
VIEW_VARY = "authorization"


def _you(view: GameView) -> You:
    """The seat part of a seat's view (a check's failure if the server sent none)."""
    you = view["you"]
    assert you is not None, "a seat's view without its hand"
    return you


def _on_turn(view: GameView) -> int:
    """The seat on turn (a check's failure if nobody is: every game here is in play)."""
    seat = view["round"]["current_seat"]
    assert seat is not None, "a game in play with nobody on turn"
    return seat


def _problem(call: Callable[[], object], status: int, code: str) -> str:
    try:
        call()
    except ApiError as err:
        assert err.status == status, f"expected {status} {code}, got {err.status} {err.code}"
        assert err.code == code, f"expected code {code}, got {err.code}"
        assert err.headers.get("content-type", "").startswith("application/problem+json"), \
            f"{code}: content type {err.headers.get('content-type')!r}"
        for member in ("type", "title", "status", "detail", "code"):
            assert member in err.problem, f"{code}: no {member!r} in the problem"
        return code
    raise AssertionError(f"expected {status} {code}, the request succeeded")


def _stream_lines(url: str, token: str | None, timeout: float) -> Iterator[dict[str, Any]]:
    """The NDJSON stream's messages, until the caller stops reading (heartbeats skipped)."""
    headers = {"Accept": "application/x-ndjson"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, headers=headers)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        for raw in response:
            if raw.strip():
                yield json.loads(raw)


class Scenarios:
    """The checks against one deployment; games they create are two-seat games."""

    def __init__(self, url: str, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.client = Client(self.url, timeout=timeout)
        self.timeout = timeout

    # -- read-only ----------------------------------------------------------------

    def document(self) -> str:
        doc = self.client.request("GET", "/openapi.json").body
        assert doc["openapi"].startswith("3.1"), f"OpenAPI {doc['openapi']}"
        ops = [op for item in doc["paths"].values() for m, op in item.items()
               if m in ("get", "post", "put", "delete", "patch")]
        missing = [op.get("summary") for op in ops if not op.get("operationId")]
        assert not missing, f"operations without operationId: {missing}"
        return f"OpenAPI {doc['openapi']}, {len(ops)} operations"

    def presets(self) -> str:
        presets = self.client.presets()
        assert {"classic"} <= set(presets), f"presets: {sorted(presets)}"
        return ", ".join(sorted(presets))

    def problems_read_only(self) -> str:
        codes = [
            _problem(lambda: self.client.request("GET", "/v1/games/nosuchgame0000"), 404,
                     "unknown_game"),
            _problem(lambda: self.client.request("GET", "/v1/nothing-here"), 404, "not_found"),
        ]
        return ", ".join(codes)

    # -- writing ------------------------------------------------------------------

    def _game(self, rules: dict[str, Any] | None = None) -> tuple[str, list[str]]:
        created = self.client.create_game(["ann", "bob"], rules=rules)
        tokens = [s["token"] for s in created.seats]
        return created.game_id, tokens

    def problems_writing(self) -> str:
        game_id, tokens = self._game()
        view = self.client.view(game_id, tokens[0])
        idle = tokens[1 - _on_turn(view)]
        codes = [
            _problem(lambda: self.client.request("POST", "/v1/games", body={"players": []}),
                     422, "invalid_body"),
            _problem(lambda: self.client.request(
                "POST", f"/v1/games/{game_id}/actions", body={"type": "draw", "source": "stock"},
                token="not-a-token"), 401, "invalid_token"),
            _problem(lambda: self.client.request(
                "POST", f"/v1/games/{game_id}/actions", body={"type": "draw", "source": "stock"},
                token=idle), 409, "not_your_turn"),
        ]
        return ", ".join(codes)

    def full_game(self, preset: str) -> str:
        game_id, tokens = self._game({"preset": preset})
        finals: dict[int, GameView] = {}
        errors: list[BaseException] = []

        def play(seat: int) -> None:
            try:
                view = self.client.view(game_id, tokens[seat])
                finals[seat] = Seat(self.client, game_id, seat, tokens[seat], view).play(
                    make_bot("greedy", seed=seat))
            except BaseException as exc:  # reported below, in the check's row
                errors.append(exc)

        threads = [threading.Thread(target=play, args=(s,)) for s in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]
        final = finals[0]
        assert final["status"] == "finished", final["status"]
        commitment = hashlib.sha256(f"{final['seed_salt']}:{final['seed']}".encode()).hexdigest()
        assert commitment == final["seed_commitment"], "the revealed seed does not match"
        totals = [p["total"] for p in final["players"]]
        return f"{final['rules']['preset']}: {final['round']['rounds']} rounds, totals {totals}"

    def secrecy(self) -> str:
        game_id, tokens = self._game()
        views = [self.client.view(game_id, t) for t in tokens]
        spectator = self.client.view(game_id)
        hands = [set(_you(v)["hand"]) for v in views]
        assert spectator["you"] is None, "the spectator view has a hand"
        for view in (*views, spectator):
            assert "seed" not in view and "seed_salt" not in view, "the seed before the end"
            for player in view["players"]:
                assert "hand" not in player, "a player's hand in the players list"
        for seat in (0, 1):
            # the other seat's view of the same cards: only counts, never the cards
            assert _you(views[1 - seat])["seat"] == 1 - seat
        events_0, _ = self.client.events(game_id, tokens[0])
        events_s, _ = self.client.events(game_id)
        dealt = [e for e in events_0 if e["type"] == "round_started"]
        assert dealt and set(dealt[-1].get("hand", [])) == hands[0], "seat 0's dealt hand"
        assert all("hand" not in e for e in events_s), "a dealt hand in the spectator's events"
        events_1, _ = self.client.events(game_id, tokens[1])
        assert all(set(e.get("hand", [])) != hands[0] for e in events_1), "seat 0's hand to seat 1"
        stream = _you(self._first_view(game_id, tokens[1]))
        assert stream["seat"] == 1 and set(stream["hand"]) == hands[1]
        spectator_stream = self._first_view(game_id, None)
        assert spectator_stream["you"] is None, "the spectator stream has a hand"
        return "views, events and streams show each seat only its hand"

    def _first_view(self, game_id: str, token: str | None) -> GameView:
        url = f"{self.url}/v1/games/{game_id}/stream"
        for message in _stream_lines(url, token, self.timeout):
            if message["type"] == "event":
                assert token is not None or "hand" not in message["event"], "hand in a stream"
            if message["type"] == "view":
                view: GameView = message["view"]  # the JSON the stream sent
                return view
        raise AssertionError("the stream ended before a view")

    def _mover(self) -> tuple[str, str, GameView]:
        game_id, tokens = self._game()
        seat = _on_turn(self.client.view(game_id))
        return game_id, tokens[seat], self.client.view(game_id, tokens[seat])

    def if_match(self) -> str:
        game_id, token, before = self._mover()
        view = self.client.request("POST", f"/v1/games/{game_id}/actions", token=token,
                                   body=before["legal_actions"][0]).body  # the draw
        stale = f'"{before["version"]}"'

        def act() -> Any:
            return self.client.request("POST", f"/v1/games/{game_id}/actions", token=token,
                                       body=view["legal_actions"][0], headers={"If-Match": stale})
        _problem(act, 412, "version_conflict")
        assert self.client.view(game_id)["version"] == view["version"], "a stale action applied"
        return f"If-Match {stale} at version {view['version']}: 412 version_conflict"

    def idempotent_retry(self) -> str:
        game_id, token, view = self._mover()
        headers = {"Idempotency-Key": uuid.uuid4().hex}
        body = view["legal_actions"][0]
        path = f"/v1/games/{game_id}/actions"
        first = self.client.request("POST", path, token=token, body=body, headers=headers)
        again = self.client.request("POST", path, token=token, body=body, headers=headers)
        assert again.headers.get("idempotent-replayed") == "true", "the retry was not replayed"
        assert again.body == first.body, "the replay differs from the first answer"
        after = self.client.view(game_id)["version"]
        assert after == view["version"] + 1, f"version {view['version']} -> {after}: applied twice?"
        return "a retry with the same key answered the first response, applied once"

    def view_cache_headers(self) -> str:
        game_id, tokens = self._game()
        seat = self.client.request("GET", f"/v1/games/{game_id}", token=tokens[0])
        spectator = self.client.request("GET", f"/v1/games/{game_id}")
        for who, response in (("seat", seat), ("spectator", spectator)):
            vary = {v.strip().lower() for v in response.headers.get("vary", "").split(",")}
            assert VIEW_VARY in vary, f"{who} view: Vary {response.headers.get('vary')!r}"
            assert "no-cache" in response.headers.get("cache-control", ""), \
                f"{who} view: Cache-Control {response.headers.get('cache-control')!r}"
        assert "private" in seat.headers.get("cache-control", ""), "a seat's view not private"
        return (f"Vary: {seat.headers.get('vary')}; Cache-Control: "
                f"{seat.headers.get('cache-control')} (seat), "
                f"{spectator.headers.get('cache-control')} (spectator)")


def scenario_checks(url: str, timeout: float = 30.0) -> list[Check]:
    """Every scenario check, in table order (the presets are read from the server)."""
    s = Scenarios(url, timeout)
    checks = [
        Check("document", s.document, writes=False),
        Check("presets", s.presets, writes=False),
        Check("problems (read-only)", s.problems_read_only, writes=False),
        Check("problems", s.problems_writing),
        Check("secrecy", s.secrecy),
        Check("if-match 412", s.if_match),
        Check("idempotent retry", s.idempotent_retry),
        Check("view cache headers", s.view_cache_headers),
    ]
    try:
        presets = sorted(s.client.presets())
    except Exception:  # the presets check reports it
        presets = []
    checks += [Check(f"full game: {p}", partial(s.full_game, p)) for p in presets]
    return checks
