"""Events: what happened, in a public form and per-seat private forms.

Every applied action yields one or more events. An event has a public body
that anyone at the table may see, and private additions for particular seats
(a card drawn from the stock is shown only to the drawer; a fresh deal shows
each seat its own hand). ``seq`` increases by one per event over the whole
game (the counter lives in :attr:`GameState.event_seq`), so a client can ask
for "everything after 41" and notice gaps.

Bodies are already in contract notation (card strings, rank characters), so
the HTTP layer can send ``event.for_seat(seat)`` unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from service.core.cards import card_name, card_names, parse_cards, rank_name
from service.core.shapes import TableMeldView

from .state import GameState, RoundResult, TableMeld

__all__ = ["Event", "EventLog", "round_result_dict", "round_started", "table_dicts", "table_of"]


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened. ``private`` maps a seat to the fields only it may see."""

    seq: int
    type: str
    public: Mapping[str, Any]
    private: Mapping[int, Mapping[str, Any]] = field(default_factory=dict)

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        """The event as ``seat`` (or a spectator, ``None``) may see it."""
        out: dict[str, Any] = {"seq": self.seq, "type": self.type, **self.public}
        if seat is not None and seat in self.private:
            out.update(self.private[seat])
        return out


class EventLog:
    """Collects the events of one :func:`apply`, numbering them from the state's counter."""

    __slots__ = ("events", "seq")

    def __init__(self, seq: int) -> None:
        self.seq = seq
        self.events: list[Event] = []

    def add(
        self,
        type_: str,
        public: Mapping[str, Any],
        private: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> None:
        self.seq += 1
        self.events.append(Event(self.seq, type_, dict(public), dict(private or {})))


def table_dicts(table: tuple[TableMeld, ...]) -> list[TableMeldView]:
    """The table melds in contract notation, with who laid them and who laid off onto them
    (the mirror of :func:`table_of`)."""
    return [
        {
            "seat": m.seat,
            "cards": card_names(m.cards),
            "layoffs": [{"seat": s, "cards": card_names(c)} for s, c in m.layoffs],
        }
        for m in table
    ]


def table_of(views: Iterable[TableMeldView]) -> tuple[TableMeld, ...]:
    """The table melds a view shows, as the state holds them (the mirror of
    :func:`table_dicts`)."""
    return tuple(TableMeld(m["seat"], tuple(parse_cards(m["cards"])),
                           tuple((x["seat"], tuple(parse_cards(x["cards"])))
                                 for x in m["layoffs"]))
                 for m in views)


def round_result_dict(result: RoundResult) -> dict[str, Any]:
    """``last_round`` of the contract (plus ``reason`` and each player's ``layoffs``)."""
    return {
        "number": result.number,
        "wild_rank": rank_name(result.wild_rank),
        "went_out": result.went_out,
        "reason": result.reason,
        "results": [
            {
                "seat": r.seat,
                "melds": [card_names(m) for m in r.melds],
                "layoffs": [{"meld": i, "cards": card_names(c)} for i, c in r.layoffs],
                "deadwood": card_names(r.deadwood),
                "score": r.score,
            }
            for r in result.results
        ],
    }


def round_started(log: EventLog, state: GameState) -> None:
    """A fresh deal: public facts for all, each seat's hand privately."""
    log.add(
        "round_started",
        {
            "round": state.round_index + 1,
            "hand_size": state.hand_size,
            "wild_rank": rank_name(state.wild_rank),
            "dealer": state.dealer,
            "current_seat": state.current_seat,
            "discard_top": card_name(state.discard[-1]) if state.discard else None,
            "stock_count": len(state.stock),
            # the round's number under the name round_ended and the view use; "round" is
            # its old name, deprecated (docs/api.md) but still sent for one release
            "number": state.round_index + 1,
        },
        {seat: {"hand": card_names(hand)} for seat, hand in enumerate(state.hands)},
    )
