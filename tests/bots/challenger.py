"""A challenger for the account bots the docs print (docs/accounts.md in Python,
docs/clients.md in TypeScript): a second account that challenges the bot's handle over
HTTP, plays its own seat of the game with the first legal action, and watches the
game's events until the bot has made moves of its own.

Why from outside, over HTTP only: the bot under test is a separate process started as
its page says; all the test can see is what the service sees, which is what counts.
"""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import requests

#: The moves a seat makes itself (``by: player``), as the game's events show them.
MOVES = frozenset({"draw", "discard", "went_out"})


def register(url: str, prefix: str, *, bot: bool) -> tuple[str, str]:
    """A new account: its handle (``prefix`` and a few random characters) and its key."""
    handle = f"{prefix}-{uuid.uuid4().hex[:8]}"
    made = requests.post(f"{url}/v1/accounts", json={"handle": handle, "bot": bot}, timeout=10)
    assert made.status_code == 201, made.text
    return handle, str(made.json()["key"])


def run_challenged(command: Sequence[str], cwd: Path, url: str, handle: str, key: str,
                   out: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Start the account bot ``command`` with the service's URL as its argument (in
    ``cwd``, the account's key in ``THREE_THIRTEEN_KEY``, as the docs run it; what it
    prints goes to ``out``), challenge it until it has made two moves, stop it, and give
    those moves' events and the lines it printed about its moves (those with `` v``, the
    version it moved at)."""
    with out.open("w") as written:
        bot = subprocess.Popen([*command, url], cwd=cwd,
                               env={**os.environ, "THREE_THIRTEEN_KEY": key},
                               stdout=written, stderr=subprocess.STDOUT)
        try:
            moves = challenge_until_it_moves(
                url, handle, lambda: None if bot.poll() is None else out.read_text())
        finally:
            bot.kill()
            bot.wait(10)
    assert moves[0]["type"] == "draw" and moves[1]["type"] in ("discard", "went_out"), moves
    return moves, [line for line in out.read_text().splitlines() if " v" in line]


def challenge_until_it_moves(url: str, bot_handle: str, alive: Callable[[], str | None], *,
                             moves: int = 2, timeout: float = 180) -> list[dict[str, Any]]:
    """Challenge ``bot_handle`` from a new account, play the challenger's seat (seat 0)
    until the bot's seat (seat 1) has made ``moves`` moves of its own, and give those
    moves' events. ``alive()`` is ``None`` while the bot runs, else what it printed (the
    test fails at once with it)."""
    _, key = register(url, "challenger", bot=False)
    auth = {"Authorization": f"Bearer {key}"}
    made = requests.post(f"{url}/v1/challenges", headers=auth, timeout=10,
                         json={"to": [bot_handle], "turn_seconds": 600,
                               "rules": {"preset": "classic"}})
    assert made.status_code == 201, made.text
    deadline = time.monotonic() + timeout

    def still_waiting(what: str) -> None:
        died = alive()
        assert died is None, f"the bot stopped before {what}:\n{died}"
        assert time.monotonic() < deadline, f"the bot did not get to {what} in {timeout} s"

    challenge = made.json()
    while challenge["status"] == "pending":  # the bot accepts from its stream, or on start
        still_waiting("accepting the challenge")
        time.sleep(0.2)
        got = requests.get(f"{url}/v1/challenges/{challenge['challenge_id']}", headers=auth,
                           timeout=10)
        assert got.status_code == 200, got.text
        challenge = got.json()
    assert challenge["status"] == "accepted", challenge
    game_id = challenge["game_id"]
    while True:
        events = requests.get(f"{url}/v1/games/{game_id}/events", params={"after": 0},
                              timeout=10).json()["events"]
        played = [e for e in events
                  if e["type"] in MOVES and e["seat"] == 1 and e["by"] == "player"]
        if len(played) >= moves:
            return played
        still_waiting(f"{moves} moves of its own")
        # the challenger's turn, or a short long-poll (the test server's are 1 s at most)
        view = requests.get(f"{url}/v1/games/{game_id}", headers=auth, timeout=30,
                            params={"wait": "turn", "timeout": 1}).json()
        if view["status"] == "in_progress" and view["legal_actions"]:
            sent = requests.post(f"{url}/v1/games/{game_id}/actions", headers={
                **auth, "If-Match": f'"{view["version"]}"'}, json=view["legal_actions"][0],
                timeout=10)
            assert sent.status_code in (200, 412), sent.text
