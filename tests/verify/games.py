"""Whole games on the engine, recorded: what the record tests check and tamper with.

Each game is played as the service plays it (the reference ``greedy`` bot choosing from
its seat's view, claims, resignations and time-outs through the engine's own functions),
its events kept, and its record built with fixed timestamps, so a seeded game gives the
same record every time.
"""

from __future__ import annotations

from typing import Any

from service.bots import decide, decision_seed
from service.engine import Event, apply, claim, new_game, opening_events, view
from service.engine.seats import (
    PLAYER,
    SERVICE,
    STAND_IN,
    claimable,
    may_abort,
    played_by_service,
    player_of,
    time_out,
)
from service.engine.serialize import rules_from_json
from service.verify import build_record
from service.verify.table import seal

CREATED = 1_767_268_800.0  # 2026-01-01T12:00:00Z
FINISHED = CREATED + 1800.0
NONCE = "5a17" * 8  # fixed, so the record (and its score sheet) is the same every run


def recorded_game(seed: str = "golden", rules: dict[str, Any] | None = None,
                  names: tuple[str, ...] = ("ann", "bob"), *, open_seat: int | None = None,
                  resign_at: int | None = None, time_out_at: int | None = None,
                  bots: tuple[str | None, ...] | None = None, resigners: tuple[int, ...] = (0,),
                  abort_at: int | None = None, absent: int | None = None,
                  ) -> dict[str, Any]:
    """The record of a seeded game of greedy players; ``open_seat`` starts open and is
    claimed first, the ``resigners`` resign at version ``resign_at``, the seat on turn at
    version ``time_out_at`` times out, and ``bots`` makes seats bot seats (played by the
    service with their bot). At version ``abort_at`` the first seat that has not played
    aborts; the ``absent`` seat's clock runs out on every turn until it is away, and then
    the next seat claims victory against it."""
    start = [None if s == open_seat else n for s, n in enumerate(names)]
    state = seal(new_game(rules_from_json(rules or {"preset": "classic"}), start, seed,
                          bots=bots, turn_seconds=60 if (time_out_at, absent) != (None, None) else None),
                 NONCE)
    events: list[Event] = list(opening_events(state))
    if open_seat is not None:
        state, more = claim(state, open_seat, names[open_seat])
        events += more
    while not state.finished:
        seat = state.current_seat
        assert seat is not None
        if state.version == resign_at:
            more = []
            for resigner in resigners:
                if not state.finished:
                    state, some = apply(state, resigner, {"type": "resign"})
                    more += some
        elif state.version == time_out_at:
            state, more = time_out(state, seat)
        elif state.version == abort_at:
            aborter = next(s for s in range(state.players) if may_abort(state, s))
            state, more = apply(state, aborter, {"type": "abort"})
        elif absent is not None and absent in claimable(state, (absent + 1) % state.players):
            state, more = apply(state, (absent + 1) % state.players,
                                {"type": "claim_victory", "against": absent})
        elif seat == absent and not played_by_service(state, seat):
            state, more = time_out(state, seat)
        else:
            by = SERVICE if played_by_service(state, seat) else PLAYER
            bot = player_of(state, seat) or STAND_IN
            rng = (decision_seed(state.seed_salt, state.seed, seat, state.version)
                   if by == SERVICE else f"{seed}:{seat}:{state.version}")
            action = decide(bot, rng, view(state, seat, by),
                            [e.for_seat(seat) for e in events])
            state, more = apply(state, seat, action, by)
        events += more
    return build_record("g0ld3nGame01", state, events, created_at=CREATED,
                        finished_at=FINISHED)
