"""The JSON shapes of the game as the contract writes them (docs/api.md): an action body, a
table meld, a view. Declared once, here, for all who build or read them: the engine builds
a seat's view (``service.engine.view``), the service layer adds the seats
(``service.play.views``), and the client and the bots read what the server sent
(``service.client``). They are ``TypedDict``s: views stay plain dicts, cheap to pass around
and to log, and a type checker holds their field names to the contract. Fields the
contract marks optional are ``NotRequired``.

In the core because the engine writes these shapes and the client reads them, and neither
may import the other; like the rest of the core it imports nothing of the service.
"""

# No ``from __future__ import annotations`` here: with the annotations evaluated, each
# shape knows at run time which of its keys are optional (``__optional_keys__``), which
# string annotations would hide from ``TypedDict``.
from typing import Any, NotRequired, TypedDict

__all__ = [
    "Action",
    "Clock",
    "GameView",
    "LayoffView",
    "PlayerView",
    "Rematch",
    "RoundView",
    "TableMeldView",
    "View",
    "You",
]


class Action(TypedDict, total=False):
    """One action body: ``{"type": "draw", "source": "stock"}``, ``{"type": "discard",
    "card": "7H"}``, ``{"type": "go_out", "discard": "7H"}`` or ``{"type":
    "claim_victory", "against": 1}``. Listed actions carry no ``melds`` (a go-out without
    them is laid out by the solver)."""

    type: str
    source: str
    card: str
    discard: str
    melds: list[list[str]]
    against: int


class LayoffView(TypedDict):
    """Cards a seat laid off onto a table meld."""

    seat: int
    cards: list[str]


class TableMeldView(TypedDict):
    """A meld on the table (``service.engine.state.TableMeld``) as a view shows it: who
    laid it, its cards, and who laid off onto it since."""

    seat: int
    cards: list[str]
    layoffs: list[LayoffView]


class RoundView(TypedDict):
    number: int
    rounds: int
    hand_size: int
    wild_rank: str
    dealer: int
    current_seat: int | None
    phase: str | None
    turn_timed_out: bool
    turns: int
    stock_count: int
    discard_top: str | None
    discard_count: int
    went_out: int | None
    contract: dict[str, int] | None
    table: list[TableMeldView]


class PlayerView(TypedDict):
    seat: int
    name: str | None
    hand_count: int
    total: int
    round_scores: list[int]
    kind: str  # human, bot, away or resigned (docs/lifecycle.md)
    bot: str | None  # the reference bot playing the seat now
    account: str | None
    account_bot: bool
    open: NotRequired[bool]  # the seat waits for its player: added with the seats (GameView)


class You(TypedDict):
    seat: int
    hand: list[str]
    can_abort: bool  # the seat has not played yet: {"type": "abort"} ends the game


class Clock(TypedDict):
    turn_seconds: int
    deadline: str | None  # RFC 3339 UTC (service.core.instants)


class Rematch(TypedDict):
    asked: list[int]
    game_id: str | None


class View(TypedDict):
    """The state as one seat (or a spectator) may see it, as the engine builds it; the
    last five fields are there once the game is over."""

    version: int
    status: str
    rules: dict[str, Any]
    seed_commitment: str
    seeded_by_creator: bool
    rated: bool
    round: RoundView
    players: list[PlayerView]
    you: You | None
    legal_actions: list[Action]
    last_round: dict[str, Any] | None
    clock: Clock | None
    rematch: Rematch
    winners: NotRequired[list[int]]
    finish_reason: NotRequired[str | None]
    seed: NotRequired[str]
    seed_salt: NotRequired[str]
    table_nonce: NotRequired[str | None]


class GameView(View):
    """A view as the API sends it: the engine's, with the game's id and its open seats
    (and each player's ``open``)."""

    game_id: str
    open_seats: list[int]
