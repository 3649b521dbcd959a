"""What a running service pushes is what its AsyncAPI document describes: every message
of a game's stream, of a stream of many games, of an account's stream and of its webhook,
as a client receives it.

A gunicorn (gevent workers, streams ending after 4 s so clients reconnect, heartbeats
every 0.5 s), a push process with the same settings (the only one to serve a stream of
many games), a move worker (bot moves, tournaments, webhook deliveries, allowed to a
receiver on loopback: ``WEBHOOK_ALLOW_PRIVATE=1``) and an analysis worker. What is
played and who follows it, each stream read as a client reads it (reconnecting after an
``end`` other than ``finished``, from the last ``seq``):

- a game: followed in NDJSON by seat 0 and in SSE by a spectator from before its second
  seat is claimed (each stream idle long enough for heartbeats), played to the end by
  ``greedy`` in both seats; then both ask for a rematch and its analysis is asked for,
  and a second pair (an NDJSON spectator, seat 1's SSE with a ticket) replays it all
  and follows the analysis to its end; meanwhile a stream of many games follows that game
  and its rematch, in NDJSON with seat 1's token and in SSE as a spectator: the game
  leaves it once its analysis is done, the stream ends after 4 s and is opened again
  with each game's last ``seq`` as its ``after``, and the rematch is then removed from it;
- the account ``dan``, followed in NDJSON with its key and in SSE with tickets: it is
  challenged (once accepted and played, once canceled), its own challenge is declined,
  and it is invited to a tournament, joins it and plays its round;
- ``dan``'s webhook: every delivery its receiver got.

Each message is then found in the document served at /asyncapi.json by its channel, its
format and its name (what a client switches on: NDJSON ``type``, SSE ``event``, the
webhook body's ``type``) and validated against that message's payload and headers
(``jsonschema``, draft 07: AsyncAPI's schema format). A message the document does not
describe fails the test; the last test shows it does, with a message taken out.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
from jsonschema import Draft7Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT7

from service.bots.registry import make_bot
from service.client import Client, Seat
from tests.conftest import ROOT, free_port, redis_client, redis_url_for_tests, wait_until
from tests.webhooks.receiver import Receiver, receiving

NDJSON = "application/x-ndjson"
SSE = "text/event-stream"
RULES = {"preset": "classic", "hand_sizes": [3]}  # one-round games
WAIT = 90.0  # generous bound on anything awaited
#: Where a message's payload is absent (an SSE heartbeat or lone `retry`).
NONE = object()


@dataclass
class Pushed:
    """One message as a client received it: its channel, format and name, and its
    headers (SSE fields but ``data``; a webhook's HTTP headers) and payload."""

    channel: str
    content_type: str
    name: str | None
    headers: dict[str, str] | None
    payload: Any
    raw: str


@dataclass
class Follower:
    """A client of one stream: connects, reads every message into ``pushed``, and
    reconnects after an ``end`` from the last ``seq`` seen, until the end is ``finished``
    or, once ``stop`` is set, at its next end."""

    base: str
    path: str
    channel: str
    content_type: str
    credentials: Callable[[], tuple[dict[str, str], dict[str, str]]]
    pushed: list[Pushed] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None
    after: int | None = None
    finished: bool = False

    def start(self) -> Follower:
        threading.Thread(target=self._run, daemon=True).start()
        return self

    def _run(self) -> None:
        try:
            self._follow()
        except BaseException as error:  # reported by done()
            self.error = error
        finally:
            self.finished = True

    def _follow(self) -> None:
        while True:
            headers, params = self.credentials()
            if self.after is not None:  # SSE resumes as EventSource does; NDJSON by query
                if self.content_type == SSE:
                    headers = {**headers, "Last-Event-ID": str(self.after)}
                else:
                    params = {**params, "after": str(self.after)}
            with requests.get(self.base + self.path, params=params, stream=True,
                              headers={"Accept": self.content_type, **headers},
                              timeout=(10, 60)) as response:
                assert response.status_code == 200, response.text
                read = _sse if self.content_type == SSE else _ndjson
                end = None
                for message in read(self.channel, _lines(response)):
                    self.pushed.append(message)
                    self._note_cursor(message)
                    if message.name == "end":
                        end = message
            assert end is not None, f"{self.path} closed without an end message"
            if end.payload.get("reason") == "finished" or self.stop.is_set():
                return

    def _note_cursor(self, message: Pushed) -> None:
        if message.name != "event":
            return
        if self.content_type == SSE:
            self.after = int((message.headers or {})["id"])
        else:
            self.after = message.payload["event"]["seq"]

    def saw(self, name: str) -> bool:
        return any(m.name == name for m in self.pushed)

    def notes(self) -> set[str]:
        """The types of the events or notes received so far."""
        return {(m.payload if self.content_type == SSE else m.payload["event"])["type"]
                for m in list(self.pushed) if m.name == "event"}

    def done(self) -> list[Pushed]:
        wait_until(lambda: self.finished, WAIT, f"{self.path} ({self.content_type}) to end")
        if self.error is not None:
            raise self.error
        return self.pushed


@dataclass
class ManyFollower:
    """A client of a stream of many games (``POST /v1/streams/games`` on the push tier),
    as docs/streams.md says one resumes it: it keeps each game's last ``seq`` and, when
    the stream ends (an ``end`` without ``game``), opens it again on the games that have
    not left it, with those as ``after``. On each stream opened again it removes
    ``removed`` (once), and it is done when every game has left (``finished``, or
    ``removed``). Events must come each once and in order per game, across streams."""

    base: str
    content_type: str
    headers: dict[str, str]
    games: list[str]
    removed: str
    pushed: list[Pushed] = field(default_factory=list)
    cursors: dict[str, int] = field(default_factory=dict)
    left: dict[str, str] = field(default_factory=dict)
    streams: list[str] = field(default_factory=list)
    error: BaseException | None = None
    finished: bool = False

    def start(self) -> ManyFollower:
        threading.Thread(target=self._run, daemon=True).start()
        return self

    def _run(self) -> None:
        try:
            self._follow()
        except BaseException as error:  # reported by done()
            self.error = error
        finally:
            self.finished = True

    def _follow(self) -> None:
        while len(self.left) < len(self.games):
            games = [g for g in self.games if g not in self.left]
            body: dict[str, Any] = {"games": games,
                                    "after": {g: self.cursors[g] for g in games
                                              if g in self.cursors}}
            with requests.post(self.base + "/v1/streams/games", json=body, stream=True,
                               headers={"Accept": self.content_type, **self.headers},
                               timeout=(10, 60)) as response:
                assert response.status_code == 200, response.text
                read = _sse if self.content_type == SSE else _ndjson
                for message in read("gamesStream", _lines(response)):
                    self.pushed.append(message)
                    if self._take(message):
                        break
                else:
                    raise AssertionError("a stream of many games closed without an end")

    def _take(self, message: Pushed) -> bool:
        """Note what ``message`` says; whether this stream is done with (it ended, or
        every game left it)."""
        payload = message.payload
        if message.name == "stream":
            self.streams.append(payload["id"])
            if len(self.streams) > 1 and self.removed not in self.left:
                r = requests.post(f"{self.base}/v1/streams/games/{payload['id']}/remove",
                                  json={"games": [self.removed]}, timeout=30)
                assert r.status_code == 200, r.text
                assert self.removed not in r.json()["games"]
        elif message.name == "event":
            seq = payload["event"]["seq"]
            assert seq > self.cursors.get(payload["game"], 0), f"{seq} again or out of order"
            self.cursors[payload["game"]] = seq
        elif message.name == "end":
            if "game" not in payload:
                return True
            self.left[payload["game"]] = payload["reason"]
        return len(self.left) == len(self.games)

    def done(self) -> list[Pushed]:
        wait_until(lambda: self.finished, WAIT, f"the stream of many games ({self.content_type})")
        if self.error is not None:
            raise self.error
        return self.pushed


def _lines(response: requests.Response) -> Iterator[str]:
    """The response's lines as they arrive (each HTTP chunk as it comes, not a buffer)."""
    buffer = b""
    for chunk in response.iter_content(chunk_size=None):
        buffer += chunk
        *complete, buffer = buffer.split(b"\n")
        for line in complete:
            yield line.decode()
    if buffer:
        yield buffer.decode()


def _ndjson(channel: str, lines: Iterator[str]) -> Iterator[Pushed]:
    for line in lines:
        if not line:
            yield Pushed(channel, NDJSON, "heartbeat", None, "", line)
            continue
        payload = json.loads(line)
        name = payload.get("type") if isinstance(payload, dict) else None
        yield Pushed(channel, NDJSON, name, None, payload, line)


def _sse(channel: str, lines: Iterator[str]) -> Iterator[Pushed]:
    """Server-Sent Events as the HTML standard parses them: a blank line ends a message;
    ``data`` lines join; ``:`` starts a comment. The name is the ``event`` field, or
    ``heartbeat`` for a comment and ``retry`` for a lone ``retry`` field."""
    fields: dict[str, str] = {}
    data: list[str] = []
    comments: list[str] = []
    raw: list[str] = []
    for line in lines:
        if line:
            raw.append(line)
            if line.startswith(":"):
                comments.append(line[1:].removeprefix(" "))
            else:
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "data":
                    data.append(value)
                else:
                    fields[name] = value
            continue
        if not raw:
            continue
        headers = dict(fields)
        if comments:
            headers["comment"] = "\n".join(comments)
        kind = fields.get("event") or ("heartbeat" if comments else
                                       "retry" if set(fields) == {"retry"} else None)
        yield Pushed(channel, SSE, kind, headers,
                     json.loads("\n".join(data)) if data else NONE, "\n".join(raw))
        fields, data, comments, raw = {}, [], [], []


# -- the document's check ---------------------------------------------------------------

DOCUMENT_URI = "urn:three-thirteen:asyncapi"


def problems(document: dict[str, Any], pushed: list[Pushed]) -> list[str]:
    """What in ``pushed`` ``document`` does not describe: a message no message of its
    channel, format and name matches, or one its payload or headers schema refuses."""
    registry = Registry().with_resource(
        DOCUMENT_URI, Resource(contents=document, specification=DRAFT7))

    def validate(pointer: str, value: Any) -> list[str]:
        validator = Draft7Validator({"$ref": f"{DOCUMENT_URI}#{pointer}"}, registry=registry,
                                    format_checker=Draft7Validator.FORMAT_CHECKER)
        return [f"{error.json_path}: {error.message}"[:300]
                for error in validator.iter_errors(value)]

    found = []
    for message in pushed:
        refs = document["channels"][message.channel]["messages"].values()
        ids = [ref["$ref"].removeprefix("#/components/messages/") for ref in refs]
        described = [i for i in ids if document["components"]["messages"][i]["name"]
                     == message.name and document["components"]["messages"][i][
                         "contentType"] == message.content_type]
        where = f"{message.channel} {message.content_type} {message.name!r}"
        if len(described) != 1:
            found.append(f"{where}: {len(described)} messages describe {message.raw[:200]!r}")
            continue
        pointer = f"/components/messages/{described[0]}"
        spec = document["components"]["messages"][described[0]]
        errors = []
        if "headers" in spec:
            errors += validate(pointer + "/headers", message.headers or {})
        elif message.headers:
            errors.append(f"headers the document does not describe: {message.headers}")
        if "payload" in spec:
            errors += (["no payload"] if message.payload is NONE
                       else validate(pointer + "/payload", message.payload))
        elif message.payload is not NONE:
            errors.append("a payload the document does not describe")
        found += [f"{where}: {error} in {message.raw[:200]!r}" for error in errors]
    return found


# -- the service and what is played on it -----------------------------------------------


@dataclass
class Service:
    """The base URLs of the web workers and of the push process."""

    web: str
    push: str


@pytest.fixture(scope="module")
def service(redis_server: str) -> Iterator[Service]:
    """A gunicorn, a push process, a move worker and an analysis worker on an emptied
    database."""
    url = redis_url_for_tests(redis_server, 2)
    redis_client(url).flushdb()
    env = {**os.environ, "REDIS_URL": url, "PORT": str(free_port()),
           "STREAM_MAX_SECONDS": "4", "STREAM_HEARTBEAT_SECONDS": "0.5",
           "WEBHOOK_ALLOW_PRIVATE": "1", "WEB_CONCURRENCY": "1", "WORKER_NICE": "0",
           "RATE_LIMIT": "off", "RATE_LIMIT_PER_ADDRESS": "off",
           "CREATION_LIMIT_PER_ADDRESS": "off", "ACCOUNT_LIMIT_PER_ADDRESS": "off",
           "CHALLENGE_LIMIT": "off", "ANALYSIS_LIMIT": "off", "BOT_GAMES_PER_ADDRESS": "off",
           "ACCESS_LOG": "", "LOG_LEVEL": "warning"}
    web = subprocess.Popen([str(Path(sys.prefix) / "bin" / "gunicorn"), "-c",
                            "deploy/gunicorn.conf.py", "service.app:create_app()"],
                           cwd=ROOT, env=env)
    push_port = str(free_port())
    workers = [subprocess.Popen([sys.executable, "-m", *args], cwd=ROOT, env=env)
               for args in (["service.workers"], ["service.workers", "--analysis"],
                            ["service.push", "--host", "127.0.0.1", "--port", push_port])]
    bases = Service(f"http://127.0.0.1:{env['PORT']}", f"http://127.0.0.1:{push_port}")
    try:
        for name, base in (("gunicorn", bases.web), ("the push process", bases.push)):
            wait_until(lambda b=base: requests.get(f"{b}/healthz", timeout=1).ok, 30, name)
        yield bases
    finally:
        for proc in (*workers, web):
            proc.terminate()
        for proc in (*workers, web):
            proc.wait(30)


def _bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def _post(base: str, path: str, secret: str | None = None, body: Any = None,
          status: int = 200) -> Any:
    r = requests.post(base + path, json=body, timeout=30,
                      headers=_bearer(secret) if secret else {})
    assert r.status_code == status, (path, r.status_code, r.text)
    return r.json() if r.content else None


def _play(client: Client, game_id: str, credentials: dict[int, str]) -> None:
    """Play every seat of ``credentials`` (seat → token or key) with ``greedy`` to the end."""
    errors: list[BaseException] = []

    def play(seat: int) -> None:
        try:
            Seat(client, game_id, seat, credentials[seat]).play(make_bot("greedy", seed=seat))
        except BaseException as error:  # raised below
            errors.append(error)

    threads = [threading.Thread(target=play, args=(s,)) for s in credentials]
    for t in threads:
        t.start()
    for t in threads:
        t.join(WAIT)
    assert not errors and not any(t.is_alive() for t in threads), errors


def _heartbeats(*followers: Follower) -> None:
    for f in followers:
        wait_until(lambda f=f: f.saw("heartbeat"), WAIT, f"a heartbeat on {f.path}")


def _game(service: Service) -> tuple[list[Pushed], list[ManyFollower]]:
    """What the game's streams pushed, and the streams of many games that follow it and
    its rematch (still going: they take a stream's 4 s at least)."""
    base = service.web
    client = Client(base)
    created = client.create_game(["ann", None], rules=RULES, seed="asyncapi")
    game_id, ann = created.game_id, created.seats[0]["token"]
    path = f"/v1/games/{game_id}/stream"
    first = [Follower(base, path, "gameStream", NDJSON, lambda: (_bearer(ann), {})).start(),
             Follower(base, path, "gameStream", SSE, lambda: ({}, {})).start()]
    _heartbeats(*first)
    bob = client.claim(game_id, 1, "bob").token
    _play(client, game_id, {0: ann, 1: bob})
    pushed = [m for f in first for m in f.done()]
    _post(base, f"/v1/games/{game_id}/rematch", ann)
    rematch = _post(base, f"/v1/games/{game_id}/rematch", bob)["rematch"]["game_id"]
    _post(base, f"/v1/games/{game_id}/analysis", status=202)
    many = [ManyFollower(service.push, NDJSON, _bearer(bob), [game_id, rematch],
                         rematch).start(),
            ManyFollower(service.push, SSE, {}, [game_id, rematch], rematch).start()]

    def ticket() -> tuple[dict[str, str], dict[str, str]]:
        made = _post(base, f"/v1/games/{game_id}/stream-tickets", bob, status=201)
        return {}, {"ticket": made["ticket"]}

    again = [Follower(base, path, "gameStream", NDJSON, lambda: ({}, {})).start(),
             Follower(base, path, "gameStream", SSE, ticket).start()]
    return pushed + [m for f in again for m in f.done()], many


def _account(base: str, receiver: Receiver) -> list[Pushed]:
    client = Client(base)
    cara = _post(base, "/v1/accounts", body={"handle": "cara", "bot": False}, status=201)["key"]
    dan = _post(base, "/v1/accounts", body={"handle": "dan", "bot": False}, status=201)["key"]
    r = requests.patch(f"{base}/v1/me", json={"webhook_url": receiver.url("/hooks")},
                       headers=_bearer(dan), timeout=30)
    assert r.status_code == 200, r.text

    def ticket() -> tuple[dict[str, str], dict[str, str]]:
        return {}, {"ticket": _post(base, "/v1/me/stream-tickets", dan, status=201)["ticket"]}

    followers = [
        Follower(base, "/v1/me/stream", "accountStream", NDJSON, lambda: (_bearer(dan), {})),
        Follower(base, "/v1/me/stream", "accountStream", SSE, ticket)]
    for f in followers:
        f.start()
    _heartbeats(*followers)
    challenge = {"to": ["dan"], "rules": RULES}
    canceled = _post(base, "/v1/challenges", cara, challenge, 201)["challenge_id"]
    _post(base, f"/v1/challenges/{canceled}/cancel", cara)
    declined = _post(base, "/v1/challenges", dan, {"to": ["cara"], "rules": RULES}, 201)
    _post(base, f"/v1/challenges/{declined['challenge_id']}/decline", cara)
    accepted = _post(base, "/v1/challenges", cara, challenge, 201)["challenge_id"]
    game_id = _post(base, f"/v1/challenges/{accepted}/accept", dan)["game_id"]
    _play(client, game_id, {0: cara, 1: dan})

    tournament = _post(base, "/v1/tournaments", cara, {
        "name": "AsyncAPI cup", "system": "swiss", "seats": 2, "rounds": 1, "rules": RULES,
        "turn_seconds": 600, "rated": False, "entrants": ["cara", "dan"]}, 201)
    path = f"/v1/tournaments/{tournament['tournament_id']}"
    _post(base, path + "/join", dan)
    _post(base, path + "/start", cara)

    def first_game() -> str | None:
        played = requests.get(base + path, timeout=30).json()["played"]
        return played[0]["tables"][0]["game_id"] if played and played[0]["tables"] else None

    wait_until(first_game, WAIT, "the tournament's first game")
    game_id = first_game()
    assert game_id is not None
    keys = [cara, dan]
    seats = {client.view(game_id, key)["you"]["seat"]: key for key in keys}
    _play(client, game_id, seats)
    wait_until(lambda: all("tournament_finished" in f.notes() for f in followers), WAIT,
               "tournament_finished on dan's streams")
    for f in followers:
        f.stop.set()
    return [m for f in followers for m in f.done()]


def _evaluation(base: str) -> list[Pushed]:
    """A bot account's evaluation against ``random``, two deals, its bot resigning every
    game at once (the quickest result): its ``evaluation_progress`` notes on both forms
    of its stream."""
    evie = _post(base, "/v1/accounts", body={"handle": "evie", "bot": True}, status=201)["key"]

    def ticket() -> tuple[dict[str, str], dict[str, str]]:
        return {}, {"ticket": _post(base, "/v1/me/stream-tickets", evie, status=201)["ticket"]}

    followers = [
        Follower(base, "/v1/me/stream", "accountStream", NDJSON, lambda: (_bearer(evie), {})),
        Follower(base, "/v1/me/stream", "accountStream", SSE, ticket)]
    for f in followers:
        f.start()
    started = _post(base, "/v1/evaluations", evie, {
        "preset": "classic", "anchors": ["random"], "max_deals": 2, "seed": "asyncapi"}, 202)
    url = f"{base}/v1/evaluations/{started['evaluation_id']}"

    def resigned_all() -> bool:
        for game in requests.get(f"{base}/v1/me/games", params={"status": "in_progress"},
                                 headers=_bearer(evie), timeout=30).json()["games"]:
            requests.post(f"{base}/v1/games/{game['game_id']}/actions",
                          json={"type": "resign"}, headers=_bearer(evie), timeout=30)
        return bool(requests.get(url, headers=_bearer(evie), timeout=30).json()["status"]
                    == "done")

    wait_until(resigned_all, WAIT, "the evaluation's end")
    wait_until(lambda: all("evaluation_progress" in f.notes() for f in followers), WAIT,
               "evaluation_progress on evie's streams")
    for f in followers:
        f.stop.set()
    return [m for f in followers for m in f.done()]


def _deliveries(receiver: Receiver) -> list[Pushed]:
    def types() -> set[str]:
        with receiver.lock:
            return {json.loads(r.body)["type"] for r in receiver.received}

    wait_until(lambda: {"challenge", "your_turn", "game_finished"} <= types(), WAIT,
               "a delivery of each webhook type")
    with receiver.lock:
        received = list(receiver.received)
    return [Pushed("webhook", r.headers.get("content-type", ""), json.loads(r.body).get("type"),
                   r.headers, json.loads(r.body), r.body.decode()) for r in received]


@pytest.fixture(scope="module")
def pushed(service: Service) -> dict[str, Any]:
    """The served document, and every message pushed on each channel."""
    document = requests.get(f"{service.web}/asyncapi.json", timeout=30).json()
    with receiving() as receiver:
        game, many = _game(service)
        account = _account(service.web, receiver)
        evaluation = _evaluation(service.web)
        webhooks = _deliveries(receiver)
    games = [m for f in many for m in f.done()]
    for f in many:  # each game left as the scenario has it, after the stream was resumed
        assert len(f.streams) >= 2 and set(f.left.values()) == {"finished", "removed"}
        assert f.left[f.removed] == "removed"
    return {"document": document,
            "messages": game + account + evaluation + webhooks + games}


# -- the tests --------------------------------------------------------------------------


def test_every_message_pushed_is_one_the_document_describes(pushed: dict[str, Any]) -> None:
    assert problems(pushed["document"], pushed["messages"]) == []


def test_the_scenarios_push_every_kind_of_message_on_each_channel(
        pushed: dict[str, Any]) -> None:
    """So the check above is not vacuous: each message of the document was pushed (the
    stream messages in both formats), every note type, and events of many types."""
    messages = pushed["messages"]
    kinds = {(m.channel, m.content_type, m.name) for m in messages}
    document = pushed["document"]
    listed = {(channel, document["components"]["messages"][ref["$ref"].split("/")[-1]][
        "contentType"], document["components"]["messages"][ref["$ref"].split("/")[-1]]["name"])
        for channel, item in document["channels"].items()
        for ref in item["messages"].values()}
    assert listed <= kinds, f"described but never pushed: {sorted(listed - kinds)}"
    notes = {m.payload["event"]["type"] for m in messages
             if m.channel == "accountStream" and m.content_type == NDJSON and m.name == "event"}
    assert notes == {"challenge", "challenge_declined", "challenge_canceled", "game_started",
                     "your_turn", "game_finished", "tournament_invited", "tournament_started",
                     "round_started", "tournament_finished", "evaluation_progress"}
    events = {m.payload["type"] for m in messages
              if m.channel == "gameStream" and m.content_type == SSE and m.name == "event"}
    assert {"seat_claimed", "round_started", "draw", "discard", "went_out", "laid_down",
            "round_ended", "game_finished", "rematch_asked", "rematch_started"} <= events
    ends = {(m.content_type, "game" in m.payload, m.payload["reason"]) for m in messages
            if m.channel == "gamesStream" and m.name == "end"}
    assert ends == {(kind, *end) for kind in (NDJSON, SSE) for end in (
        (True, "finished"), (True, "removed"), (False, "max_duration"))}


def test_a_message_type_the_document_leaves_out_fails_the_check(
        pushed: dict[str, Any]) -> None:
    """The check fails when the server sends what the document does not describe: here
    the document without the NDJSON analysis message of a game's stream, without the SSE
    one of a stream of many games, and without one note type."""
    for channel, message, where in (
            ("gameStream", "analysisLine", "gameStream application/x-ndjson 'analysis'"),
            ("gamesStream", "gamesAnalysisSse", "gamesStream text/event-stream 'analysis'")):
        document = copy.deepcopy(pushed["document"])
        del document["channels"][channel]["messages"][message]
        found = problems(document, pushed["messages"])
        assert found and all(where in p for p in found)

    document = copy.deepcopy(pushed["document"])
    notes = document["components"]["schemas"]["AccountNote"]["oneOf"]
    notes.remove({"$ref": "#/components/schemas/TournamentStartedNote"})
    found = problems(document, pushed["messages"])
    assert found and all("tournament_started" in p for p in found)
    assert {p.split(":")[0] for p in found} == {"accountStream application/x-ndjson 'event'",
                                                "accountStream text/event-stream 'event'"}
