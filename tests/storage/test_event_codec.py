"""``service/storage/event_codec.py``: events stored compact, and read back exactly.

Exactly means: the same event with its fields in the same order, so the JSON served
from the stored form is byte for byte the engine's. Whole games of every kind of event
(going out, lay-offs, reshuffles, jokers, contracts, 2 to 8 players) are encoded and
decoded; anything the compact table does not describe is stored whole instead.
"""

from __future__ import annotations

import random
from typing import Any

import orjson
import pytest

from service.core.rules import resolve_rules
from service.engine import Event, apply, claim, new_game, opening_events
from service.engine.state import FINISHED
from service.storage import event_codec
from tests.engine.game_helpers import choose

GAMES: list[tuple[dict[str, Any], int, str]] = [
    ({"preset": "classic"}, 2, "smart"),
    ({"preset": "bga", "lay_off": True}, 4, "smart"),
    ({"jokers": 3, "hand_sizes": [3, 5, 8]}, 5, "smart"),
    ({"hand_sizes": [3, 6, 7, 9], "contracts": [None, {"sets": 1, "runs": 0},
                                                {"sets": 0, "runs": 1}, {"sets": 1, "runs": 1}]},
     3, "smart"),
    ({"decks": 1, "hand_sizes": [11, 12]}, 4, "smart"),  # the stock runs out: reshuffles
]


def _exact(event: Event) -> bytes:
    """Everything a reader can see of an event, in order (private parts in seat order)."""
    return orjson.dumps([event.seq, event.type, event.public, list(event.private.items())])


def _events(spec: dict[str, Any], players: int, bot: str, seed: str) -> list[Event]:
    rng = random.Random(seed)
    names: list[str | None] = [f"p{i}" for i in range(players - 1)] + [None]
    state = new_game(resolve_rules(spec), names, seed)
    events = list(opening_events(state))
    state, claimed = claim(state, players - 1, "late")
    events += claimed
    while state.status != FINISHED:
        assert state.current_seat is not None
        state, new = apply(state, state.current_seat, choose(state, rng, bot))
        events += new
    return events


@pytest.mark.parametrize(("spec", "players", "bot"), GAMES)
def test_every_event_of_a_whole_game_is_stored_compact_and_read_back_exactly(
        spec: dict[str, Any], players: int, bot: str) -> None:
    events = _events(spec, players, bot, f"codec-{players}")
    first_form = compact = 0
    for event in events:
        blob = event_codec.encode(event)
        assert isinstance(orjson.loads(blob), list), event  # none needed the whole form
        assert _exact(event_codec.decode(blob)) == _exact(event)
        compact += len(blob)
        first_form += len(orjson.dumps([event.seq, event.type, event.public, event.private],
                                       option=orjson.OPT_NON_STR_KEYS))
    assert compact * 2 < first_form  # less than half the bytes of the first stored form


def test_the_kinds_of_event_exercised_are_all_those_the_table_knows() -> None:
    kinds = {e.type for spec, players, bot in GAMES
             for e in _events(spec, players, bot, f"codec-{players}")}
    assert kinds == event_codec.COMPACT_TYPES


def test_a_draw_from_the_stock_is_a_few_integers() -> None:
    event = Event(41, "draw", {"seat": 0, "by": "player", "source": "stock"},
                  {0: {"card": "7H"}})
    assert event_codec.encode(event) == b'[41,0,[0,0,"stock"],[[0,[19]]]]'


@pytest.mark.parametrize("event", [
    Event(7, "clock_expired", {"seat": 1, "after_ms": 30000}),  # a type the table lacks
    Event(8, "discard", {"seat": 1, "card": "7H", "auto": True}),  # an extra field
    Event(9, "discard", {"card": "7H", "seat": 1}),  # another order
    Event(10, "draw", {"seat": 0, "by": "player", "source": "stock"},
          {0: {"card": "??"}}),  # not a card
    Event(11, "draw", {"seat": 0, "by": "nobody", "source": "stock"}),  # not an actor
])
def test_an_event_the_table_does_not_describe_is_stored_whole_and_read_back_exactly(
        event: Event) -> None:
    blob = event_codec.encode(event)
    assert isinstance(orjson.loads(blob), dict)
    assert _exact(event_codec.decode(blob)) == _exact(event)


def test_the_first_stored_form_is_still_read() -> None:
    event = Event(3, "draw", {"seat": 1, "source": "stock"}, {1: {"card": "JK"}})
    blob = orjson.dumps([3, "draw", event.public, event.private],
                        option=orjson.OPT_NON_STR_KEYS)
    assert _exact(event_codec.decode(blob)) == _exact(event)
