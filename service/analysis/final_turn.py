"""A final turn's discard, judged exactly.

Why exactly: once a player has gone out, each other seat has one last turn: it draws,
discards, and what is left of its hand is laid out (with lay-offs onto the table where
the rules allow them) and scored. After the draw nothing is left to chance for that
seat: its score for the round is the penalty of its hand without the card it discards,
as the solver lays it out on the table as it lies. So the regret of a final discard
(the points it costs against the best discard) needs no sampling of hidden cards and no
playout: it is a difference of two exact penalties.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.engine.rounds import lay_off_table, penalty_score
from service.engine.state import FINAL_DISCARD, GameState
from service.solver import GAME_STEP_BUDGET, solve

__all__ = ["FinalDiscard", "final_discard", "final_discard_scores"]


def final_discard_scores(state: GameState, seat: int) -> dict[int, int]:
    """Each card ``seat`` may discard on its final turn and the round score it then gets
    (the final round's multiplier included), as the engine will score it."""
    if state.phase != FINAL_DISCARD or state.current_seat != seat:
        raise ValueError("not this seat's final discard")
    table = lay_off_table(state)
    hand = state.hands[seat]
    out = {}
    for card in sorted(set(hand)):
        rest = list(hand)
        rest.remove(card)
        laid = solve(rest, state.wild_rank, state.rules, table, steps=GAME_STEP_BUDGET)
        out[card] = penalty_score(state, laid.penalty)
    return out


@dataclass(frozen=True, slots=True)
class FinalDiscard:
    """The verdict on one final discard: the points it cost against the best discard
    (``regret``, 0 for a best one) and the best discard (the lowest card among ties)."""

    card: int
    score: int
    best: int
    best_score: int

    @property
    def regret(self) -> int:
        return self.score - self.best_score


def final_discard(state: GameState, seat: int, card: int) -> FinalDiscard:
    """The verdict on ``seat`` discarding ``card`` on its final turn."""
    scores = final_discard_scores(state, seat)
    if card not in scores:
        raise ValueError("the card is not in the seat's hand")
    best = min(scores, key=lambda c: (scores[c], c))
    return FinalDiscard(card, scores[card], best, scores[best])
