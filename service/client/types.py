"""The JSON shapes of the API as ``TypedDict``s.

Views stay plain dicts (what the server sent, cheap to pass around and to log);
these types only let a type checker and an editor see the field names of
the API contract (``docs/api.md``). Fields the contract marks optional are ``NotRequired``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

if TYPE_CHECKING:  # typing gets ReadOnly in 3.13; only a type checker reads it here
    from typing_extensions import ReadOnly

__all__ = [
    "Action",
    "BotRound",
    "BotView",
    "Clock",
    "Event",
    "GameView",
    "PlayerView",
    "Rematch",
    "RoundView",
    "You",
]


class Action(TypedDict, total=False):
    """One action body: ``{"type": "draw", "source": "stock"}``, ``{"type": "discard",
    "card": "7H"}``, ``{"type": "go_out", "discard": "7H"}`` or ``{"type":
    "claim_victory", "against": 1}``."""

    type: str
    source: str
    card: str
    discard: str
    melds: list[list[str]]
    against: int


class RoundView(TypedDict):
    number: int
    rounds: int
    hand_size: int
    wild_rank: str
    dealer: int
    current_seat: int | None
    phase: str | None
    stock_count: int
    discard_top: str | None
    discard_count: int
    went_out: int | None
    contract: dict[str, int] | None
    table: list[dict[str, Any]]


class PlayerView(TypedDict):
    seat: int
    name: str | None
    open: bool
    hand_count: int
    total: int
    round_scores: list[int]
    kind: str  # human, bot, away or resigned (docs/lifecycle.md)
    bot: str | None  # the reference bot playing the seat now


class Clock(TypedDict):
    turn_seconds: int
    deadline: str | None  # RFC 3339 UTC


class Rematch(TypedDict):
    asked: list[int]
    game_id: str | None


class You(TypedDict):
    seat: int
    hand: list[str]
    can_abort: bool  # the seat has not played yet: {"type": "abort"} ends the game


class GameView(TypedDict):
    """The state as one seat (or a spectator) may see it."""

    game_id: str
    version: int
    status: str
    rules: dict[str, Any]
    seed_commitment: str
    seeded_by_creator: bool
    round: RoundView
    players: list[PlayerView]
    open_seats: list[int]
    you: You | None
    legal_actions: list[Action]
    last_round: dict[str, Any] | None
    clock: Clock | None
    rematch: Rematch
    winners: NotRequired[list[int]]
    seed: NotRequired[str]
    seed_salt: NotRequired[str]


class BotRound(TypedDict):
    """The part of ``round`` a bot reads (:class:`BotView`)."""

    wild_rank: ReadOnly[str]
    phase: ReadOnly[str | None]
    discard_top: ReadOnly[str | None]
    contract: ReadOnly[Mapping[str, int] | None]
    table: ReadOnly[Sequence[Mapping[str, Any]]]


class BotView(TypedDict):
    """What a bot reads of a view: a :class:`GameView` the server sent, or the view the
    engine makes for a seat the service plays (``service.engine.view``, which has no
    ``game_id`` and no ``open`` seats). Read-only, so both are one."""

    rules: ReadOnly[Mapping[str, Any]]
    round: ReadOnly[BotRound]
    players: ReadOnly[Sequence[object]]
    you: ReadOnly[You | None]
    legal_actions: ReadOnly[Sequence[Action]]


class Event(TypedDict, total=False):
    """One event of ``GET /v1/games/{id}/events``: ``seq``, ``type`` and its fields."""

    seq: int
    type: str
    seat: int
    source: str
    card: str
    hand: list[str]  # round_started: the seat's own hand, in its events only
    number: int  # round_ended: the round, its seats' results and who went out
    results: list[dict[str, Any]]
    went_out: int | None
    totals: list[int]  # game_finished
