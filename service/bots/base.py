"""What every reference bot shares: reading a view into cards, and the solver under a budget.

A bot sees only what the server shows its seat (the view and its own events), so
everything here starts from a view dict. The solver is the engine's own
(``service.solver.analyze``) run locally on the bot's hand: the same
optimal arrangement the server scores with, without a round trip per question. Each
decision asks it through its own :class:`~.budget.DecisionBudget` (``Bot.budget`` work
units), so the work of a decision is bounded and the same on every machine.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from service.client.types import Action, BotView
from service.core.cards import card_name, parse_card, parse_cards, parse_rank
from service.core.rules import Rules
from service.engine.serialize import rules_from_json
from service.solver import Analysis

from .budget import DecisionBudget

__all__ = ["Bot", "Position", "rules_of"]

DRAW_PHASES = frozenset({"draw", "final_draw"})


class Bot(ABC):
    """The interface :meth:`service.client.Seat.play` drives.

    ``choose`` returns one action (any element of ``view["legal_actions"]``). A bot
    that sets ``wants_events`` gets ``observe(events)`` with the events it has not
    seen yet before each decision. One bot object plays one seat of one game.

    ``budget`` is the work units (``service/bots/budget.py``) a decision may spend on
    optional analyses, beyond the ones it needs to move at all; 0 for a bot that has none.
    """

    name: ClassVar[str] = "bot"
    #: Raised whenever the bot's play changes: a reference bot's fixed rating on the ladder
    #: is per name and version (``service/ratings/anchors.py``).
    version: ClassVar[int] = 1
    wants_events: ClassVar[bool] = False
    budget: int | None = 0
    #: The budget of the latest decision, as it ended (what it spent, whether it ran out).
    last_budget: DecisionBudget | None = None

    def __init__(self, seed: int | str | None = None) -> None:  # noqa: B027 - make_bot calls it
        """Every bot is made from the seed of its random choices alone (``make_bot``), so
        the service and a verifier build the same bot."""

    def position(self, view: BotView) -> Position:
        """The view read for one decision, with a fresh budget of ``self.budget`` units."""
        self.last_budget = DecisionBudget(self.budget)
        return Position.of(view, self.last_budget)

    def start(self, view: BotView) -> None:  # noqa: B027 - an optional hook
        """Called once with the first view (before any decision)."""

    def observe(self, events: Sequence[Mapping[str, Any]]) -> None:  # noqa: B027 - an optional hook
        """The new events since the last call (only when ``wants_events``)."""

    @abstractmethod
    def choose(self, view: BotView) -> Action:
        """The action to send for this view (one of ``view.legal_actions``)."""

    def finish(self, view: BotView) -> None:  # noqa: B027 - an optional hook
        """Called once with the final view."""


def rules_of(view: BotView) -> Rules:
    """The resolved rules of the view (resolved afresh each time: a view is a plain dict)."""
    return rules_from_json(view["rules"])


@dataclass(frozen=True, slots=True)
class Position:
    """The decision-relevant facts of a view, as engine integers."""

    seat: int
    hand: tuple[int, ...]
    wild: int
    rules: Rules
    phase: str
    top: int | None
    contract: tuple[int, int] | None
    table: tuple[tuple[int, ...], ...]
    legal: tuple[Action, ...]
    budget: DecisionBudget

    @classmethod
    def of(cls, view: BotView, budget: DecisionBudget | None = None) -> Position:
        """The view's facts; ``budget`` is charged for every analysis (none: a budget of 0)."""
        rnd = view["round"]
        you = view["you"]
        assert you is not None, "a bot needs a seat's view, not a spectator's"
        rules = rules_of(view)
        contract = rnd.get("contract")
        table: tuple[tuple[int, ...], ...] = ()
        if rules.lay_off and rnd.get("table"):
            table = tuple(tuple(parse_cards(m["cards"])) for m in rnd["table"])
        return cls(
            seat=you["seat"],
            hand=tuple(parse_cards(you["hand"])),
            wild=parse_rank(rnd["wild_rank"]),
            rules=rules,
            phase=rnd["phase"] or "",
            top=None if rnd["discard_top"] is None else parse_card(rnd["discard_top"]),
            contract=None if contract is None else (contract["sets"], contract["runs"]),
            table=table,
            legal=tuple(view["legal_actions"]),
            budget=DecisionBudget(0) if budget is None else budget,
        )

    @property
    def drawing(self) -> bool:
        return self.phase in DRAW_PHASES

    @property
    def can_take_discard(self) -> bool:
        return any(a.get("source") == "discard" for a in self.legal)

    def analyze(self, hand: list[int] | tuple[int, ...]) -> Analysis:
        """The solver on ``hand``, as a question the bot needs answered to move at all:
        charged to the decision, never refused. The table (lay-offs) counts only in
        final turns."""
        a = self.budget.analyze(hand, self.wild, self.rules, self._table(), self.contract)
        assert a is not None  # a required analysis is never refused
        return a

    def look_ahead(self, hand: list[int] | tuple[int, ...]) -> Analysis | None:
        """The solver on ``hand`` if the decision's budget can still pay for it, else
        ``None`` (and every later ``look_ahead`` of this decision is ``None`` too)."""
        return self.budget.analyze(hand, self.wild, self.rules, self._table(), self.contract,
                                   required=False)

    def _table(self) -> tuple[tuple[int, ...], ...]:
        return self.table if self.phase.startswith("final") else ()

    def go_out_for(self, a: Analysis) -> Action | None:
        """The first of the solver's go-outs that the server lists as legal, if any."""
        legal = {x["discard"] for x in self.legal if x["type"] == "go_out"}
        for card in a.go_out:
            action = go_out(card)
            if action["discard"] in legal:
                return action
        return None

    def go_out_action(self) -> Action | None:
        """A legal ``go_out`` (the server lists them only when the hand can go out)."""
        for a in self.legal:
            if a["type"] == "go_out":
                return a.copy()
        return None


def draw(source: str) -> Action:
    return {"type": "draw", "source": source}


def discard(card: int) -> Action:
    return {"type": "discard", "card": card_name(card)}


def go_out(card: int) -> Action:
    return {"type": "go_out", "discard": card_name(card)}
