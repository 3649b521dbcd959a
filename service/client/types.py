"""The JSON shapes of the API as ``TypedDict``s.

Views stay plain dicts (what the server sent, cheap to pass around and to log);
these types only let a type checker and an editor see the field names of
the API contract (``docs/api.md``). Fields the contract marks optional are ``NotRequired``.
A view and an action body have the shapes the engine builds them in, declared once in
``service.core.shapes`` and offered here too; the bots' read-only face of a view and an
event are the client's own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from service.core.shapes import (
    Action,
    Clock,
    GameView,
    PlayerView,
    Rematch,
    RoundView,
    You,
)

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
