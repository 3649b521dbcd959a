"""Result values of the solver: an arrangement of a hand and the full analysis."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Analysis", "Arrangement"]


@dataclass(frozen=True, slots=True)
class Arrangement:
    """One way to lay out a hand.

    ``melds`` are new melds made of hand cards, each in display order (a run by
    rank with its wilds where they stand, a set naturals first). ``layoffs``
    pairs the index of a table meld with the hand cards laid onto it.
    ``deadwood`` is everything left, and ``penalty`` its value.
    """

    melds: tuple[tuple[int, ...], ...]
    deadwood: tuple[int, ...]
    penalty: int
    layoffs: tuple[tuple[int, tuple[int, ...]], ...] = ()


@dataclass(frozen=True, slots=True)
class Analysis:
    """Everything ``POST /v1/solve`` reports about a hand.

    ``go_out`` maps each distinct card whose discard leaves the rest entirely
    melded (meeting the contract, if one is given) to such an arrangement of
    the rest; ``discards`` lists ``(card, penalty of the hand without it)`` for
    each distinct card, best first (ties by card order).
    """

    best: Arrangement
    go_out: dict[int, Arrangement] = field(default_factory=dict)
    discards: tuple[tuple[int, int], ...] = ()

    @property
    def penalty(self) -> int:
        return self.best.penalty
