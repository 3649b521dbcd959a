"""A game as one bearer sees it, as the API sends it: the engine's view plus the seats,
and a page of its event log.

A pure function of the stored game (no Flask, no store), so the service layer can
render the reply it stores with an idempotent action, and the HTTP layer renders
every other view with the same code.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import nullcontext

import orjson

from service import metrics
from service.core.shapes import GameView
from service.engine import Event, GameState, view
from service.engine.state import DISCARD

__all__ = ["MAX_EVENTS", "events_page_bytes", "game_view", "game_view_bytes"]

#: The most events a page of the event log holds (the bound of its ``limit``).
MAX_EVENTS = 1000


def game_view(
    game_id: str, state: GameState, seat: int | None, open_seats: Sequence[int] = ()
) -> GameView:
    """The API contract's state (docs/api.md) for ``seat``, plus which seats are still open.

    While seats are open nobody may act, so ``legal_actions`` is empty and
    ``you.can_abort`` false then: every action offered must be one the server accepts.
    """
    going_out_test = (seat is not None and not open_seats and not state.finished
                      and state.phase == DISCARD and seat == state.current_seat)
    # the going-out test of legal_actions is most of such a view's cost: timed
    with metrics.LEGAL_ACTIONS_SECONDS.time() if going_out_test else nullcontext():
        seen = view(state, seat)
    out: GameView = {"game_id": game_id, **seen, "open_seats": list(open_seats)}
    for player in out["players"]:
        player["open"] = player["seat"] in open_seats
    if open_seats:
        out["legal_actions"] = []
        if out["you"] is not None:
            out["you"]["can_abort"] = False
    return out


def game_view_bytes(
    game_id: str, state: GameState, seat: int | None, open_seats: Sequence[int] = ()
) -> bytes:
    """:func:`game_view` as the JSON bytes of a response body."""
    return orjson.dumps(game_view(game_id, state, seat, open_seats))


def events_page_bytes(game_id: str, events: Sequence[Event], after: int, limit: int,
                      seat: int | None) -> bytes:
    """The body of ``GET /v1/games/{id}/events``: the first ``limit`` of ``events`` (the
    events after ``after``, read one more than ``limit``: whether to page on) as ``seat``
    sees them, and the cursor to resume from."""
    page = events[:limit]
    return orjson.dumps({
        "game_id": game_id,
        "events": [e.for_seat(seat) for e in page],
        "next_after": page[-1].seq if page else after,
        "more": len(events) > limit,
    })
