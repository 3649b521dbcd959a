"""One seat's session: its view, waiting for its turn, acting with ``If-Match`` and an
``Idempotency-Key``, and playing a whole game with a bot.

Kept apart from the transport (``http.py``): a seat only asks its :class:`Client` for
requests, and this is where a bot author reads how a turn is played."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, cast

from .errors import ApiError
from .types import Action, Event, GameView

if TYPE_CHECKING:
    from .http import Client

__all__ = ["Chooser", "CreatedGame", "Seat"]


@dataclass
class CreatedGame:
    """What ``POST /v1/games`` answered: the id, each seat (with tokens for named seats)."""

    client: Client
    game_id: str
    seats: list[dict[str, Any]]
    state: GameView

    @property
    def open_seats(self) -> list[int]:
        """The seats left open for a claim (a bot's seat has no token, and is not open)."""
        return [s["seat"] for s in self.seats if s["kind"] == "open"]

    def seat(self, seat: int) -> Seat:
        """A session for a seat that was named at creation (its token is known)."""
        token = self.seats[seat].get("token")
        if token is None:
            raise ValueError(f"seat {seat} is open: claim it with Client.claim")
        return Seat(self.client, self.game_id, seat, token, self.state)


class Chooser(Protocol):
    """What :meth:`Seat.play` accepts besides a plain function: a bot object.

    ``choose(view)`` returns one of ``view["legal_actions"]`` (or an equivalent body).
    Optional methods, called when present: ``start(view)`` once, ``observe(events)``
    with the new events before each decision (set ``wants_events = True``), and
    ``finish(view)`` with the final view.
    """

    def choose(self, view: GameView) -> Action: ...


class Seat:
    """One seat's session: its token, the last view it saw, and how it moves."""

    def __init__(self, client: Client, game_id: str, seat: int, token: str,
                 view: GameView | None = None) -> None:
        self.client = client
        self.game_id = game_id
        self.seat = seat
        self.token = token
        self._view: GameView | None = view
        self._after = 0
        self.actions = 0

    @property
    def view(self) -> GameView:
        """The last view this seat received (fetched once if there is none yet)."""
        if self._view is None or self._view.get("you") is None:
            self._view = self.client.view(self.game_id, self.token)
        return self._view

    @property
    def version(self) -> int:
        return self.view["version"]

    def refresh(self) -> GameView:
        self._view = self.client.view(self.game_id, self.token)
        return self._view

    def wait_change(self, wait: float = 25.0) -> GameView:
        """Long-poll once: the next version (or the same view after ``wait`` seconds)."""
        self._view = self.client.view(self.game_id, self.token,
                                      wait_version=self.version, wait=wait)
        return self._view

    @property
    def away(self) -> bool:
        """Whether the last view shows this seat ``away``: its clock ran out twice in a row,
        so the stand-in plays it (and an opponent may claim the game) until its player
        sends ``{"type": "back"}`` (docs/lifecycle.md)."""
        view = self.view
        return view["status"] != "finished" and view["players"][self.seat]["kind"] == "away"

    def come_back(self) -> GameView:
        """Send ``{"type": "back"}`` once and return the new view: the seat plays its own
        turns again. Sent without ``If-Match``: coming back does not depend on the
        position, which the stand-in keeps changing meanwhile. A ``409`` (back already, the
        game over, or claimed against: resigned) only refreshes the view: there is nothing
        left to come back to."""
        try:
            out = self.client.request("POST", f"/v1/games/{self.game_id}/actions",
                                      body={"type": "back"}, token=self.token, kind="act",
                                      headers={"Idempotency-Key": uuid.uuid4().hex})
        except ApiError as err:
            if err.status != 409:
                raise
            return self.refresh()
        self._view = cast(GameView, out.body)
        return self._view

    def wait_for_turn(self, *, deadline: float | None = None) -> GameView:
        """Block (in the server's ``wait=turn`` long-poll) until this seat may act or the
        game is over. A seat found ``away`` (its player was gone for two clocks: a bot
        restarted, say) comes back first, once: an away seat never gets a turn of its own."""
        view = self.view
        while view["status"] != "finished" and not view["legal_actions"]:
            if self.away:
                view = self.come_back()
                continue
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"seat {self.seat} of game {self.game_id}: no turn in time")
            self._view = view = self.client.view(self.game_id, self.token, wait_turn=True)
        return view

    def act(self, action: Action | Mapping[str, Any]) -> GameView:
        """Send one action with ``If-Match`` and a fresh ``Idempotency-Key``; return the new view.

        A ``412`` (someone moved since this seat's view) is raised as :class:`ApiError`
        after the view is refreshed, so the caller simply decides again.
        """
        headers = {"If-Match": f'"{self.version}"', "Idempotency-Key": uuid.uuid4().hex}
        try:
            out = self.client.request("POST", f"/v1/games/{self.game_id}/actions",
                                      body=dict(action), token=self.token, headers=headers,
                                      kind="act")
        except ApiError as err:
            if err.status in (409, 412):
                self.refresh()
            raise
        self.actions += 1
        self._view = cast(GameView, out.body)
        return self._view

    def new_events(self) -> list[Event]:
        """The events since the last call (public ones plus this seat's private ones)."""
        events, self._after = self.client.events(self.game_id, self.token, after=self._after)
        return events

    def play(self, bot: Chooser | Callable[[GameView], Action], *,
             deadline: float | None = None) -> GameView:
        """Play this seat to the end of the game with ``bot``; return the final view."""
        choose = bot.choose if hasattr(bot, "choose") else bot
        observe = getattr(bot, "observe", None) if getattr(bot, "wants_events", False) else None
        start = getattr(bot, "start", None)
        if start is not None:
            start(self.view)
        errors = 0
        while True:
            view = self.wait_for_turn(deadline=deadline)
            if view["status"] == "finished":
                break
            if observe is not None:
                observe(self.new_events())
            try:
                self.act(choose(view))
                errors = 0
            except ApiError as err:
                # 412: the game moved on under us (never in turn-based play, but cheap
                # to survive); decide again on the fresh view. Anything else is a bot bug.
                errors += 1
                if err.status != 412 or errors > 3:
                    raise
        finish = getattr(bot, "finish", None)
        if finish is not None:
            if observe is not None:
                observe(self.new_events())
            finish(self.view)
        return self.view
