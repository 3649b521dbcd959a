"""``python -m service.webhooks.relay`` against a live gunicorn whose streams end every
2 s: an account's notes POSTed to a receiver on loopback, signed as Standard Webhooks say
(checked by the specification's algorithm written in tests/webhooks/receiver.py, not by
the library that signs), each of the webhook's types once and in order across the
stream's reconnections, with the body the service's own delivery sends; relayed again
from ``--after``, each with the id it had; and ``--trigger``'s samples of each type, of
the shape the OpenAPI document gives the account stream's notes."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import requests
from jsonschema import Draft202012Validator

from service.client import Account, Client
from service.core.rules import PRESETS
from service.webhooks import USER_AGENT, WEBHOOK_TYPES, new_secret
from service.webhooks.relay import main, sample
from tests.bots.challenger import register
from tests.conftest import ROOT
from tests.webhooks.receiver import Received, receiving, signed_by

DOCUMENT = json.loads((ROOT / "openapi" / "openapi.json").read_text())
NOTE_SCHEMAS = {"your_turn": "YourTurnNote", "challenge": "ChallengeNote",
                "game_finished": "GameFinishedNote"}


def documented(kind: str, note: dict[str, Any]) -> list[str]:
    """What is wrong with ``note`` as the document's schema of a ``kind`` note says."""
    schema = {**DOCUMENT, "$ref": f"#/components/schemas/{NOTE_SCHEMAS[kind]}"}
    return [error.message for error in Draft202012Validator(schema).iter_errors(note)]


def test_there_is_a_sample_of_each_type_of_webhook_and_each_is_documented() -> None:
    rules = PRESETS["classic"].to_dict()  # what GET /v1/rules/presets answers for it
    assert set(NOTE_SCHEMAS) == WEBHOOK_TYPES
    for kind in WEBHOOK_TYPES:
        note = sample(kind, "ann", rules, 1_800_000_000.0)
        assert note["type"] == kind
        assert documented(kind, {**note, "seq": 1}) == []
    assert documented("challenge", {**sample("challenge", "ann", {}, 0.0), "seq": 1})
    with pytest.raises(ValueError):
        sample("game_started", "ann", rules, 0.0)


def delivered(got: Received, secret: str, handle: str) -> dict[str, Any]:
    """A request's note, once its headers and signature are checked as a receiver would."""
    assert got.path == "/hook"
    assert got.headers["content-type"] == "application/json"
    assert got.headers["user-agent"] == USER_AGENT
    assert re.fullmatch(r"msg_[0-9a-f]{32}", got.headers["webhook-id"])
    assert signed_by(secret, got.headers, got.body)
    assert not signed_by(new_secret(), got.headers, got.body)
    envelope = json.loads(got.body)
    assert set(envelope) == {"type", "timestamp", "data"}
    assert envelope["data"]["type"] == envelope["type"]
    assert envelope["data"].pop("account") == handle
    return envelope["data"]  # type: ignore[no-any-return]


class Printed:
    """What a relay process prints, read from the file it writes to."""

    def __init__(self, path: Path, proc: subprocess.Popen[bytes]) -> None:
        self.path, self.proc = path, proc

    def lines(self) -> list[str]:
        return self.path.read_text().splitlines()

    def wait_for(self, pattern: str, count: int = 1, timeout: float = 60) -> list[str]:
        """Block until ``count`` printed lines match ``pattern``."""
        deadline = time.monotonic() + timeout
        while True:
            found = [line for line in self.lines() if re.search(pattern, line)]
            if len(found) >= count:
                return found
            assert self.proc.poll() is None, "\n".join(self.lines())
            assert time.monotonic() < deadline, f"no {count} × {pattern!r}: {self.lines()}"
            time.sleep(0.05)


@contextmanager
def relaying(url: str, key: str, secret: str, forward_to: str, tmp_path: Path,
             *extra: str) -> Iterator[Printed]:
    """The command as docs/accounts.md gives it: key and secret in the environment."""
    out = tmp_path / f"relay-{time.monotonic_ns()}.txt"
    with out.open("w") as written:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.webhooks.relay", "--url", url,
             "--forward-to", forward_to, *extra], cwd=tmp_path, stdout=written,
            stderr=subprocess.STDOUT,
            env={**os.environ, "THREE_THIRTEEN_KEY": key,
                 "THREE_THIRTEEN_WEBHOOK_SECRET": secret})
        try:
            yield Printed(out, proc)
        finally:
            proc.terminate()
            proc.wait(10)


def play_until_a_turn_of(url: str, game_id: str, keys: dict[int, str], seat: int) -> None:
    """Move with the first legal action until it is ``seat``'s turn (a ``your_turn``)."""
    while True:
        view = requests.get(f"{url}/v1/games/{game_id}", timeout=10).json()
        mover = view["round"]["current_seat"]
        if mover == seat and view["round"]["phase"] == "draw":
            return
        auth = {"Authorization": f"Bearer {keys[mover]}"}
        mine = requests.get(f"{url}/v1/games/{game_id}", headers=auth, timeout=10).json()
        sent = requests.post(f"{url}/v1/games/{game_id}/actions", json=mine["legal_actions"][0],
                             headers={**auth, "If-Match": f'"{mine["version"]}"'}, timeout=10)
        assert sent.status_code == 200, sent.text


def test_an_accounts_notes_are_relayed_signed_once_each_across_reconnections_and_again_from_after(
        live_server: str, tmp_path: Path) -> None:
    handle, key = register(live_server, "relayed", bot=False)
    _, rival = register(live_server, "rival", bot=False)
    secret = new_secret()
    with receiving() as receiver, relaying(live_server, key, secret, receiver.url(),
                                           tmp_path) as relay:
        relay.wait_for(rf"^relaying the notes of {handle} after note 0 to ")
        made = requests.post(f"{live_server}/v1/challenges", timeout=10,
                             headers={"Authorization": f"Bearer {rival}"},
                             json={"to": [handle], "turn_seconds": 600})
        assert made.status_code == 201, made.text
        receiver.wait_for(1, 30)
        # the stream ends every 2 s: what comes next comes on another connection
        relay.wait_for(r"^the stream ended \(max_duration\): connecting again after note 1$")
        accepted = requests.post(
            f"{live_server}/v1/challenges/{made.json()['challenge_id']}/accept",
            headers={"Authorization": f"Bearer {key}"}, timeout=10).json()
        game_id = accepted["game_id"]
        play_until_a_turn_of(live_server, game_id, {0: rival, 1: key}, 1)
        relay.wait_for(r"^sent your_turn")
        resigned = requests.post(f"{live_server}/v1/games/{game_id}/actions", timeout=10,
                                 headers={"Authorization": f"Bearer {key}"},
                                 json={"type": "resign"})
        assert resigned.json()["status"] == "finished", resigned.text
        notes = list(Account(Client(live_server), key).notes(0))  # until the stream ends
        wanted = [n for n in notes if n["type"] in WEBHOOK_TYPES]
        assert wanted[0]["type"] == "challenge"
        assert {"your_turn", "game_finished"} <= {n["type"] for n in wanted}
        receiver.wait_for(len(wanted), 30)
        # a reconnection after the last note, then nothing more: each note came once
        after = notes[-1]["seq"]
        relay.wait_for(rf"^the stream ended \(max_duration\): connecting again after note "
                       rf"{after}$", 2)
        relay.wait_for(r"^skipped game_started \(note \d+\): no webhook is sent for it$")
        first = list(receiver.received)
    assert len(first) == len(wanted)
    for got, note in zip(first, wanted, strict=True):
        data = delivered(got, secret, handle)
        assert data == {k: v for k, v in note.items() if k != "seq"}
    ids = [got.headers["webhook-id"] for got in first]
    assert len(set(ids)) == len(ids)

    # again from before the first note: the same notes, each with the id it had
    with receiving() as again, relaying(live_server, key, secret, again.url(), tmp_path,
                                        "--after", "0") as relay:
        again.wait_for(len(wanted), 30)
        relay.wait_for(rf"connecting again after note {after}$")
        assert [got.headers["webhook-id"] for got in again.received] == ids
        assert [delivered(got, secret, handle) for got in again.received] == [
            delivered(got, secret, handle) for got in first]


def test_a_trigger_sends_a_signed_sample_of_each_type_and_says_whether_it_was_taken(
        live_server: str, tmp_path: Path) -> None:
    handle, key = register(live_server, "triggered", bot=False)
    (tmp_path / "key").write_text(key)
    secret_file = tmp_path / "secret"
    secret_file.write_text(new_secret())
    common = ["--url", live_server, "--key-file", str(tmp_path / "key")]
    with receiving() as receiver:
        for kind in sorted(WEBHOOK_TYPES):
            out = io.StringIO()
            assert main([*common, "--secret-file", str(secret_file), "--forward-to",
                         receiver.url(), "--trigger", kind], out=out) == 0
            assert re.fullmatch(rf"sent {kind} \(a sample, msg_[0-9a-f]{{32}}\): status 200\n",
                                out.getvalue())
        got = receiver.wait_for(len(WEBHOOK_TYPES), 10)
        for request, kind in zip(got, sorted(WEBHOOK_TYPES), strict=True):
            data = delivered(request, secret_file.read_text(), handle)
            assert data["type"] == kind
            assert documented(kind, {**data, "seq": 1}) == []
        # without a secret, one is made for the run and printed first, and signs
        out = io.StringIO()
        assert main([*common, "--forward-to", receiver.url(), "--trigger", "your_turn"],
                    out=out) == 0
        made = re.match(r"signing with (whsec_\S+) \(made for this run", out.getvalue())
        assert made, out.getvalue()
        assert signed_by(made.group(1), receiver.wait_for(4, 10)[3].headers,
                         receiver.received[3].body)
    with receiving(then=500) as refusing:
        out = io.StringIO()
        assert main([*common, "--secret-file", str(secret_file), "--forward-to",
                     refusing.url(), "--trigger", "challenge"], out=out) == 1
        assert out.getvalue().startswith("FAILED challenge (a sample, msg_")
        assert out.getvalue().endswith("): status 500\n")
