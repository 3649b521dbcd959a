"""A game of reference bots played in this process, every seat decided as the service
decides it (:func:`service.bots.decide` on the seat's view and events, seeded by
:func:`service.bots.decision_seed`), without HTTP or Redis.

Why: measuring the reference bots against each other (duplicate evaluation, the ladder's
anchors, docs/strength.md) takes thousands of games, and over HTTP most of their time
is the round trips. The engine is the service's own, so a game here is the game the
service would have played from the same seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from service.bots.decide import decide, decision_seed
from service.core.rules import resolve_rules
from service.engine import apply, new_game, opening_events, view
from service.engine.seats import SERVICE

__all__ = ["play_in_process"]


def play_in_process(bots: Sequence[str], seed: str, rules: dict[str, Any] | None = None,
                    ) -> tuple[int, ...]:
    """The totals of one game of reference ``bots`` (one per seat) dealt from ``seed``."""
    # a salt fixed by the seed: the same seed gives the same game, every time
    state = new_game(resolve_rules(rules or {"preset": "classic"}), [None] * len(bots),
                     seed=seed, seed_salt=f"in-process:{seed}", bots=list(bots))
    log = list(opening_events(state))
    while state.current_seat is not None:
        seat = state.current_seat
        rng = decision_seed(state.seed_salt, state.seed, seat, state.version)
        action = decide(bots[seat], rng,
                        view(state, seat, SERVICE), [e.for_seat(seat) for e in log])
        state, events = apply(state, seat, action, SERVICE)
        log.extend(events)
    return tuple(state.totals())
