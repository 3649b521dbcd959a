"""Finished games of accounts, made fast and genuine: for the export's tests and its bench.

Each game is dealt by :func:`service.play.create_game` with account seats, then played to
its end in the engine (going out when it may, else the first legal action) and saved in
one :func:`service.play.commit.commit`: the one write path, so the game gets its record (built
from the engine's own events, verifiable) and every account seat's finished index its
entry, as any game does. One commit instead of one per move is what makes thousands of
games take seconds; ``at`` fixes that commit's clock, so several games can end in the
same millisecond.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from service import play
from service.bots.playout import greedy_move
from service.engine import apply, legal_actions
from service.play.admission import Agreed, Path
from service.play.commit import Change, commit
from service.storage import Account, GameRecord, Stores, folded

__all__ = ["SHORT", "agreed", "finish_game", "greedy_game", "whole_game"]

#: One round of three cards: about 25 versions a game.
SHORT = {"preset": "classic", "hand_sizes": [3]}


def agreed(*accounts: Account | None) -> Agreed:
    """As if ``accounts`` had made and accepted a challenge to the game (the tests' way to
    seat several accounts at once)."""
    return Agreed(Path.CHALLENGE,
                  frozenset(folded(a.handle) for a in accounts if a is not None))


def _choice(actions: list[dict[str, Any]]) -> dict[str, Any]:
    return next((a for a in actions if a["type"] == "go_out"), actions[0])


def whole_game(record: GameRecord) -> Change:
    """A step that plays the game from where it is to its end, every seat by its player."""
    state, events = record.state, []
    while not state.finished:
        seat = state.current_seat
        assert seat is not None
        state, made = apply(state, seat, _choice(legal_actions(state, seat)))
        events += made
    return Change(state, events)


def greedy_game(record: GameRecord) -> Change:
    """A step that plays the game to its end, every seat by ``greedy``'s moves (which go
    out early: a short game to analyse)."""
    state, events = record.state, []
    while not state.finished:
        seat = state.current_seat
        assert seat is not None
        state, made = apply(state, seat, greedy_move(state, seat))
        events += made
    return Change(state, events)


def finish_game(stores: Stores, accounts: Sequence[Account], seed: str, *,
                rules: dict[str, Any] | None = None, rated: bool = False,
                at: float | None = None) -> str:
    """A game between ``accounts`` (``rules``: :data:`SHORT`; a ``rated`` one has a clock
    and its preset's rules unchanged, as a rated game must), finished at ``at`` (now);
    its id."""
    record, _ = play.create_game(
        stores, rules or SHORT, [a.handle for a in accounts], seed, accounts=list(accounts),
        agreed=agreed(*accounts),
        rated=rated, turn_seconds=60 if rated else None, unlisted=True)
    commit(stores, record.game_id, whole_game,
           clock=time.time if at is None else (lambda: at))
    return record.game_id
