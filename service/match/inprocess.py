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
from service.engine import Event, GameState, apply, new_game, opening_events, view
from service.engine.seats import SERVICE
from service.verify.record import build_record
from service.verify.table import seal

__all__ = ["play_in_process", "record_in_process", "rounds_in_process"]


def play_in_process(bots: Sequence[str], seed: str, rules: dict[str, Any] | None = None,
                    ) -> tuple[int, ...]:
    """The totals of one game of reference ``bots`` (one per seat) dealt from ``seed``."""
    state, _ = _play(bots, seed, rules, sealed=False)
    return tuple(state.totals())


def rounds_in_process(bots: Sequence[str], seed: str, rules: dict[str, Any] | None = None,
                      ) -> tuple[tuple[int, ...], ...]:
    """The round scores of that game, per seat (who won which round, not only the game)."""
    state, _ = _play(bots, seed, rules, sealed=False)
    return state.scores


def record_in_process(bots: Sequence[str], seed: str, rules: dict[str, Any] | None = None,
                      ) -> dict[str, Any]:
    """The record of a game like that one (``python -m service.verify`` accepts it), as
    the service would keep it; ``game_id`` is ``in-process:{seed}``. Its salt is sealed by
    its table (:func:`service.verify.table.seal`), as the service's are, so the bots'
    seeded choices differ from :func:`play_in_process`'s game of the same seed."""
    state, log = _play(bots, seed, rules, sealed=True)
    return build_record(f"in-process:{seed}", state, log, created_at=None, finished_at=0.0)


def _play(bots: Sequence[str], seed: str, rules: dict[str, Any] | None, *, sealed: bool,
          ) -> tuple[GameState, list[Event]]:
    # a salt fixed by the seed: the same seed gives the same game, every time
    state = new_game(resolve_rules(rules or {"preset": "classic"}), [None] * len(bots),
                     seed=seed, seed_salt=f"in-process:{seed}", bots=list(bots))
    if sealed:
        state = seal(state, nonce=f"in-process:{seed}")
    log = list(opening_events(state))
    shares: list[list[dict[str, Any]]] = [[e.for_seat(s) for e in log]
                                          for s in range(len(bots))]
    while state.current_seat is not None:
        seat = state.current_seat
        rng = decision_seed(state.seed_salt, state.seed, seat, state.version)
        action = decide(bots[seat], rng, view(state, seat, SERVICE), shares[seat])
        state, events = apply(state, seat, action, SERVICE)
        log.extend(events)
        for s, share in enumerate(shares):
            share.extend(e.for_seat(s) for e in events)
    return state, log
