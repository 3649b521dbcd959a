"""A rated table's update: every seat's Glicko-2 rating after one game of 2 to 8 players.

Why the pairwise reduction by place (as Board Game Arena rates its multi-player tables):
a game of N players is, for each seat, one rating period of N-1 results, a win against
every seat placed below it, a draw with every seat sharing its place, a loss against
every seat above. It keeps Glicko-2's published numbers and its meaning (a 200-point gap
is a 76% chance to finish ahead of that player), and needs nothing the engine does not
say: the places (:func:`service.engine.standing_places`, a resigned seat last).

Every seat is rated against the others' ratings *before* the game, each aged to the
game's end (:meth:`~.glicko2.System.aged`), and the results are summed in one canonical
order (by opponent, then score), so listing the seats in another order gives the same
numbers to the last bit. A frozen seat (a reference bot, the ladder's anchor:
:mod:`.anchors`) is an opponent like any other but keeps its rating.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .glicko2 import Rating, System, update

__all__ = ["Seat", "rate_table"]


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat of a finished rated game: its rating aged to the game's end, its place
    (from 1; ties share one) and whether it is frozen (an anchor)."""

    rating: Rating
    place: int
    frozen: bool = False


def _score(place: int, other: int) -> float:
    return 1.0 if place < other else 0.5 if place == other else 0.0


def rate_table(seats: Sequence[Seat], system: System) -> list[Rating]:
    """Each seat's rating after the game, in the seats' order (a frozen seat's unchanged)."""
    if len(seats) < 2:
        raise ValueError("a rated game has two players or more")
    after = []
    for i, seat in enumerate(seats):
        if seat.frozen:
            after.append(seat.rating)
            continue
        results = sorted(
            ((other.rating, _score(seat.place, other.place))
             for j, other in enumerate(seats) if j != i),
            key=lambda r: (r[0].rating, r[0].deviation, r[0].volatility, r[1]))
        after.append(update(seat.rating, results, system))
    return after
