"""``claim`` (service/engine/game.py): naming an open seat is a move of the engine, with its
own version and event, like every other."""

from __future__ import annotations

import pytest

from service.core.errors import IllegalActionError, InvalidActionError
from service.core.rules import resolve_rules
from service.engine import claim, new_game


def _open_game():  # type: ignore[no-untyped-def]
    return new_game(resolve_rules({"preset": "classic"}), ["ann", None], "1")


def test_claiming_names_the_seat_bumps_the_version_and_makes_one_public_event() -> None:
    state = _open_game()
    claimed, events = claim(state, 1, "bob")
    assert claimed.names == ("ann", "bob")
    assert claimed.version == state.version + 1
    assert claimed.event_seq == state.event_seq + 1
    assert [(e.seq, e.type, dict(e.public), dict(e.private)) for e in events] == [
        (claimed.event_seq, "seat_claimed", {"seat": 1, "name": "bob"}, {})
    ]
    assert claimed.hands == state.hands  # nothing else moves


def test_a_named_seat_or_one_the_game_does_not_have_cannot_be_claimed() -> None:
    state = _open_game()
    with pytest.raises(IllegalActionError):
        claim(state, 0, "eve")
    for seat in (2, -1, True):
        with pytest.raises(InvalidActionError):
            claim(state, seat, "eve")  # type: ignore[arg-type]
