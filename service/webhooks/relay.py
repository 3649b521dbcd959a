"""``python -m service.webhooks.relay``: an account's notes POSTed to a local URL as signed
webhooks, so that a webhook receiver can be developed on a machine with no public
address (what ``stripe listen --forward-to`` does for Stripe's).

Why a relay: the service sends a webhook only to a public address (a private one is
refused: docs/accounts.md#webhooks), so a receiver on a developer's laptop never hears
from it. This command follows the account's stream (``GET /v1/me/stream``, with its
key) and POSTs each note of the webhook's types (:data:`.events.WEBHOOK_TYPES`) to
``--forward-to`` as the service would: the same body (:func:`.events.payload`), the same
headers, signed and sent by the same code (:func:`.send.post`), with the secret given, or
with one made for the run and printed first.

Each note is POSTed once, in the stream's order, and its outcome printed; a failed one is
not tried again (``--after N`` relays again from the note after ``N``). The stream ends now
and then (``STREAM_MAX_SECONDS``, a restart of the service): the relay connects again
after the last note it read, so no note is sent twice, nor skipped. ``--trigger TYPE``
sends one made-up note of that type and stops.

The key comes from ``THREE_THIRTEEN_KEY`` or ``--key-file``, the secret from
``THREE_THIRTEEN_WEBHOOK_SECRET`` or ``--secret-file``: never from the command line,
which other users of a machine can read.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import secrets
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from service.client.account import Account
from service.client.errors import ApiError, TransportError
from service.client.http import Client
from service.core.instants import instant

from .events import WEBHOOK_TYPES, payload
from .send import Attempt, new_secret, post, sign

__all__ = ["Relay", "event_id", "main", "sample"]

#: The seconds one POST to the receiver may take (the service's WEBHOOK_TIMEOUT_SECONDS).
TIMEOUT_SECONDS = 5.0


def event_id(handle: str, seq: int) -> str:
    """The ``webhook-id`` the relay gives ``handle``'s note number ``seq``: the same each
    time that note is relayed, another for every account and note. (The service derives
    its own from what the note is about, which the stream does not show: the two differ.)"""
    digest = hashlib.sha256(f"relay\n{handle.casefold()}\n{seq}".encode()).hexdigest()
    return f"msg_{digest[:32]}"


def sample(kind: str, handle: str, rules: Mapping[str, Any], now: float) -> dict[str, Any]:
    """A made-up note of ``kind`` for ``handle``, of the shape the account stream documents
    (the OpenAPI document's ``YourTurnNote``, ``ChallengeNote`` and ``GameFinishedNote``:
    a test holds each to it), about a game and a challenge that do not exist (their ids
    say so); ``rules`` are a challenge's (a preset's, as ``GET /v1/rules/presets`` has it)."""
    game = {"game_id": "sample-game", "seat": 0}
    if kind == "your_turn":
        return {"type": kind, **game, "version": 0, "round": 1, "phase": "draw",
                "deadline": instant(now + 60)}
    if kind == "game_finished":
        return {"type": kind, **game, "version": 57, "winners": [0], "totals": [12, 45],
                "reason": "completed"}
    if kind == "challenge":
        challenge = {"challenge_id": "sample-challenge", "status": "pending",
                     "challenger": "sample-challenger", "to": [handle], "accepted": [],
                     "declined_by": None, "rules": dict(rules), "players": 2,
                     "turn_seconds": 60, "rated": False, "created": instant(now),
                     "expires": instant(now + 3600), "game_id": None}
        return {"type": kind, "challenge_id": challenge["challenge_id"],
                "challenge": challenge}
    raise ValueError(f"no webhook is sent for {kind!r}")


@dataclass
class Relay:
    """One account's notes to one receiver, signed with ``secret``."""

    account: Account
    handle: str
    forward_to: str
    secret: str
    out: TextIO = field(default_factory=lambda: sys.stdout)
    clock: Callable[[], float] = time.time

    def say(self, line: str) -> None:
        print(line, file=self.out, flush=True)

    def send(self, note: dict[str, Any], msg_id: str) -> Attempt:
        """POST ``note`` once, as the service would, and print what came of it."""
        sent = post(self.forward_to, self.secret, msg_id, payload(self.handle, note, self.clock()),
                    timeout=TIMEOUT_SECONDS, allow_private=True)
        number = f"note {note['seq']}" if "seq" in note else "a sample"
        self.say(f"{'sent' if sent.ok else 'FAILED'} {note['type']} ({number}, {msg_id}): "
                 f"{sent.reason}")
        return sent

    def follow(self, after: int, stopping: Callable[[], bool] = lambda: False) -> None:
        """Relay every note after ``after`` as it comes, until ``stopping()``: on the
        stream's end, or a service out of reach, connect again after the last note read."""
        while not stopping():
            try:
                for message in self.account.client.stream("/v1/me/stream",
                                                          token=self.account.key, after=after):
                    if message["type"] == "event":
                        note = message["event"]
                        after = note["seq"]
                        if note["type"] in WEBHOOK_TYPES:
                            self.send(note, event_id(self.handle, after))
                        else:
                            self.say(f"skipped {note['type']} (note {after}): no webhook "
                                     "is sent for it")
                    elif message["type"] == "end":
                        self.say(f"the stream ended ({message.get('reason')}): connecting "
                                 f"again after note {after}")
                        time.sleep(min(float(message.get("retry_ms") or 0), 5000.0) / 1000)
                    if stopping():
                        return
            except TransportError as err:
                self.say(f"the service is out of reach ({err}): trying again after note "
                         f"{after}")
                time.sleep(1.0)


def _read(path: Path | None, variable: str) -> str:
    return path.read_text().strip() if path else os.environ.get(variable, "").strip()


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m service.webhooks.relay",
        description="Relay an account's notes to a local URL as signed webhooks "
                    "(docs/accounts.md#developing-a-receiver).")
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the service")
    parser.add_argument("--forward-to", required=True, metavar="URL",
                        help="the receiver, e.g. http://localhost:3000/hook")
    parser.add_argument("--key-file", type=Path,
                        help="a file holding the account's key (else THREE_THIRTEEN_KEY)")
    parser.add_argument("--secret-file", type=Path,
                        help="a file holding the whsec_ secret to sign with (else "
                             "THREE_THIRTEEN_WEBHOOK_SECRET, else one made for this run)")
    parser.add_argument("--after", type=int, metavar="N",
                        help="relay the notes after note N (else only those still to come)")
    parser.add_argument("--trigger", choices=sorted(WEBHOOK_TYPES),
                        help="send one made-up note of this type, then stop")
    args = parser.parse_args(argv)
    out = out or sys.stdout
    key = _read(args.key_file, "THREE_THIRTEEN_KEY")
    if not key:
        parser.error("no key: set THREE_THIRTEEN_KEY or pass --key-file")
    secret = _read(args.secret_file, "THREE_THIRTEEN_WEBHOOK_SECRET")
    made = not secret
    if made:
        secret = new_secret()
    try:
        sign(secret, "msg_check", 0, "")
    except ValueError:  # binascii's, for a secret that is no base64
        parser.error("the secret is not a webhook secret (whsec_ and base64)")
    account = Account(Client(args.url), key)
    try:
        me = account.me()
        relay = Relay(account, me["handle"], args.forward_to, secret, out)
        if made:
            relay.say(f"signing with {secret} (made for this run: give it to your receiver)")
        if args.trigger:
            rules = account.client.presets()["classic"]
            note = sample(args.trigger, relay.handle, rules, time.time())
            return 0 if relay.send(note, f"msg_{secrets.token_hex(16)}").ok else 1
        after = me["last_note"] if args.after is None else args.after
        relay.say(f"relaying the notes of {relay.handle} after note {after} to "
                  f"{args.forward_to}; Ctrl-C stops")
        with contextlib.suppress(KeyboardInterrupt):
            relay.follow(after)
    except ApiError as err:  # a key refused, say
        parser.exit(1, f"{parser.prog}: the service refused: {err}\n")
    except TransportError as err:
        parser.exit(1, f"{parser.prog}: the service is out of reach: {err}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
