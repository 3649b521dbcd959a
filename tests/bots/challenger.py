"""A challenger for the account bots the docs print (docs/accounts.md in Python,
docs/clients.md in TypeScript): a second account that challenges the bot's handle over
HTTP, plays its own seat of the game with the first legal action, and watches the
game's events until the bot has made moves of its own.

Why from outside, over HTTP only: the bot under test is a separate process started as
its page says; all the test can see is what the service sees, which is what counts.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
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
