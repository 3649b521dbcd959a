"""The luck of a draw: what the card drawn was worth to its seat against the mean over
the cards it could have been, from what the seat knew (docs/analysis.md#luck).

Why per draw, as backgammon's analysers measure a roll: the cards a seat draws are the
only chance its own turn meets, and a draw's luck can be priced by the same yardstick as
its play (the expected round penalty under the policy's play to the round's end). A
draw from the discard pile takes a card the seat saw: its luck is 0. A draw from the
stock takes one of the cards the seat had not seen (:attr:`Knowledge.unseen`), each
copy as likely as any other from where it sat; its luck is the mean expected penalty
over those cards less the expected penalty after the card it got. Positive: the card
saved the seat points (lucky); negative: it cost some.

How it is priced:

* on a final turn (after another seat went out), nothing is left to chance after the
  draw: the value of each card is the best score the seat can keep after discarding
  one (as :mod:`.final_turn` scores a final discard), so the mean over every card it
  could have been is computed exactly (:func:`exact_luck`), a solve of the hand per
  distinct card, charged :data:`LUCK_CARD_STEPS` steps each to the analysis' budget;
* otherwise, on the judge's own worlds (:func:`.judge.judge`): each world's stock top is
  a card drawn uniformly from the unseen ones, so the draw's value over those worlds is
  the mean over the cards it could have been; the same worlds with the card drawn
  swapped onto the stock (:func:`service.research.worlds.sample_worlds`'s ``top``) and
  played out with the same seeds give the value after the card drawn. The luck is the
  mean of the paired differences (:func:`sampled_luck`): common random numbers again, so
  what differs between the two is the card and nothing else. It costs one playout per
  world of each stock draw, charged like every other.

Why from the seat's knowledge and the card it saw only: the luck is computed on the
blinded position (:func:`.judge.blind`), so two games that differ only in cards the
seat could not see give the same luck, bit for bit, as they give the same verdict.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from service.engine.rounds import lay_off_table, penalty_score
from service.engine.state import FINAL_DRAW, GameState
from service.research.knowledge import Knowledge
from service.solver import GAME_STEP_BUDGET, analyze

if TYPE_CHECKING:
    from .budget import StepBudget

__all__ = ["LUCK_CARD_STEPS", "exact_luck", "sampled_luck"]

#: What pricing one card of a final draw is charged, in steps: a solve of the hand with
#: each discard's cost (about 0.8 ms of CPU for 14 cards, 1.5 playout steps' worth).
LUCK_CARD_STEPS = 2


def _final_draw_values(state: GameState, seat: int, cards: Sequence[int]) -> dict[int, int]:
    """For each of ``cards``: the round score ``seat`` gets on its final turn in ``state``
    if it draws that card from the stock and then makes its best discard (the final
    round's multiplier included; lay-offs onto the table where the rules allow them)."""
    if state.phase != FINAL_DRAW or state.current_seat != seat:
        raise ValueError("not this seat's final draw")
    table = lay_off_table(state)
    hand = list(state.hands[seat])
    out = {}
    for card in sorted(set(cards)):
        ranked = analyze([*hand, card], state.wild_rank, state.rules, table,
                         steps=GAME_STEP_BUDGET).discards
        out[card] = penalty_score(state, ranked[0][1])
    return out


def exact_luck(position: GameState, seat: int, knowledge: Knowledge, drawn: int,
               budget: StepBudget | None = None) -> float:
    """The luck of drawing ``drawn`` from the stock on ``seat``'s final turn in
    ``position`` (blinded): the mean score over every unseen card (each copy counted)
    less the score after ``drawn``. Charged to ``budget`` before any solve."""
    counts = Counter(knowledge.unseen)
    if drawn not in counts:
        raise ValueError("the card drawn is not one the seat could not see")
    if budget is not None:
        budget.charge(len(counts) * LUCK_CARD_STEPS * budget.weight)
    values = _final_draw_values(position, seat, list(counts))
    mean = sum(values[c] * n for c, n in counts.items()) / sum(counts.values())
    return mean - values[drawn]


def sampled_luck(as_dealt: Sequence[int], with_drawn: Sequence[int]) -> float:
    """The luck of a draw from its worlds: the seat's round scores after drawing the
    stock's top card in each world (``as_dealt``) less those after drawing the card it
    got in the same worlds (``with_drawn``), averaged."""
    if len(as_dealt) != len(with_drawn) or not as_dealt:
        raise ValueError("the two lists must pair the same worlds")
    return sum(a - b for a, b in zip(as_dealt, with_drawn, strict=True)) / len(as_dealt)
