"""An account's session, and a bot that plays every game of its account unattended.

Why this beside :class:`~.seats.Seat`: an account key plays every seat its account holds,
so a bot needs no token of its own, only its key: on start it reads its games
(``GET /v1/me/games``) and pending challenges and does what is due (a move, or
``back`` for a seat the service marked ``away`` while the bot was down), then follows its
account stream (``GET /v1/me/stream``) from the note it had read up to, playing each
``your_turn`` and answering each ``challenge``. Killed and restarted with the same key,
it finds everything again (:func:`serve`): nothing is kept on the bot's side.

Typical use::

    me = Account(Client("http://127.0.0.1:8000"), key)
    serve(me, GreedyBot().choose)          # until stopped
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, cast

from .errors import ApiError, TransportError
from .http import Client
from .seats import Seat
from .types import Action, GameView

__all__ = ["Account", "serve"]

log = logging.getLogger(__name__)


class Account:
    """One account's calls, with its key."""

    def __init__(self, client: Client, key: str) -> None:
        self.client = client
        self.key = key

    def me(self) -> dict[str, Any]:
        """``GET /v1/me``: the account (``last_note`` is where its stream is)."""
        return cast(dict[str, Any], self.client.request("GET", "/v1/me", token=self.key).body)

    def games(self, status: str | None = None) -> list[dict[str, Any]]:
        """``GET /v1/me/games``: its games, those awaiting its move first."""
        out = self.client.request("GET", "/v1/me/games", token=self.key,
                                  query={"status": status})
        return cast(list[dict[str, Any]], out.body["games"])

    def challenges(self) -> list[dict[str, Any]]:
        """``GET /v1/challenges``: its pending challenges, made and received."""
        out = self.client.request("GET", "/v1/challenges", token=self.key)
        return cast(list[dict[str, Any]], out.body["challenges"])

    def challenge(self, to: list[str], **body: Any) -> dict[str, Any]:
        """``POST /v1/challenges``: challenge ``to`` (rules, turn_seconds… as keywords)."""
        out = self.client.request("POST", "/v1/challenges", token=self.key,
                                  body={"to": to, **body}, kind="create")
        return cast(dict[str, Any], out.body)

    def answer(self, challenge_id: str, verb: str) -> dict[str, Any]:
        """``accept``, ``decline`` or ``cancel`` a challenge."""
        out = self.client.request("POST", f"/v1/challenges/{challenge_id}/{verb}",
                                  token=self.key)
        return cast(dict[str, Any], out.body)

    def seat(self, game_id: str) -> Seat:
        """The account's seat of ``game_id``, played with its key."""
        view = self.client.view(game_id, self.key)
        you = view.get("you")
        if you is None:
            raise ValueError(f"the account holds no seat of {game_id}")
        return Seat(self.client, game_id, you["seat"], self.key, view)

    def notes(self, after: int) -> Iterator[dict[str, Any]]:
        """The account's notes after ``after``, as its stream carries them, until the
        server ends that connection."""
        for message in self.client.stream("/v1/me/stream", token=self.key, after=after):
            if message["type"] == "event":
                yield message["event"]


def play_turn(account: Account, game_id: str,
              choose: Callable[[GameView], Action | Mapping[str, Any]]) -> None:
    """Make every move the account's seat of ``game_id`` may make now (a whole turn),
    coming back first if the seat is ``away`` (no ``your_turn`` comes for an away seat,
    and an opponent may claim the game against it)."""
    seat = account.seat(game_id)
    view = seat.come_back() if seat.away else seat.view
    while view["status"] != "finished" and view["legal_actions"]:
        try:
            view = seat.act(choose(view))
        except ApiError as err:  # the game moved on (a clock ran out): decide again
            if err.status not in (409, 412):
                raise
            view = seat.come_back() if seat.away else seat.view


def serve(account: Account, choose: Callable[[GameView], Action | Mapping[str, Any]], *,
          accept: Callable[[dict[str, Any]], bool] = lambda challenge: True,
          stopping: Callable[[], bool] = lambda: False) -> None:
    """Play the account's games and answer its challenges until ``stopping()``: first what
    is due already (its games on its turn or away, challenges waiting for it), then each
    note of its stream as it comes, reconnecting from the last one read.

    Every game in progress is looked at on each (re)connection, not only those on its
    turn: a seat left for two clocks (the bot down, or cut off) is ``away``, which
    ``GET /v1/me/games`` does not say and no note announces, and only its view shows."""
    me = account.me()
    after = me["last_note"]
    handle = me["handle"]
    while not stopping():
        try:
            for game in account.games("in_progress"):
                play_turn(account, game["game_id"], choose)
            for challenge in account.challenges():
                if handle in challenge["to"] and handle not in challenge["accepted"]:
                    account.answer(challenge["challenge_id"],
                                   "accept" if accept(challenge) else "decline")
            for note in account.notes(after):
                after = note["seq"]
                if note["type"] == "your_turn":
                    play_turn(account, note["game_id"], choose)
                elif note["type"] == "challenge":
                    verb = "accept" if accept(note["challenge"]) else "decline"
                    try:
                        account.answer(note["challenge_id"], verb)
                    except ApiError as err:  # answered meanwhile, or expired
                        if err.code != "challenge_closed":
                            raise
                if stopping():
                    return
        except TransportError as err:  # the server restarting: come back to it
            log.warning("the service is unreachable (%s); retrying", err)
            time.sleep(1.0)
